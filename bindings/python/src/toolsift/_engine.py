"""The Engine: a thread-safe pool of module instances serving one snapshot."""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from typing import Any, Deque, Dict, List, Optional, Union

from ._errors import EngineClosedError, ToolsiftError, validation
from ._runtime import (
    DEFAULT_MEMORY_LIMIT,
    Instance,
    default_snapshot,
    module_limits,
    one_shot,
    runtime,
)

__all__ = ["Engine", "build_snapshot", "module_version", "Request", "SnapshotSource"]

Request = Union[Dict[str, Any], str, bytes, bytearray, memoryview]
SnapshotSource = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


# One encoder for every request: json.dumps with options builds a new one per
# call, which costs a third of serialising a small request.
_REQUEST_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def encode_request(request: Request, what: str = "search") -> bytes:
    """Request bytes: a dict is serialised compactly (UTF-8, no ASCII escaping);
    str is encoded as UTF-8; bytes-like are passed as they are. Over the
    module's limit (toolsift_limits' max_request_bytes, 64 KiB) it is refused
    here, before an instance is taken, with the module's own error
    (``what``: "search" or "inspect")."""
    if isinstance(request, dict):
        data = _REQUEST_ENCODER.encode(request).encode("utf-8")
    elif isinstance(request, str):
        data = request.encode("utf-8")
    elif isinstance(request, (bytes, bytearray, memoryview)):
        data = bytes(request)
    else:
        raise TypeError(f"request must be a dict, str or bytes, not {type(request).__name__}")
    module_limits().check(data, what + "_request_too_large")
    return data


def _snapshot_bytes(snapshot: Optional[SnapshotSource]) -> bytes:
    if snapshot is None:
        return default_snapshot()
    if isinstance(snapshot, (bytes, bytearray, memoryview)):
        return bytes(snapshot)
    if isinstance(snapshot, (str, os.PathLike)):
        with open(snapshot, "rb") as f:
            return f.read()
    raise TypeError(f"snapshot must be bytes or a path, not {type(snapshot).__name__}")


class _Generation:
    """One snapshot being served; instances opened on it carry it."""

    __slots__ = ("snapshot",)

    def __init__(self, snapshot: bytes) -> None:
        self.snapshot = snapshot


class _Waiter:
    """A caller waiting for an instance. Waiters are served in arrival order:
    whoever frees an instance hands it (or the free slot) to the first waiter
    directly, so a thread that gives an instance back cannot take it again
    ahead of the threads already waiting (with a plain condition variable it
    did, and two threads kept the pool while six waited for seconds)."""

    __slots__ = ("event", "inst", "gen", "closed")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.inst: Optional[Instance] = None  # an instance handed over
        self.gen: Optional[_Generation] = None  # or a slot for a new one, on this snapshot
        self.closed = False  # or the engine closed


