"""The wasmtime side: one compiled module per process, sandboxed instances.

Everything here follows wasm/ABI.md (ABI version 1) of the toolsift project.
"""

from __future__ import annotations

import ctypes
import hashlib
import mmap
import os
import struct
import sys
import threading
from importlib import resources
from typing import Callable, Dict, List, Optional, Tuple

import wasmtime

from ._call import Export, exporter
from ._errors import InternalError, ToolsiftError, catalog_too_large, decode_module_error, host_failure

__all__ = ["Runtime", "Instance", "Limits", "runtime", "module_limits", "wasi_config", "module_bytes", "default_snapshot"]

#: ABI version this binding speaks.
ABI_VERSION = 1

#: Default cap on each instance's linear memory (as the Go host: 512 MiB).
DEFAULT_MEMORY_LIMIT = 512 << 20

_EXPORTS: Dict[str, Tuple[List[str], List[str]]] = {
    "toolsift_alloc": (["i32"], ["i32"]),
    "toolsift_free": (["i32"], []),
    "toolsift_version": ([], ["i64"]),
    "toolsift_set_memory_limit": (["i64"], ["i64"]),
    "toolsift_open_owned": (["i32", "i32"], ["i64"]),
    "toolsift_close": (["i32"], ["i32"]),
    "toolsift_info": (["i32"], ["i64"]),
    "toolsift_search": (["i32", "i32", "i32", "i32"], ["i64"]),
    "toolsift_inspect": (["i32", "i32", "i32"], ["i64"]),
    "toolsift_build_snapshot": (["i32", "i32", "i32", "i32"], ["i64"]),
    "toolsift_limits": ([], ["i64"]),
}

# Host-side failures from wasmtime during a call: the instance is unusable.
TRAPS = (wasmtime.Trap, wasmtime.WasmtimeError)


def _read_package_file(name: str) -> bytes:
    return resources.files("toolsift").joinpath(name).read_bytes()


_module_bytes: Optional[bytes] = None
_snapshot_bytes: Optional[bytes] = None


def module_bytes() -> bytes:
    """The packaged toolsearch.wasm."""
    global _module_bytes
    if _module_bytes is None:
        _module_bytes = _read_package_file("toolsearch.wasm")
    return _module_bytes


def default_snapshot() -> bytes:
    """The packaged DWS snapshot (dws.snap)."""
    global _snapshot_bytes
    if _snapshot_bytes is None:
        _snapshot_bytes = _read_package_file("dws.snap")
    return _snapshot_bytes


def wasi_config() -> wasmtime.WasiConfig:
    """The WASI configuration of every instance: a bare ``WasiConfig``.

    No preopened directory, no environment variable, no argument, no inherited
    stdin/stdout/stderr, and (WASI preview 1 has none) no socket: the module
    cannot open a file or reach the network. wasm/ABI.md asks for exactly this.
    Do not add anything here: tests check that no other WasiConfig method is
    called on the way to an instance.
    """
    return wasmtime.WasiConfig()


def _wasmtime_version() -> str:
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # noqa: BLE001
        return "unknown"


