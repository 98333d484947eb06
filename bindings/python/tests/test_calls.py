"""The two ways the binding calls the module (toolsift/_call.py): wasmtime's
unchecked entry point, used with the pinned wasmtime, and the public
``Func.__call__``, kept as the fallback. Both must give the same bytes."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from typing import Any, List

import toolsift
from toolsift import _call

from conftest import CHINESE_QUERY, REPO

REQUESTS: List[Any] = [
    CHINESE_QUERY,
    {"version": "tool-search.v1", "query": "chat.query_msg_read_status"},
    {"version": "tool-search.v1", "subqueries": ["以当前用户身份给群聊发送本地文件", "查询指定消息的已读状态和人员"]},
    {"version": "tool-search.v1", "query": "日程", "product_ids": ["chat"], "effects": ["read"], "limit": 3},
    {"version": "tool-search.v2", "query": "x"},  # a typed error
]

# Prints, for every request, the raw answer or the error's reason, as JSON.
SCRIPT = """
import json, sys, toolsift
from toolsift import _call
out = {"fast": _call.FAST_CALLS, "answers": []}
with toolsift.Engine.open(instances=1) as e:
    for request in json.loads(sys.stdin.read()):
        try:
            out["answers"].append(e.search_raw(request).decode("utf-8"))
        except toolsift.ToolsiftError as err:
            out["answers"].append("error " + err.category + "/" + err.reason)
    out["answers"].append(json.dumps(e.info(), sort_keys=True))
    # An i64 parameter above 2**32: the module's heap ceiling, set from the
    # instance's memory limit (512 MiB), then from a limit it caps at 4 GiB.
    inst = e._idle[0]
    out["ceilings"] = [inst._call(inst._set_memory_limit, 0), inst._call(inst._set_memory_limit, 1 << 40)]
