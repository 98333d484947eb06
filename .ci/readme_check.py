#!/usr/bin/env python3
"""Run every shell block of README.md, in order, in a fresh clone.

A new user copies the README's commands into a shell: each ```sh block must
run there and exit 0. The blocks run in a clone of the committed HEAD (so a
file the README names but git does not hold fails here as it would for them),
with a fresh virtual environment first on PATH (so `pip install` works as in
a user's venv), GOBIN a fresh folder on PATH (so `go install`ed commands run
as from a user's GOPATH/bin) and no standard input. A block preceded by an HTML comment
`<!-- readme-check: skip (why) -->` is listed and not run; the reason is
required, so every skip says why.

Usage: .ci/readme_check.py [README] (default: README.md of this checkout)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCK = re.compile(r"(?:<!-- readme-check: skip(?P<why>[^>]*)-->\s*\n)?^```(?:sh|bash|shell)\n(?P<body>.*?)^```$", re.M | re.S)
TIMEOUT_SECONDS = 900


def blocks(text: str) -> list[tuple[int, str, str | None]]:
    out = []
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("body"))
        why = m.group("why")
        if why is not None:
            why = why.strip().strip("()").strip()
            if not why:
                sys.exit(f"README.md:{line}: a readme-check skip must say why")
        out.append((line, m.group("body"), why))
    return out


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    readme = Path(sys.argv[1]) if len(sys.argv) > 1 else repo / "README.md"
    found = blocks(readme.read_text(encoding="utf-8"))
    if not found:
        print("readme-check: no shell blocks found", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="readme-check-") as tmp:
        clone = Path(tmp) / "toolsift"
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(repo), str(clone)], check=True)
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # `go install` writes into a folder of this run, first on PATH, as a
        # user's GOPATH/bin on their PATH would be (not into the real one).
        gobin = Path(tmp) / "gobin"
        env = dict(os.environ, PATH=os.pathsep.join([str(venv / "bin"), str(gobin), os.environ["PATH"]]),
                   VIRTUAL_ENV=str(venv), GOBIN=str(gobin))
        failed = 0
        for line, body, why in found:
            first = body.strip().splitlines()[0] if body.strip() else ""
            if why is not None:
                print(f"readme-check: README.md:{line}: skipped ({why}): {first}")
                continue
            start = time.monotonic()
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=clone, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_SECONDS)
            took = time.monotonic() - start
            if proc.returncode != 0:
                failed += 1
                print(f"readme-check: README.md:{line}: FAILED (exit {proc.returncode}, {took:.1f} s): {first}")
                sys.stdout.write(proc.stdout.decode("utf-8", "replace")[-3000:])
                sys.stdout.write(proc.stderr.decode("utf-8", "replace")[-3000:])
            else:
                print(f"readme-check: README.md:{line}: ok ({took:.1f} s): {first}")
        print(f"readme-check: {len(found)} blocks, {failed} failed")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
