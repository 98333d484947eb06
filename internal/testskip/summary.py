#!/usr/bin/env python3
"""The last lines of `make test`: what was skipped, and whether that passes.

Usage: summary.py SKIP_LOG STATUS

SKIP_LOG is the file every suite appended its skips to ("suite: test:
reason" lines; see testskip.go), STATUS the exit status of the suites. The
run passes only if the suites passed and nothing was skipped, or if the
user said skips are fine with ALLOW_SKIPS=1 — which is not honoured under
CI (the CI environment variable set): CI must never skip.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> int:
    log, status = Path(sys.argv[1]), int(sys.argv[2])
    lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
    skips = list(dict.fromkeys(line for line in lines if line.strip()))  # in order, once each
    ci = os.environ.get("CI", "") not in ("", "0", "false")
    allow = os.environ.get("ALLOW_SKIPS", "") not in ("", "0") and not ci
    print()
    if skips:
        print(f"make test: {len(skips)} test(s) SKIPPED:")
        for line in skips:
            print(f"  {line}")
        print("Install what they need with `make setup` (it says what it cannot install),")
        print("or pass ALLOW_SKIPS=1 to accept the skips" + (" (not honoured under CI)." if ci else "."))
    if status != 0:
        print(f"make test: FAILED (a suite exited with {status}; its output is above)")
        return 1
    if not skips:
        print("make test: passed, nothing skipped")
        return 0
    if allow:
        print(f"make test: passed with {len(skips)} skip(s) (ALLOW_SKIPS=1)")
        return 0
    print(f"make test: FAILED: {len(skips)} test(s) skipped")
    return 1


if __name__ == "__main__":
    sys.exit(main())
