"""The packaged module and snapshot, the licence files, and the sandbox."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from importlib import resources
from pathlib import Path

import pytest
import wasmtime

import toolsift
from toolsift import _runtime

from conftest import CHINESE_QUERY, REPO


def test_packaged_files_are_byte_identical() -> None:
    pkg = resources.files("toolsift")
    assert pkg.joinpath("toolsearch.wasm").read_bytes() == (REPO / "wasm" / "toolsearch.wasm").read_bytes()
    assert pkg.joinpath("dws.snap").read_bytes() == (REPO / "catalogs" / "dws" / "dws.snap").read_bytes()
    for name in ("LICENSE", "NOTICE"):
        assert pkg.joinpath("data-licenses", "dws", name).read_bytes() == (REPO / "testdata" / "dws" / name).read_bytes()
    assert pkg.joinpath("py.typed").is_file()
    # The hash list the build hook packaged is the committed one's.
    recorded = dict(reversed(line.split("  ")) for line in (REPO / "wasm" / "artifacts.sha256").read_text().splitlines())
    packaged = dict(reversed(line.split("  ")) for line in pkg.joinpath("artifacts.sha256").read_text().splitlines())
    assert packaged == {"toolsearch.wasm": recorded["wasm/toolsearch.wasm"], "dws.snap": recorded["catalogs/dws/dws.snap"]}
    assert hashlib.sha256(pkg.joinpath("toolsearch.wasm").read_bytes()).hexdigest() == packaged["toolsearch.wasm"]


def _setup_module():
    spec = importlib.util.spec_from_file_location("toolsift_setup", REPO / "bindings" / "python" / "setup.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fake_checkout(root: Path, module: bytes, snap: bytes) -> Path:
    """A checkout's layout with small stand-ins for the module and snapshot,
    and their hash list as wasm/build.sh writes it."""
    (root / "wasm").mkdir(parents=True)
    (root / "catalogs" / "dws").mkdir(parents=True)
    package = root / "bindings" / "python" / "src" / "toolsift"
    package.mkdir(parents=True)
    (root / "wasm" / "toolsearch.wasm").write_bytes(module)
    (root / "catalogs" / "dws" / "dws.snap").write_bytes(snap)
    (root / "wasm" / "artifacts.sha256").write_text(
        f"{hashlib.sha256(module).hexdigest()}  wasm/toolsearch.wasm\n{hashlib.sha256(snap).hexdigest()}  catalogs/dws/dws.snap\n")
    return package


def test_build_hook_copies_and_checks_the_artifacts(tmp_path: Path) -> None:
    """setup.py's build hook: copies from a checkout, refuses a file whose
    bytes are not the recorded ones, and checks an unpacked sdist's copies."""
    setup = _setup_module()
    package = _fake_checkout(tmp_path / "repo", b"\0asm module", b"snapshot")
    setup.stage_artifacts(package, tmp_path / "repo")
    assert (package / "toolsearch.wasm").read_bytes() == b"\0asm module"
    assert (package / "dws.snap").read_bytes() == b"snapshot"
    assert "toolsearch.wasm" in (package / "artifacts.sha256").read_text()

    # A stale copy in the package is replaced.
    (package / "dws.snap").write_bytes(b"old snapshot")
    setup.stage_artifacts(package, tmp_path / "repo")
    assert (package / "dws.snap").read_bytes() == b"snapshot"

    # A module rebuilt without recording its hash is refused, loudly.
    (tmp_path / "repo" / "wasm" / "toolsearch.wasm").write_bytes(b"\0asm other module")
    with pytest.raises(setup.ArtifactError, match="wasm/toolsearch.wasm has SHA-256 .* but wasm/artifacts.sha256 records"):
        setup.stage_artifacts(package, tmp_path / "repo")

    # An unpacked sdist (no checkout around it): its copies are checked
    # against the hash list it carries.
    sdist = tmp_path / "sdist" / "src" / "toolsift"
    shutil.copytree(package, sdist)
    setup.stage_artifacts(sdist, tmp_path / "sdist")
    (sdist / "toolsearch.wasm").write_bytes(b"tampered")
    with pytest.raises(setup.ArtifactError, match="toolsearch.wasm has SHA-256 .* it is not the committed file"):
        setup.stage_artifacts(sdist, tmp_path / "sdist")
    (sdist / "toolsearch.wasm").unlink()
    with pytest.raises(setup.ArtifactError, match="toolsearch.wasm is missing"):
        setup.stage_artifacts(sdist, tmp_path / "sdist")


