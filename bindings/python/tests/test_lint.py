"""Lint through this host: the module's toolsift.lint.v1 report of
testdata/lint/trips.json with its expectations is byte for byte the golden
the native core wrote (core/lint's TestGolden), as hostapi and the Node
binding check."""

from __future__ import annotations

import json
from importlib import resources

import pytest

import toolsift

from conftest import REPO

DIR = REPO / "testdata" / "lint"

needs_lint = pytest.mark.skipif(
    b"toolsift.lint.v1" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
    reason="the packaged toolsearch.wasm has no lint op yet: run wasm/build.sh",
)


def expectations() -> list:
    with open(DIR / "trips.expect.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@needs_lint
def test_lint_golden() -> None:
    tools = toolsift.from_mcp_tools((DIR / "trips.json").read_bytes())
    with tools.open() as engine:
        raw = toolsift.lint_raw(engine, expectations())
        golden = (DIR / "trips.golden.json").read_bytes().rstrip(b"\n")
        assert raw == golden
        report = toolsift.lint(engine, expectations())
        assert report["schema"] == "toolsift.lint.v1"
        assert [x["rank"] for x in report["expectations"]] == [2, 0, 4, 3]
        unreachable = [f for f in report["findings"] if f["check"] == "unreachable"]
        assert [f["tool"] for f in unreachable] == ["store.list_records"]
        with pytest.raises(toolsift.ValidationError) as exc:
            toolsift.lint(engine, [{"query": "weather", "tool": "store.nope"}])
        assert exc.value.reason == "unknown_tool"
