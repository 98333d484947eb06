"""Shared fixtures. The repository root is parents[3] of a test file
(bindings/python/tests/<file>): the golden data and the original module and
snapshot are read from the checkout, the package from wherever it is installed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import toolsift

REPO = Path(__file__).resolve().parents[3]
GOLDEN = REPO / "testdata" / "dws" / "golden"

CHINESE_QUERY = {"version": "tool-search.v1", "query": "给群里发文件并确认消息已读", "limit": 5, "candidate_limit": 20}


def golden_lines(name: str) -> List[Dict[str, Any]]:
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def engine() -> Iterator[toolsift.Engine]:
    e = toolsift.Engine.open(instances=4)
    yield e
    e.close()


@pytest.fixture(scope="session")
def dws_snapshot() -> bytes:
    return (REPO / "catalogs" / "dws" / "dws.snap").read_bytes()