def test_module_version() -> None:
    assert toolsift.module_version() == {
        "abi": 1, "module": "toolsift", "version": toolsift.__version__, "snapshot_format": 6, "profiles": ["dws-v1", "generic-v1", "generic-v2", "generic-v3"],
        "formats": ["dws", "toolsift", "mcp", "openai", "anthropic", "beir", "openapi"],
    }


def test_info(engine: toolsift.Engine) -> None:
    info = engine.info()
    assert info["profile"] == "dws-v1" and info["format"] == "dws"
    assert info["tool_count"] == 1122 and info["product_count"] == 27
    assert info["snapshot_bytes"] == len((REPO / "catalogs" / "dws" / "dws.snap").read_bytes())


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
    assert snap == (REPO / "catalogs" / "dws" / "dws.snap").read_bytes()
    with pytest.raises(toolsift.ValidationError) as exc:
        toolsift.build_snapshot("nope", b"{}")
    assert exc.value.reason == "unknown_format"
    with pytest.raises(toolsift.ValidationError) as exc:
        toolsift.build_snapshot("dws", {"catalog.json": 1})
    assert exc.value.reason == "invalid_catalog"


_OPEN_AND_SEARCH = """
import json, sys, time
t = time.monotonic()
import toolsift
from toolsift import _runtime
with toolsift.Engine.open() as e:
    assert e.search({"version": "tool-search.v1", "query": "x"})["version"] == "tool-search.v1"
rt = _runtime.runtime()
print(json.dumps({"seconds": time.monotonic() - t, "path": rt.cache_path, "hit": rt.cache_hit}))
"""