print(json.dumps(out))
"""


def _answers(public: bool) -> Any:
    env = dict(os.environ)
    env.pop("TOOLSIFT_PUBLIC_CALLS", None)
    if public:
        env["TOOLSIFT_PUBLIC_CALLS"] = "1"
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(REQUESTS), capture_output=True,
                          text=True, env=env, check=True, timeout=300)
    return json.loads(done.stdout)


def test_pinned_wasmtime_takes_the_fast_path() -> None:
    # A wasmtime that moved the private names would silently fall back: this
    # says so instead (the fallback still works, only slower).
    if os.environ.get("TOOLSIFT_PUBLIC_CALLS") != "1":
        assert _call.FAST_CALLS


def test_fast_and_public_calls_give_the_same_bytes() -> None:
    fast, public = _answers(public=False), _answers(public=True)
    assert fast["fast"] is True and public["fast"] is False
    assert fast["answers"] == public["answers"]
    assert sum(a.startswith("error validation/") for a in fast["answers"]) == 1
    assert len(fast["answers"]) == len(REQUESTS) + 1
    assert fast["ceilings"] == public["ceilings"] == [480 << 20, 15 << 28]


def test_results_keep_their_sign_and_width() -> None:
    # toolsift_alloc returns an i32 address and searches an i64 descriptor
    # whose high half is that address: both must survive the raw values.
    with toolsift.Engine.open(instances=1) as e:
        assert json.loads(e.search_raw(CHINESE_QUERY))["candidates"]
        inst = e._idle[0]
        ptr = inst._call(inst._alloc, 100)
        assert ptr != 0 and inst.memory.data_len(inst.store) > (ptr & 0xFFFFFFFF)
        inst._call(inst._free, ptr)


def test_linear_memory_never_moves() -> None:
    # The binding reads an instance's base address once (Runtime configures
    # wasmtime so that memory never moves): after the memory has grown, the
    # address is the same and the answers are right.
    with toolsift.Engine.open(instances=1) as e:
        want = e.search_raw(CHINESE_QUERY)
        inst = e._idle[0]
        size = inst.memory.data_len(inst.store)
        snap = inst.build_snapshot(b"dws", (REPO / "testdata" / "dws" / "catalog.tar.gz").read_bytes())
        assert len(snap) > 1 << 20
        assert inst.memory.data_len(inst.store) > 4 * size, "building a snapshot grows memory"
        assert ctypes.addressof(inst.memory.data_ptr(inst.store).contents) == inst._base
        assert e.search_raw(CHINESE_QUERY) == want


def test_put_refuses_an_allocation_outside_memory_and_writes_nothing() -> None:
    """The snapshot and large requests are copied straight into linear memory
    (one copy, not Memory.write's two): a pointer from the module that would
    put the bytes past its memory is refused and breaks the instance."""
    from toolsift import _runtime

    inst = _runtime.Instance(_runtime.runtime())
    size = inst.memory.data_len(inst.store)
    data = b"x" * 4096
    tail = inst.memory.read(inst.store, size - 100, size)
    inst._alloc = lambda n: size - 100  # a module that broke the ABI
    try:
        inst._put(data)
    except toolsift.ToolsiftError as err:
        assert "outside memory" in str(err)
    else:
        raise AssertionError("an allocation outside memory was accepted")
    assert inst.broken
    assert inst.memory.read(inst.store, size - 100, size) == tail, "bytes were written before the check"


def test_large_put_split_between_threads_is_the_bytes(monkeypatch) -> None:
    """A buffer of PARALLEL_COPY_BYTES or more is copied into linear memory
    by up to four threads at once: what lands is exactly the buffer, for
    sizes that do not split evenly, whatever the machine's core count."""
    import random

    from toolsift import _runtime

    monkeypatch.setattr(_runtime, "_usable_cpus", lambda: 4)
    rng = random.Random(19)
    inst = _runtime.Instance(_runtime.runtime())
    for size in (_runtime.PARALLEL_COPY_BYTES + 12345, 3 * _runtime._COPY_SLICE + 1, 40 << 20):
        data = rng.randbytes(size)
        ptr = inst._put(data)
        assert inst.memory.read(inst.store, ptr, ptr + size) == data, f"{size} bytes"
        inst._call(inst._free, _runtime._to_i32(ptr))


def test_large_put_without_threads_to_spare_is_still_the_bytes(monkeypatch) -> None:
    """When a copier thread cannot be started, its part is copied by the
    calling thread: the buffer still lands whole."""
    import random
    import threading

    from toolsift import _runtime

    monkeypatch.setattr(_runtime, "_usable_cpus", lambda: 4)
    started = []
    real_start = threading.Thread.start

    def start(self) -> None:  # type: ignore[no-untyped-def]
        if len(started) % 2 == 1:
            started.append(False)
            raise RuntimeError("can't start new thread")
        started.append(True)
        real_start(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    data = random.Random(7).randbytes(40 << 20)
    inst = _runtime.Instance(_runtime.runtime())
    ptr = inst._put(data)
    assert started.count(False) >= 1 and started.count(True) >= 1
    assert inst.memory.read(inst.store, ptr, ptr + len(data)) == data


def test_wait_for_joins_every_copier_before_an_interruption_is_raised() -> None:
    """An interrupted wait (KeyboardInterrupt in join) still waits for every
    copier, then raises the interruption."""
    import threading

    import pytest

    from toolsift import _runtime

    release = threading.Event()
    done = []

    def copier() -> None:
        release.wait(5)
        done.append(1)

    class Interrupted(threading.Thread):
        calls = 0

        def join(self, timeout=None) -> None:  # type: ignore[no-untyped-def]
            Interrupted.calls += 1
            if Interrupted.calls == 1:
                release.set()
                raise KeyboardInterrupt
            super().join(timeout)

    threads = [Interrupted(target=copier), threading.Thread(target=copier)]
    for t in threads:
        t.start()
    with pytest.raises(KeyboardInterrupt):
        _runtime._wait_for(threads)
    assert done == [1, 1] and not any(t.is_alive() for t in threads)
