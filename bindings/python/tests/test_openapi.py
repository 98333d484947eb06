"""An OpenAPI description through this host: the module builds Scalar's
Galaxy (OpenAPI 3.1) from its YAML and from its JSON into the snapshot the Go
core builds (its SHA-256 in testdata/openapi/galaxy.snap.sha256), and every
vector of testdata/openapi/golden.jsonl gets the same bytes (or the same typed
error)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import toolsift

from conftest import REPO

OPENAPI = REPO / "testdata" / "openapi"


@pytest.fixture(scope="module")
def galaxy_engine() -> Any:
    want = (OPENAPI / "galaxy.snap.sha256").read_text().strip()
    snap = b""
    for name in ("galaxy-3.1.yaml", "galaxy-3.1.json"):
        snap = toolsift.build_snapshot("openapi", (OPENAPI / name).read_bytes())
        assert hashlib.sha256(snap).hexdigest() == want, f"the module built a different Galaxy snapshot from {name}"
    e = toolsift.Engine.open(snap)
    yield e
    e.close()


def test_openapi_golden(galaxy_engine: toolsift.Engine) -> None:
    info = galaxy_engine.info()
    assert (info["format"], info["tool_count"]) == ("openapi", 9)
    with open(OPENAPI / "golden.jsonl", encoding="utf-8") as f:
        vectors = [json.loads(line) for line in f if line.strip()]
    assert len(vectors) >= 18
    for v in vectors:
        call = galaxy_engine.inspect_raw if v["kind"] == "inspect" else galaxy_engine.search_raw
        request = json.dumps(v["request"], ensure_ascii=False)
        if "error" in v:
            with pytest.raises(toolsift.ToolsiftError) as caught:
                call(request)
            assert (caught.value.category, caught.value.reason) == (v["error"]["category"], v["error"]["reason"]), request
        else:
            assert call(request).decode("utf-8") == v["response"], request


def test_openapi_not_a_description() -> None:
    with pytest.raises(toolsift.ValidationError) as caught:
        toolsift.build_snapshot("openapi", {"tools": []})
    assert caught.value.reason == "invalid_catalog"
    assert "OpenAPI" in str(caught.value)
