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


def test_scope_hides_a_tool_named_exactly(engine: toolsift.Engine) -> None:
    path = "chat.send_personal_message"
    filtered = engine.search({"version": "tool-search.v1", "query": path, "exclude_canonical": [path]})
    assert filtered["exact_filtered"] == {"canonical_path": path, "reason": "excluded"}
    scoped = engine.search({"version": "tool-search.v1", "query": path,
                            "scope": {"product_ids": ["chat"], "exclude_canonical": [path]}})
    assert "exact_filtered" not in scoped
    assert scoped["candidates"]
    assert all(c["product_id"] == "chat" and c["canonical_path"] != path for c in scoped["candidates"])
    with pytest.raises(toolsift.ValidationError) as info:
        engine.search({"version": "tool-search.v1", "query": "q", "scope": {"effects": ["run"]}})
    assert info.value.reason == "invalid_effect"


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
    # A build that outgrows the limit is the typed refusal, not the raw trap.
    with pytest.raises(toolsift.ValidationError) as too_large:
        toolsift.build_snapshot("dws", REPO / "testdata" / "dws" / "catalog.tar.gz", memory_limit=64 << 20)
    assert too_large.value.reason == "catalog_too_large"


@pytest.mark.parametrize("instances", [1, 2])
def test_pool_is_fair_and_swaps_proceed_under_load(dws_snapshot: bytes, instances: int) -> None:
    """8 threads search as fast as they can for 2 s while another thread swaps
    the snapshot every 0.1 s. Waiters are served in arrival order, so every
    thread completes many searches and no call waits long; a swap opens its
    new instance while the old calls finish, so it never waits for the load
    to stop. (Before: two threads did thousands of searches, six did one
    each and waited the whole 2 s, and the one swap took 2 s.)"""
    import time

    with toolsift.Engine.open(dws_snapshot, instances=instances) as e:
        want = e.search_raw(CHINESE_QUERY)
        until = time.monotonic() + 2.0
        counts = [0] * 8
        longest = [0.0] * 8
        swaps: list = []
        errors: list = []

        def searcher(g: int) -> None:
            try:
                while time.monotonic() < until:
                    t = time.monotonic()
                    got = e.search_raw(CHINESE_QUERY)
                    longest[g] = max(longest[g], time.monotonic() - t)
                    counts[g] += 1
                    if got != want:
                        errors.append(f"thread {g}: wrong answer")
                        return
            except BaseException as exc:  # noqa: BLE001
                errors.append(repr(exc))

        def swapper() -> None:
            try:
                while time.monotonic() < until - 0.3:
                    t = time.monotonic()
                    e.swap(dws_snapshot)
                    swaps.append(time.monotonic() - t)
                    time.sleep(0.1)
            except BaseException as exc:  # noqa: BLE001
                errors.append(repr(exc))

        threads = [threading.Thread(target=searcher, args=(g,)) for g in range(8)]
        threads.append(threading.Thread(target=swapper))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert min(counts) >= 20, counts
        assert max(longest) < 1.0, longest
        assert len(swaps) >= 5 and max(swaps) < 1.0, swaps
        assert e._live <= instances and not e._waiters
        assert e.search_raw(CHINESE_QUERY) == want


def test_close_wakes_waiters(dws_snapshot: bytes) -> None:
    """A caller waiting for the one instance when the engine closes gets
    EngineClosedError instead of waiting for ever."""
    e = toolsift.Engine.open(dws_snapshot, instances=1)
    inst = e._acquire()
    got: list = []

    def waiter() -> None:
        try:
            e.search_raw(CHINESE_QUERY)
            got.append("answered")
        except toolsift.EngineClosedError:
            got.append("closed")

    t = threading.Thread(target=waiter)
    t.start()
    while not e._waiters:
        t.join(0.01)
    e.close()
    t.join(5)
    e._release(inst)
    assert got == ["closed"] and e._live == 0


def test_oversized_request_is_refused_before_the_instance() -> None:
    """A request over the module's 64 KiB limit is refused by the host with
    the module's own error bytes, before anything is copied in: a 60 MB
    request under a 32 MiB memory limit gets request_too_large (it used to
    kill the instance with host_failure), the instance's memory does not
    grow and it serves the next search."""
    big = '{"version":"tool-search.v1","query":"' + "a" * (60 << 20) + '"}'
    with toolsift.Engine.open(instances=1, memory_limit=32 << 20) as e:
        good = e.search_raw(CHINESE_QUERY)
        inst = e._idle[0]
        before = inst.memory.data_len(inst.store)
        for request, call in ((big, e.search_raw), (big.replace("tool-search", "schema-inspect"), e.inspect_raw)):
            for form in (request, request.encode()):
                with pytest.raises(toolsift.ValidationError) as exc:
                    call(form)
                assert exc.value.reason == "request_too_large"
        assert inst.memory.data_len(inst.store) == before
        assert e._idle == [inst] and not inst.broken and e._created == 1
        assert e.search_raw(CHINESE_QUERY) == good

        # The host's words are the module's: ask the module itself (its
        # export, past the host's check) about a request just over the limit.
        just_over = ('{"version":"tool-search.v1","query":"' + "b" * (64 << 10) + '"}').encode()
        from_module = None
        try:
            inst._invoke(inst._search, (inst.handle,), (just_over,), (0,))
        except toolsift.ValidationError as err:
            from_module = err.raw
        with pytest.raises(toolsift.ValidationError) as exc:
            e.search_raw(just_over)
        assert from_module is not None and exc.value.raw == from_module
        inspect_over = just_over.replace(b"tool-search", b"schema-inspect")
        from_module = None
        try:
            inst._invoke(inst._inspect, (inst.handle,), (inspect_over,))
        except toolsift.ValidationError as err:
            from_module = err.raw
        with pytest.raises(toolsift.ValidationError) as exc:
            e.inspect_raw(inspect_over)
        assert from_module is not None and exc.value.raw == from_module
        assert b"schema-inspect.v1 request" in from_module


def test_module_limits_are_the_modules() -> None:
    """The host's limits and refusals come from the module (toolsift_limits),
    not from constants here: core/wire's budgets, and for each refusal the
    module's own error object."""
    from toolsift._runtime import module_limits

    limits = module_limits()
    assert limits.max_request_bytes == 64 << 10
    assert limits.values["max_limit"] == 20 and limits.values["max_candidate_limit"] == 100
    for key, what in (("search_request_too_large", "tool-search.v1"), ("inspect_request_too_large", "schema-inspect.v1"),
                      ("provider_request_too_large", "provider"), ("request_too_large", "the")):
        err = limits.refusal(key)
        assert isinstance(err, toolsift.ValidationError) and err.reason == "request_too_large"
        assert err.raw == ('{"error":{"category":"validation","code":3,"message":"%s request is larger than 65536 bytes",'
                           '"reason":"request_too_large"}}' % what).encode()
    assert limits.refusal("no_such_key").reason == "host_failure"
    limits.check(b"x" * limits.max_request_bytes, "search_request_too_large")  # exactly the limit passes
    with pytest.raises(toolsift.ValidationError):
        limits.check(b"x" * (limits.max_request_bytes + 1), "search_request_too_large")