def _new_process(env: dict) -> dict:
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _OPEN_AND_SEARCH], env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_compile_cache_is_on_by_default(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With TOOLSIFT_CACHE_DIR unset, a new process caches the compiled module
    in $XDG_CACHE_HOME/toolsift/wasmtime, and the next new process loads it
    instead of compiling (it used to compile in every process: 6.6-7.6 s)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "TOOLSIFT_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    first = _new_process(env)
    entries = list((tmp_path / "xdg" / "toolsift" / "wasmtime").glob("*.cwasm"))
    assert [str(p) for p in entries] == [first["path"]] and not first["hit"]
    second = _new_process(env)
    assert second["path"] == first["path"] and second["hit"]
    assert second["seconds"] < first["seconds"] / 2, (first, second)


def test_cache_dir_choice(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """TOOLSIFT_CACHE_DIR names the directory; set to "" it turns the cache
    off; unset, the user cache directory is used (a relative XDG_CACHE_HOME
    is ignored, as the XDG spec says)."""
    import sys

    monkeypatch.setenv("TOOLSIFT_CACHE_DIR", str(tmp_path))
    assert _runtime.cache_dir() == str(tmp_path)
    monkeypatch.setenv("TOOLSIFT_CACHE_DIR", "")
    assert _runtime.cache_dir() is None
    monkeypatch.delenv("TOOLSIFT_CACHE_DIR")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", "/x/cache")
        assert _runtime.cache_dir() == "/x/cache/toolsift/wasmtime"
        monkeypatch.setenv("XDG_CACHE_HOME", "relative")
        monkeypatch.setenv("HOME", "/home/u")
        assert _runtime.cache_dir() == "/home/u/.cache/toolsift/wasmtime"
        monkeypatch.setenv("HOME", "")
        assert _runtime.cache_dir() is None


@pytest.fixture(scope="module")
def cache_entry(tmp_path_factory) -> tuple:  # type: ignore[no-untyped-def]
    """(file name, code, digest line) of a good cache entry, compiled once."""
    from pathlib import Path

    rt = _runtime.Runtime(_runtime.module_bytes(), str(tmp_path_factory.mktemp("cache")))
    path = Path(rt.cache_path)
    return path.name, path.read_bytes(), Path(str(path) + ".sha256").read_bytes()


@pytest.mark.parametrize("damage", ["truncated", "flipped code byte", "not an entry", "empty", "no digest", "other digest"])
def test_corrupt_cache_entry_is_compiled_again_and_replaced(tmp_path, cache_entry: tuple, damage: str) -> None:  # type: ignore[no-untyped-def]
    """A damaged cache entry costs a compile, never the open: the module is
    compiled again, works, and the entry is rewritten whole, so the next
    runtime loads it. A flipped byte inside the compiled code is caught by
    the entry's digest (wasmtime would run the code as it is)."""
    name, good, stamp = cache_entry
    half = len(good) // 2
    bad, bad_stamp = {
        "truncated": (good[:half], stamp),
        "flipped code byte": (good[:half] + bytes([good[half] ^ 0x40]) + good[half + 1 :], stamp),
        "not an entry": (b"\x7fELF" + b"\0" * 4096, stamp),
        "empty": (b"", stamp),
        "no digest": (good, None),
        "other digest": (good, stamp[:-5] + b"0000\n"),
    }[damage]
    path = tmp_path / name
    path.write_bytes(bad)
    if bad_stamp is not None:
        (tmp_path / (name + ".sha256")).write_bytes(bad_stamp)
    rt = _runtime.Runtime(_runtime.module_bytes(), str(tmp_path))
    assert rt.cache_path == str(path) and not rt.cache_hit
    assert b'"abi":1' in _runtime.Instance(rt).version()
    import hashlib

    code = path.read_bytes()
    assert code != bad or damage in ("no digest", "other digest")
    assert (tmp_path / (name + ".sha256")).read_bytes() == stamp[: -65] + hashlib.sha256(code).hexdigest().encode() + b"\n"
    again = _runtime.Runtime(_runtime.module_bytes(), str(tmp_path))
    assert again.cache_hit and b'"abi":1' in _runtime.Instance(again).version()


def test_build_snapshot_too_large_for_the_memory_limit() -> None:
    """A build that outgrows the instance's memory is the typed
    catalog_too_large naming the limit (as the Go host), not a raw trap
    (issue 17 item 3)."""
    catalog = (REPO / "testdata" / "dws" / "catalog.tar.gz").read_bytes()
    with pytest.raises(toolsift.ValidationError) as caught:
        toolsift.build_snapshot("dws", catalog, memory_limit=48 << 20)
    assert caught.value.reason == "catalog_too_large"
    assert caught.value.code == 3
    assert "memory limit of 48 MiB" in str(caught.value)


def test_wheel_metadata(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The wheel a user installs carries the SPDX licence, the licence files
    (the code's and the bundled DWS data's), the project URLs and the shared
    release number."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(REPO / "bindings" / "python")],
                   check=True, timeout=300, cwd=tmp_path)
    (wheel,) = tmp_path.glob("toolsift-*.whl")
    with zipfile.ZipFile(wheel) as z:
        info = f"toolsift-{toolsift.__version__}.dist-info"
        names = set(z.namelist())
        for licence in ("LICENSE", "src/toolsift/data-licenses/dws/LICENSE", "src/toolsift/data-licenses/dws/NOTICE"):
            assert f"{info}/licenses/{licence}" in names
        assert z.read(f"{info}/licenses/LICENSE") == (REPO / "LICENSE").read_bytes()
        metadata = z.read(f"{info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert f"Version: {toolsift.__version__}" in metadata
    assert "Project-URL: Homepage, https://github.com/toolsift/toolsift" in metadata
    assert "Requires-Python: >=3.10" in metadata
