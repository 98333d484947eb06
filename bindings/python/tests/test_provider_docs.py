"""Every runnable snippet of docs/INTEGRATIONS.md and bindings/python/README.md
(```python runnable blocks) runs from the repository root, in a fresh
interpreter with this package, and prints what its last comment says."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import resources
from typing import List

import pytest

from conftest import REPO

pytestmark = pytest.mark.skipif(
    b"toolsift_provider" not in resources.files("toolsift").joinpath("toolsearch.wasm").read_bytes(),
    reason="the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh",
)


def snippets(name: str) -> List[str]:
    text = (REPO / name).read_text(encoding="utf-8")
    return re.findall(r"```python runnable\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("doc", ["docs/INTEGRATIONS.md", "bindings/python/README.md"])
def test_snippets_run_and_print_what_they_say(doc: str) -> None:
    blocks = snippets(doc)
    assert len(blocks) >= 2, doc
    for i, code in enumerate(blocks, 1):
        lines = code.rstrip().split("\n")
        assert len(lines) < 20, f"{doc} snippet {i} has {len(lines)} lines"
        expected = lines[-1].rsplit("# ", 1)[1]
        res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, f"{doc} snippet {i}:\n{res.stderr}"
        assert res.stdout.strip() == expected, f"{doc} snippet {i}"
