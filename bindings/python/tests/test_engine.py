"""Bad input, bad snapshots, swap, threads."""

from __future__ import annotations

import struct
import threading

import pytest

import toolsift

from conftest import CHINESE_QUERY, REPO, golden_lines


@pytest.mark.parametrize("request_, reason", [
    ('{"version":"tool-search.v1","query":', "invalid_request_json"),
    ("[1,2,3]", "invalid_request_json"),
    ('{"version":"tool-search.v1","query":"x"} {}', "invalid_request_json"),
    ('{"version":"tool-search.v1","query":"x","bogus":1}', "invalid_request_json"),
    ('{"version":"tool-search.v2","query":"x"}', "unsupported_version"),
    ('{"query":"x"}', "unsupported_version"),
    ("", "invalid_request_json"),
    ('{"version":"tool-search.v1","query":"' + "文件" * 20000 + '"}', "request_too_large"),
    ({"version": "tool-search.v1", "query": "x", "limit": -1}, "invalid_limit"),
])
def test_bad_requests(engine: toolsift.Engine, request_: object, reason: str) -> None:
    before = engine.search_raw(CHINESE_QUERY)
    with pytest.raises(toolsift.ValidationError) as info:
        engine.search_raw(request_)  # type: ignore[arg-type]
    err = info.value
    assert (err.category, err.code, err.reason) == ("validation", 3, reason)
    assert err.message
    assert err.raw.startswith(b'{"error":{"category":"validation","code":3,"message":')
    assert engine.search_raw(CHINESE_QUERY) == before


def test_bad_inspect_requests(engine: toolsift.Engine) -> None:
    for request in ['{"version":"schema-inspect.v1"',
                    '{"version":"schema-inspect.v1","canonical_path":"chat","bogus":1}']:
        with pytest.raises(toolsift.ValidationError):
            engine.inspect_raw(request)


def test_discovery_error(engine: toolsift.Engine) -> None:
    with pytest.raises(toolsift.DiscoveryError) as info:
        engine.inspect({"version": "schema-inspect.v1", "canonical_path": "chat.query_msg_read_status",
                        "expected_source_hash": "sha256:" + "0" * 64,
                        "expected_surface_hash": engine.info()["surface_hash"]})
    assert info.value.code == 6 and isinstance(info.value, toolsift.ToolsiftError)


def test_request_forms_agree(engine: toolsift.Engine) -> None:
    import json
    as_dict = engine.search_raw(CHINESE_QUERY)
    assert engine.search_raw(json.dumps(CHINESE_QUERY)) == as_dict
    assert engine.search_raw(json.dumps(CHINESE_QUERY).encode()) == as_dict
    assert engine.search(CHINESE_QUERY) == json.loads(as_dict)
    assert b"score_breakdown" in engine.search_raw(CHINESE_QUERY, explain=True)


