"""A pytest plugin: every skipped test (or module) is appended to the file
TOOLSIFT_SKIP_LOG names, one "suite: test: reason" line, as the Go helper in
this folder (testskip.go) and the node --test reporter (node-skiplog.mjs) do;
`make test` lists them at the end and fails on them (summary.py).

Loaded by the Makefile with `-p pytest_skiplog` and this folder on
PYTHONPATH. Without the variable it does nothing. An expected failure
(xfail) is not a skip.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

_suite = "pytest"


def pytest_configure(config: Any) -> None:
    global _suite
    root = Path(str(config.rootpath)).resolve()
    for up in (root, *root.parents):
        if (up / "go.mod").is_file():
            _suite = f"pytest {root.relative_to(up).as_posix() or '.'}"
            break


def _record(nodeid: str, longrepr: Any) -> None:
    path = os.environ.get("TOOLSIFT_SKIP_LOG")
    if not path:
        return
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    reason = reason.removeprefix("Skipped: ").replace("\n", " ")
    with open(path, "a", encoding="utf-8") as log:
        log.write(f"{_suite}: {nodeid}: {reason}\n")


def pytest_runtest_logreport(report: Any) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _record(report.nodeid, report.longrepr)


def pytest_collectreport(report: Any) -> None:
    # pytest.importorskip at a module's top skips the whole module here.
    if report.skipped:
        _record(report.nodeid, report.longrepr)
