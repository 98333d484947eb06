"""The packaged module and snapshot, the licence files, and the sandbox."""

from __future__ import annotations

from importlib import resources

import pytest
import wasmtime

import toolsift
from toolsift import _runtime

from conftest import CHINESE_QUERY, REPO


def test_packaged_files_are_byte_identical() -> None:
    pkg = resources.files("toolsift")
    assert pkg.joinpath("toolsearch.wasm").read_bytes() == (REPO / "wasm" / "toolsearch.wasm").read_bytes()
    assert pkg.joinpath("dws.snap").read_bytes() == (REPO / "testdata" / "dws" / "dws.snap").read_bytes()
    for name in ("LICENSE", "NOTICE"):
        assert pkg.joinpath("data-licenses", "dws", name).read_bytes() == (REPO / "testdata" / "dws" / name).read_bytes()
    assert pkg.joinpath("py.typed").is_file()


def test_module_version() -> None:
    assert toolsift.module_version() == {
        "abi": 1, "module": "toolsift", "snapshot_format": 4, "profiles": ["dws-v1", "generic-v1", "generic-v2"],
        "formats": ["dws", "toolsift", "mcp", "openai", "anthropic", "beir"],
    }


def test_info(engine: toolsift.Engine) -> None:
    info = engine.info()
    assert info["profile"] == "dws-v1" and info["format"] == "dws"
    assert info["tool_count"] == 1122 and info["product_count"] == 27
    assert info["snapshot_bytes"] == len((REPO / "testdata" / "dws" / "dws.snap").read_bytes())


def test_wasi_config_is_bare(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module gets no file system, environment, arguments or stdio: the
    only WasiConfig built is a bare one, and no configuring method of
    WasiConfig is called on the way to a working instance."""
    forbidden = ["preopen_dir", "inherit_argv", "inherit_env", "inherit_stdin", "inherit_stdout",
                 "inherit_stderr", "stdin_file", "stdout_file", "stderr_file", "stdout_custom", "stderr_custom"]
    calls: list = []
    for name in forbidden:
        def boom(*args: object, _name: str = name, **kw: object) -> None:
            calls.append(_name)
            raise AssertionError(f"WasiConfig.{_name} called")
        monkeypatch.setattr(wasmtime.WasiConfig, name, boom)
    for prop in ("argv", "env"):
        monkeypatch.setattr(wasmtime.WasiConfig, prop, property(None, lambda self, v, _p=prop: calls.append(_p)))
    cfg = _runtime.wasi_config()
    assert type(cfg) is wasmtime.WasiConfig
    with toolsift.Engine.open() as e:
        assert e.search(CHINESE_QUERY)["candidates"]
    assert calls == []


def test_build_snapshot_matches_committed() -> None:
    """toolsift_build_snapshot of the committed DWS dump gives the committed
    dws.snap byte for byte (about 3 s); bad input is a typed error."""
    snap = toolsift.build_snapshot("dws", REPO / "testdata" / "dws" / "catalog.tar.gz")
    assert snap == (REPO / "testdata" / "dws" / "dws.snap").read_bytes()
    with pytest.raises(toolsift.ValidationError) as exc:
        toolsift.build_snapshot("nope", b"{}")
    assert exc.value.reason == "unknown_format"
    with pytest.raises(toolsift.ValidationError) as exc:
        toolsift.build_snapshot("dws", {"catalog.json": 1})
    assert exc.value.reason == "invalid_catalog"


def test_compile_cache(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The opt-in on-disk cache (TOOLSIFT_CACHE_DIR) writes the compiled
    module once and loads it afterwards; the instance behaves the same."""
    wasm = _runtime.module_bytes()
    rt1 = _runtime.Runtime(wasm, str(tmp_path))
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].suffix == ".cwasm"
    rt2 = _runtime.Runtime(wasm, str(tmp_path))
    for rt in (rt1, rt2):
        inst = _runtime.Instance(rt)
        assert b'"abi":1' in inst.version()