def _bad_snapshots(good: bytes) -> list:
    flipped = bytearray(good)
    flipped[24 + len(good) // 2] ^= 0x10
    version = bytearray(good)
    version[8:12] = struct.pack("<I", 99)
    return [
        ("flipped body byte", bytes(flipped), "invalid_snapshot"),
        ("truncated", good[: len(good) // 2], "invalid_snapshot"),
        ("header only", good[:24], "invalid_snapshot"),
        ("empty", b"", "invalid_snapshot"),
        ("unknown format version", bytes(version), "unsupported_snapshot_version"),
    ]


def test_bad_snapshots(dws_snapshot: bytes) -> None:
    with toolsift.Engine.open(dws_snapshot, instances=2) as e:
        before = e.search_raw(CHINESE_QUERY)
        info = e.info()
        for name, data, reason in _bad_snapshots(dws_snapshot):
            with pytest.raises(toolsift.ValidationError) as exc:
                toolsift.Engine.open(data)
            assert exc.value.reason == reason, name
            with pytest.raises(toolsift.ValidationError) as exc:
                e.swap(data)
            assert (exc.value.category, exc.value.code, exc.value.reason) == ("validation", 3, reason), name
            assert e.info() == info, name
            assert e.search_raw(CHINESE_QUERY) == before, name
        assert e._live <= 2


def test_swap_good_snapshot_and_paths(dws_snapshot: bytes, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dws.snap"
    path.write_bytes(dws_snapshot)
    with toolsift.Engine.open(path, instances=3) as e:
        before = e.search_raw(CHINESE_QUERY)
        e.swap(str(path))
        assert e.search_raw(CHINESE_QUERY) == before
        e.swap(dws_snapshot)
        assert e.search_raw(CHINESE_QUERY) == before
        assert e._live <= 3
    with pytest.raises(toolsift.EngineClosedError):
        e.search_raw(CHINESE_QUERY)


def test_threads() -> None:
    """8 threads x 25 searches at once on one Engine(instances=4)."""
    requests = [{"version": "tool-search.v1", **line["request"]}
                for name in ("misc.jsonl.gz", "workflows.jsonl.gz") for line in golden_lines(name)]
    requests.append(CHINESE_QUERY)
    with toolsift.Engine.open(instances=4) as e:
        want = []
        for r in requests:
            try:
                want.append(e.search_raw(r))
            except toolsift.ToolsiftError as err:
                want.append(err.raw)
        mismatches: list = []
        errors: list = []
        start = threading.Barrier(8)

        def worker(g: int) -> None:
            try:
                start.wait()
                for i in range(25):
                    k = (g * 25 + i * 7) % len(requests)
                    try:
                        got = e.search_raw(requests[k])
                    except toolsift.ToolsiftError as err:
                        got = err.raw
                    if got != want[k]:
                        mismatches.append((g, k))
                    if e._live > 4:
                        errors.append(f"{e._live} instances alive")
            except BaseException as exc:  # noqa: BLE001
                errors.append(repr(exc))

        threads = [threading.Thread(target=worker, args=(g,)) for g in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and not mismatches
        assert e._created <= 4


def test_trap_discards_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trap (here: linear memory capped below what opening DWS needs is a
    refusal at open; a forced trap during a call) discards the instance and a
    new one serves the next call."""
    import wasmtime

    from toolsift import _runtime

    with toolsift.Engine.open(instances=1) as e:
        good = e.search_raw(CHINESE_QUERY)
        inst = e._idle[0]
        real = inst._search

        def trapping(*params: object) -> object:
            raise wasmtime.Trap("forced trap")

        inst._search = trapping
        with pytest.raises(toolsift.InternalError) as exc:
            e.search_raw(CHINESE_QUERY)
        assert exc.value.reason == "host_failure"
        assert inst.broken and inst not in e._idle
        assert e.search_raw(CHINESE_QUERY) == good
        assert e._created == 2
        del real, _runtime


def test_memory_limit_holds_and_a_real_trap_discards() -> None:
    """Linear memory capped at 40 MiB. The module is told the limit and keeps
    its heap under it: 20,000 searches (which used to grow memory until the Go
    runtime aborted) run in the one instance. A call that needs more than the
    limit (an allocation of 200 MiB, put in place of the search export) traps
    for real in the Go runtime: InternalError/host_failure, the instance is
    discarded and a fresh one answers the next call correctly."""
    with toolsift.Engine.open(memory_limit=40 << 20, instances=1) as e:
        good = e.search_raw(CHINESE_QUERY)
        for i in range(20000):
            e.search_raw({"version": "tool-search.v1", "query": f"查询日程 {i}"})
        assert e._created == 1
        inst = e._idle[0]
        inst._search = lambda *params: inst._alloc(200 << 20)
        with pytest.raises(toolsift.InternalError) as exc:
            e.search_raw(CHINESE_QUERY)
        assert exc.value.reason == "host_failure" and exc.value.code == 5
        assert "trapped" in str(exc.value)
        assert e.search_raw(CHINESE_QUERY) == good
        assert e._created == 2 and e._live == 1
    with pytest.raises(toolsift.InternalError):
        toolsift.build_snapshot("dws", REPO / "testdata" / "dws" / "catalog.tar.gz", memory_limit=64 << 20)
