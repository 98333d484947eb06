"""OpenAPI descriptions through this host: the module builds Scalar's Galaxy
(OpenAPI 3.1, from its YAML and from its JSON) and the Swagger 2.0 Petstore
(whose findPetsByTags is deprecated) into the snapshots the Go core builds
(their SHA-256 in testdata/openapi/<name>.snap.sha256), and every vector of
testdata/openapi/<name>.golden.jsonl gets the same bytes (or the same typed
error)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import toolsift

from conftest import REPO

OPENAPI = REPO / "testdata" / "openapi"


# name, the files it is built from, its tool count, its least vector count
# (core/engine's TestOpenAPIGolden writes them).
SPECS = [
    ("galaxy", ("galaxy-3.1.yaml", "galaxy-3.1.json"), 9, 18),
    ("petstore", ("petstore-swagger2.json",), 20, 8),
]


@pytest.mark.parametrize("name,files,tools,least", SPECS)
def test_openapi_golden(name: str, files: Any, tools: int, least: int) -> None:
    want = (OPENAPI / f"{name}.snap.sha256").read_text().strip()
    snap = b""
    for file in files:
        snap = toolsift.build_snapshot("openapi", (OPENAPI / file).read_bytes())
        assert hashlib.sha256(snap).hexdigest() == want, f"the module built a different snapshot from {file}"
    with toolsift.Engine.open(snap) as engine:
        info = engine.info()
        assert (info["format"], info["tool_count"]) == ("openapi", tools)
        with open(OPENAPI / f"{name}.golden.jsonl", encoding="utf-8") as f:
            vectors = [json.loads(line) for line in f if line.strip()]
        assert len(vectors) >= least
        for v in vectors:
            call = engine.inspect_raw if v["kind"] == "inspect" else engine.search_raw
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