class Limits:
    """What the module reports through ``toolsift_limits`` (wasm/ABI.md): its
    budgets (``max_request_bytes`` and the others of core/wire, in
    ``values``) and, for each request a host refuses in its place, the error
    it would answer. The host refuses a request over ``max_request_bytes``
    before copying it into an instance (a 60 MB request copied in grew the
    instance's memory for good, and under a small memory limit killed it),
    in the module's own words; nothing here repeats them."""

    def __init__(self, payload: bytes) -> None:
        import json

        try:
            doc = json.loads(payload)
            self.max_request_bytes = int(doc["max_request_bytes"])
            self._errors = {k: json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode("utf-8") for k, v in doc["errors"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise host_failure(f"module broke the ABI: toolsift_limits returned {payload[:200]!r}") from None
        if self.max_request_bytes <= 0:
            raise host_failure(f"module broke the ABI: toolsift_limits has max_request_bytes {self.max_request_bytes}")
        self.values: Dict[str, int] = {k: v for k, v in doc.items() if isinstance(v, int)}

    def refusal(self, key: str) -> ToolsiftError:
        """The module's error ``errors.<key>`` (for example
        ``search_request_too_large``), as a typed exception."""
        payload = self._errors.get(key)
        if payload is None:
            return host_failure(f"module broke the ABI: toolsift_limits has no errors.{key}")
        return decode_module_error(payload)

    def check(self, data: bytes, key: str) -> None:
        """Raise the module's refusal ``key`` if data is over the limit."""
        if len(data) > self.max_request_bytes:
            raise self.refusal(key)


#: A copy into linear memory this large is split between threads.
PARALLEL_COPY_BYTES = 16 << 20
_COPY_SLICE = 8 << 20  # the least each thread copies
_MAX_COPY_THREADS = 4


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _copy_in(dst: int, data: bytes) -> None:
    """Copy data to address dst (inside an instance's linear memory).

    Most of copying a large snapshot into fresh linear memory is the kernel's
    page faults, and threads take those side by side: 230 MiB took 98–128 ms
    on one thread and 57–71 ms on two, on a two-core machine (ctypes.memmove
    releases the GIL). The Go host's Open splits its copy the same way.
    """
    n = len(data)
    threads = 1 if n < PARALLEL_COPY_BYTES else min(_MAX_COPY_THREADS, _usable_cpus(), n // _COPY_SLICE)
    if threads < 2:
        ctypes.memmove(dst, data, n)
        return
    src = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    assert src is not None
    step = -(-n // threads)
    step = -(-step // (1 << 20)) << 20  # whole MiB
    helpers: List[threading.Thread] = []
    try:
        for off in range(step, n, step):
            size = min(step, n - off)
            t = threading.Thread(target=ctypes.memmove, args=(dst + off, src + off, size), daemon=True)
            helpers.append(t)
            try:
                t.start()
            except RuntimeError:  # no thread to be had: copy this part here
                ctypes.memmove(dst + off, src + off, size)
        ctypes.memmove(dst, src, min(step, n))
    finally:
        _wait_for(helpers)


def _wait_for(threads: List[threading.Thread]) -> None:
    """Join every started thread, even when the wait is interrupted
    (KeyboardInterrupt): a copier writes into an instance's memory, which
    must not be freed under it. The interruption is raised afterwards."""
    interrupted: Optional[BaseException] = None
    for t in threads:
        while t.ident is not None and t.is_alive():
            try:
                t.join()
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                interrupted = interrupted or exc
    if interrupted is not None:
        raise interrupted


def _to_i32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


class Runtime:
    """One wasmtime Engine and the compiled module, shared by the process.

    wasmtime's Engine, Module and InstancePre are thread-safe; Stores are not
    (each :class:`Instance` owns one and is used by one thread at a time).
    """

    def __init__(self, wasm: bytes, cache_dir: Optional[str] = None) -> None:
        config = wasmtime.Config()
        # Each instance's linear memory is reserved whole (wasm32's 4 GiB,
        # which is also wasmtime's default on 64-bit hosts) and never moves
        # when it grows, so an instance reads its base address once instead
        # of on every call.
        config.memory_reservation = 1 << 32
        config.memory_may_move = False
        self.engine = wasmtime.Engine(config)
        self.module = self._compile(wasm, cache_dir)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        self.pre = linker.instantiate_pre(self.module)
        #: The module's toolsift_limits, read by its first instance.
        self.limits: Optional[Limits] = None

    def _compile(self, wasm: bytes, cache_dir: Optional[str]) -> wasmtime.Module:
        self.cache_path: Optional[str] = None
        self.cache_hit = False
        if not cache_dir:
            return wasmtime.Module(self.engine, wasm)
        # The key covers the module bytes, the wasmtime version and the
        # entry's layout.
        key = hashlib.sha256(wasm)
        key.update(b"\0wasmtime " + _wasmtime_version().encode() + b"\0" + _CACHE_MAGIC)
        path = os.path.join(cache_dir, f"toolsearch-{key.hexdigest()[:32]}.cwasm")
        self.cache_path = path
        module = self._load_cached(path)
        if module is not None:
            self.cache_hit = True
            return module
        module = wasmtime.Module(self.engine, wasm)
        try:
            os.makedirs(cache_dir, mode=0o700, exist_ok=True)
            code = module.serialize()
            stamp = _CACHE_MAGIC + hashlib.sha256(code).hexdigest().encode() + b"\n"
            # The code first, then its digest, each renamed into place whole:
            # a reader between the two renames sees a digest that does not
            # match, and compiles.
            for name, data in ((path, code), (path + _DIGEST_SUFFIX, stamp)):
                tmp = f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, name)
        except OSError:
            pass  # an unusable cache only costs time
        return module

    def _load_cached(self, path: str) -> Optional[wasmtime.Module]:
        """The module cached at path, or None when there is none or it does
        not match its digest.

        wasmtime runs deserialised code as it is, so a truncated or flipped
        entry must be caught here (it is then compiled again and replaced).
        The code is hashed through a read-only mapping and then handed to
        wasmtime by path (Module.deserialize_file maps it in place): reading
        the 14 MB entry, hashing the copy and Module.deserialize's own copy
        of it took 30–40 ms of a new process's first open. Entries are only
        ever renamed into place whole, never written in place.
        """
        try:
            with open(path + _DIGEST_SUFFIX, "rb") as f:
                stamp = f.read(len(_CACHE_MAGIC) + 65)
            with open(path, "rb") as f:
                if os.fstat(f.fileno()).st_size == 0:
                    return None
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as code:
                    digest = hashlib.sha256(code).hexdigest().encode()
        except (OSError, ValueError):
            return None
        if stamp != _CACHE_MAGIC + digest + b"\n":
            return None
        try:
            return wasmtime.Module.deserialize_file(self.engine, path)
        except (wasmtime.WasmtimeError, ValueError):
            return None


# A cache entry is the compiled code (Module.serialize) in a .cwasm file and,
# beside it, this line followed by the code's SHA-256 in hex.
_CACHE_MAGIC = b"toolsift compiled module v2\n"
_DIGEST_SUFFIX = ".sha256"


def default_cache_dir() -> Optional[str]:
    """Where the compiled module is cached when TOOLSIFT_CACHE_DIR is unset:
    toolsift/wasmtime in the user cache directory, found as Go's
    os.UserCacheDir finds it (the Go CLI caches in toolsift/wazero there)."""
    if sys.platform == "win32":
        base = os.environ.get("LocalAppData", "")
    elif sys.platform == "darwin":
        home = os.environ.get("HOME", "")
        base = os.path.join(home, "Library", "Caches") if home else ""
    else:
        base = os.environ.get("XDG_CACHE_HOME", "")
        if not os.path.isabs(base):  # the XDG spec: a relative path is ignored
            home = os.environ.get("HOME", "")
            base = os.path.join(home, ".cache") if home else ""
    if not base:
        return None
    return os.path.join(base, "toolsift", "wasmtime")


def cache_dir() -> Optional[str]:
    """TOOLSIFT_CACHE_DIR when set (set to "" it turns the cache off), else
    :func:`default_cache_dir`. Deserialising compiled code is trusted: the
    directory must be one nobody else can write."""
    value = os.environ.get("TOOLSIFT_CACHE_DIR")
    if value is not None:
        return value or None
    return default_cache_dir()


_runtime: Optional[Runtime] = None
_runtime_lock = threading.Lock()


def runtime() -> Runtime:
    """The process-wide runtime: the module is compiled once per process."""
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                _runtime = Runtime(module_bytes(), cache_dir())
    return _runtime


def module_limits() -> Limits:
    """The limits of the process's module (``toolsift_limits``), read once."""
    rt = runtime()
    if rt.limits is None:
        Instance(rt)  # reads them; dropped at once
    assert rt.limits is not None
    return rt.limits


class Instance:
    """One instantiated module in its own wasmtime Store.

    Single-threaded: exactly one thread uses it at a time (the pool hands it
    out exclusively). After a trap (``broken``) it must be discarded.
    """

    def __init__(self, rt: Runtime, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> None:
        self.broken = False
        self._memory_limit = memory_limit
        self._memory_size = 0
        self.generation: object = None
        self.handle = 0
        store = wasmtime.Store(rt.engine)
        store.set_limits(memory_size=memory_limit)
        store.set_wasi(wasi_config())
        self.store = store
        try:
            inst = rt.pre.instantiate(store)
            exports = inst.exports(store)
            memory = exports["memory"]
            if not isinstance(memory, wasmtime.Memory):
                raise host_failure('module broke the ABI: no exported "memory"')
            self.memory = memory
            self._base = ctypes.addressof(memory.data_ptr(store).contents)  # fixed: see Runtime
            fns: Dict[str, Export] = {}
            for name, (params, results) in _EXPORTS.items():
                fn = exports[name]
                if not isinstance(fn, wasmtime.Func):
                    raise host_failure(f"module broke the ABI: missing export {name}")
                ty = fn.type(store)
                got = ([str(p) for p in ty.params], [str(r) for r in ty.results])
                if got != (params, results):
                    raise host_failure(f"module broke the ABI: export {name} has signature {got}, want {(params, results)}")
                # The signature is checked: the export may be called unchecked.
                fns[name] = exporter(store, fn, params, results[0] if results else "")
            init = exports["_initialize"]
            assert isinstance(init, wasmtime.Func)
            init(store)
            # The module keeps its heap a sixteenth below the limit it is
            # told; a large catalog needs more than the 256 MiB it assumes
            # otherwise.
            fns["toolsift_set_memory_limit"](memory_limit)
        except KeyError as exc:
            raise host_failure(f"module broke the ABI: missing export {exc}") from None
        except TRAPS as exc:
            raise host_failure(f"instantiate: {exc}") from exc
        self._alloc = fns["toolsift_alloc"]
        self._free = fns["toolsift_free"]
        self._version = fns["toolsift_version"]
        self._set_memory_limit = fns["toolsift_set_memory_limit"]
        self._open = fns["toolsift_open_owned"]
        self._close = fns["toolsift_close"]
        self._info = fns["toolsift_info"]
        self._search = fns["toolsift_search"]
        self._inspect = fns["toolsift_inspect"]
        self._build = fns["toolsift_build_snapshot"]
        # The module's limits, read by the runtime's first instance.
        if rt.limits is None:
            rt.limits = Limits(self._take(self._call(fns["toolsift_limits"])))
        self.limits: Limits = rt.limits
        # One request buffer for the life of the instance: every search and
        # Inspect request fits (the module refuses larger ones anyway), so a
        # search makes two calls (search, free the result) instead of four
        # (with the alloc and free of a fresh request buffer).
        self._scratch_bytes = self.limits.max_request_bytes
        self._scratch = self._call(self._alloc, self._scratch_bytes) & 0xFFFFFFFF
        if self._scratch == 0:
            self.broken = True
            raise host_failure(f"module broke the ABI: toolsift_alloc({self._scratch_bytes}) returned 0")

    # -- low level -------------------------------------------------------

    def _call(self, fn: Export, *params: int) -> int:
        try:
            return fn(*params)
        except TRAPS as exc:
            self.broken = True
            text = str(exc)
            if len(text) > 500:
                text = text[:500] + "…"
            raise host_failure(f"the module trapped; the instance is discarded: {text}") from exc

    def _put(self, data: bytes) -> int:
        if not data:
            return 0
        if len(data) > (1 << 31) - 1:
            raise host_failure(f"buffer of {len(data)} bytes does not fit an i32 length")
        ptr = self._call(self._alloc, len(data)) & 0xFFFFFFFF
        if ptr == 0:
            self.broken = True
            raise host_failure(f"module broke the ABI: toolsift_alloc({len(data)}) returned 0")
        if ptr + len(data) > self.memory.data_len(self.store):
            self.broken = True
            raise host_failure(f"module broke the ABI: toolsift_alloc returned {ptr:#x} outside memory")
        # One copy, straight into linear memory. Memory.write copies bytes
        # into a bytearray first: opening 100,000 tools spent 178 of its
        # 482 ms there (cProfile), two copies of the 230 MiB snapshot.
        if not isinstance(data, bytes):
            data = bytes(data)
        _copy_in(self._base + ptr, data)
        return ptr

    def _take(self, descriptor: int) -> bytes:
        descriptor &= 0xFFFFFFFFFFFFFFFF
        ptr, n = descriptor >> 32, descriptor & 0xFFFFFFFF
        if n == 0 or ptr + n > self._memory_size:
            # Linear memory never shrinks, so the size last seen is a lower
            # bound: ask wasmtime again only when a result lies beyond it.
            self._memory_size = self.memory.data_len(self.store)
            if n == 0 or ptr + n > self._memory_size:
                self.broken = True
                raise host_failure(f"module broke the ABI: result descriptor {descriptor:#x} (memory {self._memory_size} bytes)")
        status = ctypes.string_at(self._base + ptr, 1)[0]
        payload = ctypes.string_at(self._base + ptr + 1, n - 1)  # a copy
        self._call(self._free, _to_i32(ptr))
        if status == 0:
            return payload
        if status == 1:
            raise decode_module_error(payload)
        self.broken = True
        raise host_failure(f"module broke the ABI: result status byte {status}")

    def _invoke(self, fn: Export, lead: Tuple[int, ...], bufs: Tuple[bytes, ...], trail: Tuple[int, ...] = ()) -> bytes:
        ptrs: List[int] = []
        params: List[int] = list(lead)
        if len(bufs) == 1 and 0 < len(bufs[0]) <= self._scratch_bytes:
            # The module reads the request during the call only, so the
            # instance's scratch buffer can carry it. The buffer lies inside
            # memory (the module allocated it, and memory never shrinks), so
            # a plain copy to it needs none of Memory.write's checks (which
            # cost more than the copy: 2.6 µs against 0.9 µs).
            ctypes.memmove(self._base + self._scratch, bufs[0], len(bufs[0]))
            params += [_to_i32(self._scratch), len(bufs[0])]
            bufs = ()
        for b in bufs:
            p = self._put(b)
            ptrs.append(p)
            params += [_to_i32(p), len(b)]
        params += trail
        descriptor = self._call(fn, *params)
        for p in ptrs:
            if p:
                self._call(self._free, _to_i32(p))
        return self._take(descriptor)

    # -- ABI calls -------------------------------------------------------

    def open(self, snapshot: bytes, generation: object) -> None:
        # toolsift_open_owned: the module keeps the buffer the snapshot is
        # copied into (it is never freed here, and never the scratch buffer),
        # so the instance holds one copy of the snapshot, not two.
        ptr = self._put(snapshot)
        out = self._take(self._call(self._open, _to_i32(ptr), len(snapshot)))
        if len(out) != 4:
            self.broken = True
            raise host_failure(f"module broke the ABI: toolsift_open returned {len(out)} payload bytes, want 4")
        (handle,) = struct.unpack("<I", out)
        if handle == 0:
            self.broken = True
            raise host_failure("module broke the ABI: toolsift_open returned handle 0")
        self.handle, self.generation = handle, generation

    def info(self) -> bytes:
        return self._take(self._call(self._info, _to_i32(self.handle)))

    def search(self, request: bytes, flags: int = 0) -> bytes:
        n = len(request)
        if n > self._scratch_bytes:
            raise self.limits.refusal("search_request_too_large")
        if 0 < n:
            # _invoke's scratch-buffer path, without its generality: this is
            # the call a search pays for.
            ctypes.memmove(self._base + self._scratch, request, n)
            return self._take(self._call(self._search, _to_i32(self.handle), _to_i32(self._scratch), n, flags))
        return self._invoke(self._search, (_to_i32(self.handle),), (request,), (flags,))

    def inspect(self, request: bytes) -> bytes:
        self.limits.check(request, "inspect_request_too_large")
        return self._invoke(self._inspect, (_to_i32(self.handle),), (request,))

    def version(self) -> bytes:
        return self._take(self._call(self._version))

    def build_snapshot(self, fmt: bytes, catalog: bytes) -> bytes:
        try:
            return self._invoke(self._build, (), (fmt, catalog))
        except InternalError as exc:
            # The Go runtime's out-of-memory is fatal: the module traps
            # instead of returning an error. This host gives the module no
            # stderr to say so, but a build that trapped with its memory
            # within an eighth of the limit (one failed growth step) ran out
            # of it; the caller gets the typed refusal the Go host gives.
            if exc.reason == "host_failure" and self.broken and self._near_memory_limit():
                raise catalog_too_large(len(catalog), self._memory_limit) from None
            raise

    def _near_memory_limit(self) -> bool:
        try:
            size = self.memory.size(self.store) * 65536
        except TRAPS:
            return False
        return size >= self._memory_limit - self._memory_limit // 8


def one_shot(op: Callable[[Instance], bytes], memory_limit: int = DEFAULT_MEMORY_LIMIT) -> bytes:
    """Run ``op`` in a fresh instance that is dropped afterwards."""
    inst = Instance(runtime(), memory_limit)
    try:
        return op(inst)
    except ToolsiftError:
        raise
    finally:
        del inst