class Engine:
    """Search and inspect one snapshot through the toolsift WebAssembly module.

    Thread safety: one Engine may be called from several threads at once. A
    wasm instance is single-threaded (the Go runtime inside it has one thread
    and its state lives in linear memory) and a wasmtime ``Store`` must not be
    used from two threads at once, so the Engine keeps a pool of up to
    ``instances`` instances, each a Store + Instance with the snapshot opened
    in it. Every call takes one idle instance exclusively, runs outside the
    lock, and gives it back; when all are busy, callers wait in a FIFO queue
    and each freed instance goes to the longest waiter. wasmtime releases the
    GIL while wasm runs, so calls on different instances run in parallel.
    Instances are created lazily up to the bound; the first is created by
    :meth:`open` (which thus validates the snapshot). An instance that traps
    is discarded and a new one is created on next use.

    Each instance holds its own copy of the opened snapshot (about 20 MiB of
    linear memory for DWS) and is capped at ``memory_limit`` bytes of linear
    memory. During a :meth:`swap` under load there can be one instance more
    than the bound for as long as the calls in flight on the old snapshot
    take.
    """

    _max: int
    _memory_limit: int
    _lock: threading.Lock
    _swap_lock: threading.Lock
    _waiters: Deque[_Waiter]
    _idle: List[Instance]
    _live: int
    _created: int
    _closed: bool
    _gen: _Generation

    def __init__(self, *_: object, **__: object) -> None:
        raise TypeError("use Engine.open(snapshot)")

    @classmethod
    def open(
        cls,
        snapshot: Optional[SnapshotSource] = None,
        *,
        instances: int = 1,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
    ) -> "Engine":
        """Open snapshot bytes (or a snapshot file); ``None`` serves the
        built-in DWS snapshot. A bad snapshot raises :class:`ValidationError`
        (reason ``invalid_snapshot`` or ``unsupported_snapshot_version``).
        ``instances`` bounds how many calls run in parallel."""
        if instances < 1:
            raise ValueError("instances must be at least 1")
        self = object.__new__(cls)
        self._max = instances
        self._memory_limit = memory_limit
        self._lock = threading.Lock()
        self._swap_lock = threading.Lock()
        self._waiters = deque()
        self._idle = []
        self._live = 0
        self._created = 0
        self._closed = False
        self._gen = _Generation(_snapshot_bytes(snapshot))
        inst = self._new_instance(self._gen)
        self._live = 1
        self._idle.append(inst)
        return self

    # -- pool ------------------------------------------------------------
    # Invariant (under _lock): while anyone waits, no instance is idle and
    # no slot is free (_live >= _max).

    def _new_instance(self, gen: _Generation) -> Instance:
        inst = Instance(runtime(), self._memory_limit)
        with self._lock:
            self._created += 1
        inst.open(gen.snapshot, gen)
        return inst

    def _give_locked(self, inst: Instance) -> None:
        """A usable instance: to the first waiter, else to the idle list."""
        if self._waiters:
            w = self._waiters.popleft()
            w.inst = inst
            w.event.set()
        else:
            self._idle.append(inst)

    def _grant_slots_locked(self) -> None:
        """Free slots (fewer than _max alive): to waiters, who create an
        instance on the current snapshot."""
        while self._waiters and self._live < self._max:
            w = self._waiters.popleft()
            self._live += 1
            w.gen = self._gen
            w.event.set()

    def _drop_locked(self) -> None:
        """One instance (or reserved slot) less."""
        self._live -= 1
        self._grant_slots_locked()

    def _acquire(self) -> Instance:
        w: Optional[_Waiter] = None
        with self._lock:
            if self._closed:
                raise EngineClosedError("toolsift: engine closed")
            if self._waiters or (not self._idle and self._live >= self._max):
                w = _Waiter()
                self._waiters.append(w)
            elif self._idle:
                return self._idle.pop()
            else:
                self._live += 1
                gen = self._gen
        if w is not None:
            try:
                w.event.wait()
            except BaseException:
                self._abandon(w)
                raise
            if w.closed:
                raise EngineClosedError("toolsift: engine closed")
            if w.inst is not None:
                return w.inst
            assert w.gen is not None
            gen = w.gen
        try:
            return self._new_instance(gen)
        except BaseException:
            with self._lock:
                self._drop_locked()
            raise

    def _abandon(self, w: _Waiter) -> None:
        """A waiter interrupted (KeyboardInterrupt): leave the queue, or pass
        on what it was handed meanwhile."""
        with self._lock:
            if w in self._waiters:
                self._waiters.remove(w)
                return
        if w.inst is not None:
            self._release(w.inst)
        elif w.gen is not None:
            with self._lock:
                self._drop_locked()

    def _release(self, inst: Instance) -> None:
        with self._lock:
            if inst.broken or self._closed or inst.generation is not self._gen:
                self._drop_locked()  # discard: its Store goes with the last reference
            else:
                self._give_locked(inst)

    def _with_instance(self, op: Any) -> bytes:
        inst = self._acquire()
        try:
            return op(inst)  # type: ignore[no-any-return]
        finally:
            self._release(inst)

    # -- calls -----------------------------------------------------------

    def search_raw(self, request: Request, *, explain: bool = False) -> bytes:
        """The exact compact tool-search.v1 response bytes (no newline):
        the module's UTF-8 JSON, unparsed. (The JS binding's ``searchRaw``
        returns the same answer decoded to a string.)

        ``explain=True`` sets flags bit 0 (``score_breakdown`` on each
        candidate; for tuning, never for agents). Errors raise
        :class:`ToolsiftError` subclasses."""
        data = encode_request(request)
        flags = 1 if explain else 0
        return self._with_instance(lambda inst: inst.search(data, flags))

    def search(self, request: Request, *, explain: bool = False) -> Dict[str, Any]:
        """The parsed tool-search.v1 response."""
        return json.loads(self.search_raw(request, explain=explain))  # type: ignore[no-any-return]

    def inspect_raw(self, request: Request) -> bytes:
        """The exact pretty schema-inspect.v1 response bytes (no newline)."""
        data = encode_request(request, "inspect")
        return self._with_instance(lambda inst: inst.inspect(data))

    def inspect(self, request: Request) -> Dict[str, Any]:
        """The parsed schema-inspect.v1 response."""
        return json.loads(self.inspect_raw(request))  # type: ignore[no-any-return]

    def info(self) -> Dict[str, Any]:
        """What the engine serves: ``profile``, ``format``, ``source_hash``,
        ``surface_hash``, ``tool_count``, ``product_count``, ``snapshot_bytes``."""
        return json.loads(self._with_instance(lambda inst: inst.info()))  # type: ignore[no-any-return]

    def swap(self, snapshot: SnapshotSource) -> None:
        """Serve another snapshot. It is opened in a fresh instance first; if
        it is refused (:class:`ValidationError`) nothing changes and the old
        snapshot keeps serving. Calls in flight finish on the old snapshot
        (their instances are dropped when they finish); later calls see the
        new one. A swap does not wait for a free instance: under load it
        completes in about the time opening the snapshot takes. Swaps run
        one at a time, in the order they are called."""
        data = _snapshot_bytes(snapshot)
        with self._swap_lock:
            if self._closed:
                raise EngineClosedError("toolsift: engine closed")
            gen = _Generation(data)
            new = self._new_instance(gen)  # outside the bound: calls go on meanwhile
            with self._lock:
                if self._closed:
                    raise EngineClosedError("toolsift: engine closed")
                retired = self._idle
                self._idle = []
                self._live += 1 - len(retired)
                self._gen = gen
                self._give_locked(new)
                self._grant_slots_locked()
            del retired

    def close(self) -> None:
        """Drop every instance. Later calls raise :class:`EngineClosedError`,
        and so do calls waiting for an instance; calls in flight finish.
        Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._live -= len(self._idle)
            self._idle = []
            while self._waiters:
                w = self._waiters.popleft()
                w.closed = True
                w.event.set()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def max_instances(self) -> int:
        return self._max

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{self._live}/{self._max} instances"
        return f"<toolsift.Engine {state}>"


CatalogSource = Union[bytes, bytearray, memoryview, str, Dict[str, Any], "os.PathLike[str]"]


def build_snapshot(format: str, catalog: CatalogSource, *, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> bytes:
    """Build snapshot bytes from a catalog in a fresh instance
    (``toolsift_build_snapshot``), byte-identical to ``wasmhost snapshot build``.

    ``format`` names the importer: ``"dws"`` (the DWS dump: a gzip'd tar of
    ``catalog.json`` and ``tools/<product>.json``, or the JSON bundle
    ``{"catalog.json":{...},"tools/chat.json":{...},...}``), ``"toolsift"``
    (toolsift-catalog.v1 JSON), ``"mcp"`` (a ``tools/list`` result, or
    ``{"servers": {...}}``), ``"openai"`` or ``"anthropic"`` (tool definition
    lists), ``"beir"`` (a benchmark's corpus.jsonl) or ``"openapi"`` (an
    OpenAPI 3.0/3.1 or Swagger 2.0 description, JSON or YAML); see
    docs/CATALOGS.md.
    ``catalog`` is the input as bytes, a str, a dict (serialised compactly),
    or a path (os.PathLike) to a file. Takes seconds and a linear memory near
    300 MiB for DWS. A refused catalog raises :class:`ValidationError`
    (``unknown_format`` or ``invalid_catalog``, with a message naming the
    entry and the field)."""
    if isinstance(catalog, dict):
        data = json.dumps(catalog, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    elif isinstance(catalog, str):
        data = catalog.encode("utf-8")
    elif isinstance(catalog, os.PathLike):
        with open(catalog, "rb") as f:
            data = f.read()
    elif isinstance(catalog, (bytes, bytearray, memoryview)):
        data = bytes(catalog)
    else:
        raise TypeError(f"catalog must be bytes, str, dict or a path, not {type(catalog).__name__}")
    fmt = format.encode("ascii")
    return one_shot(lambda inst: inst.build_snapshot(fmt, data), memory_limit)


_version: Optional[Dict[str, Any]] = None


def module_version() -> Dict[str, Any]:
    """``toolsift_version``: ``{"abi","module","snapshot_format","profiles","formats"}``."""
    global _version
    if _version is None:
        _version = json.loads(one_shot(lambda inst: inst.version()))
    return dict(_version)
