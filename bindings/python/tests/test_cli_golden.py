"""python -m toolsift against testdata/cli/golden.txt, the command lines every
CLI (wasmhost, this one, the npm package's) answers with the same bytes: its
header says the format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import REPO

GOLDEN = REPO / "testdata" / "cli" / "golden.txt"


def parse(text: str) -> List[Dict[str, Any]]:
    cases: List[Dict[str, Any]] = []
    cur: Dict[str, Any] = {}
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("=== "):
            cur = {"name": line[4:], "args": None, "stdin": "", "repeat": 1, "exit": None, "stderr": "", "stdout": ""}
            cases.append(cur)
        elif not cases:
            continue  # the header's comment
        elif line == ">" or line.startswith("> "):
            cur["stdout"] += line[2:] + "\n"
        elif line:
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "args":
                cur["args"] = json.loads(value)
            elif key == "stdin":
                cur["stdin"] = json.loads(value)
            elif key == "stdin-repeat":
                cur["repeat"] = int(value)
            elif key == "exit":
                cur["exit"] = int(value)
            elif key == "stderr":
                cur["stderr"] = value
            else:
                raise ValueError(f"{GOLDEN} line {n}: unknown key {key!r}")
    return cases


CASES = parse(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_has_cases() -> None:
    assert len(CASES) >= 10 and all(c["args"] and c["exit"] is not None for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_cli_golden(case: Dict[str, Any], tmp_path: Path) -> None:
    stdin = (case["stdin"] * case["repeat"]).encode("utf-8")
    proc = subprocess.run([sys.executable, "-m", "toolsift", *case["args"]], input=stdin,
                          capture_output=True, timeout=120, cwd=tmp_path)
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode == case["exit"], stderr
    assert stderr.removesuffix("\n") == case["stderr"]
    assert proc.stdout.decode("utf-8") == case["stdout"]
