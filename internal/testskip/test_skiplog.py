"""The pytest plugin and the summary of `make test` (run by make python-test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_plugin_records_skips_not_passes_or_xfails(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        "def test_runs(): pass\n"
        "def test_needs_a_thing(): pytest.skip('the thing is not installed')\n"
        "@pytest.mark.xfail(reason='known')\n"
        "def test_known(): assert False\n", encoding="utf-8")
    (tmp_path / "test_module_skip.py").write_text("import pytest\npytest.importorskip('no_such_module_here')\n", encoding="utf-8")
    log = tmp_path / "skips.log"
    env = dict(os.environ, TOOLSIFT_SKIP_LOG=str(log), PYTHONPATH=str(HERE))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "pytest_skiplog", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = sorted(log.read_text(encoding="utf-8").splitlines())
    assert len(lines) == 2, lines
    assert lines[0].endswith("test_module_skip.py: could not import 'no_such_module_here': No module named 'no_such_module_here'"), lines
    assert lines[1].endswith("test_sample.py::test_needs_a_thing: the thing is not installed"), lines
    assert all(line.startswith("pytest: ") for line in lines), "outside the repository the suite is plain pytest"


def summary(tmp_path: Path, lines: list[str], status: int = 0, **env: str) -> subprocess.CompletedProcess[str]:
    log = tmp_path / "skips.log"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "ALLOW_SKIPS")}
    return subprocess.run([sys.executable, str(HERE / "summary.py"), str(log), str(status)],
                          env={**base, **env}, capture_output=True, text=True)


def test_summary(tmp_path: Path) -> None:
    ok = summary(tmp_path, [])
    assert ok.returncode == 0 and ok.stdout.strip() == "make test: passed, nothing skipped"
    skip = "go ./gateway: TestNPMServers: node is not installed"
    failed = summary(tmp_path, [skip, skip])
    assert failed.returncode == 1
    assert failed.stdout.count(skip) == 1, "listed once"
    assert "make test: 1 test(s) SKIPPED:" in failed.stdout
    assert failed.stdout.rstrip().endswith("make test: FAILED: 1 test(s) skipped")
    allowed = summary(tmp_path, [skip], ALLOW_SKIPS="1")
    assert allowed.returncode == 0 and "passed with 1 skip(s) (ALLOW_SKIPS=1)" in allowed.stdout
    ci = summary(tmp_path, [skip], ALLOW_SKIPS="1", CI="true")
    assert ci.returncode == 1 and "not honoured under CI" in ci.stdout
    broken = summary(tmp_path, [], status=2)
    assert broken.returncode == 1 and "make test: FAILED (a suite exited with 2" in broken.stdout
