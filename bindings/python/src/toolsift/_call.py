"""Calling the module's exports with as little Python as possible.

``wasmtime.Func.__call__`` asks wasmtime for the function's type, converts
every parameter through ``Val`` and builds fresh result arrays on every call:
about 11 µs for a one-parameter call, more than the module needs to answer a
query the exact guard resolves. The binding checks every export's signature
once, when the instance is created (``Instance.__init__``), which is exactly
the precondition of wasmtime's unchecked entry point
(``wasmtime_func_call_unchecked``: the caller vouches for the types). So a
call here writes its integer parameters into one preallocated array of raw
values and makes that one FFI call.

The entry point and the raw value type are reached through ``wasmtime._ffi``,
which is not public API. The wasmtime version is pinned in pyproject.toml;
if a future version moves those names, :func:`exporter` falls back to the
public ``Func.__call__`` and everything still works, only slower. Traps and
errors become the same ``wasmtime.Trap`` and ``wasmtime.WasmtimeError``
exceptions as on the public path. (The module imports WASI only, which
wasmtime implements natively, so no Python host function can raise during a
call; the public path's bookkeeping for that case is not needed.)

``TOOLSIFT_PUBLIC_CALLS=1`` forces the public path (the tests run both).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable, Sequence

import wasmtime

try:  # pragma: no branch - either import works or the public path is used
    from wasmtime import _ffi as _wasmtime_ffi

    _unchecked = _wasmtime_ffi.wasmtime_func_call_unchecked
    _ValRaw = _wasmtime_ffi.wasmtime_val_raw_t
    _TrapPtr = ctypes.POINTER(_wasmtime_ffi.wasm_trap_t)
    _trap_from_ptr = wasmtime.Trap._from_ptr
    _error_from_ptr = wasmtime.WasmtimeError._from_ptr
    FAST_CALLS = True
except (ImportError, AttributeError):  # pragma: no cover - another wasmtime
    FAST_CALLS = False

if os.environ.get("TOOLSIFT_PUBLIC_CALLS") == "1":
    FAST_CALLS = False

__all__ = ["FAST_CALLS", "exporter"]

Export = Callable[..., int]


def exporter(store: wasmtime.Store, func: wasmtime.Func, params: Sequence[str], result: str) -> Export:
    """A callable for ``func`` taking integer arguments of the types in
    ``params`` (``"i32"`` or ``"i64"``) and returning its result as an int
    (0 when ``result`` is ``""``; ``"i32"`` and ``"i64"`` results are signed,
    as wasmtime returns them). The caller must have checked that this is the
    function's signature."""
    if not FAST_CALLS:
        return _public(store, func)
    slots = max(len(params), 1)
    values = (_ValRaw * slots)()
    context = store._context  # called per call: it refuses a closed store
    funcref = ctypes.byref(func._func)
    wide = tuple(i for i, t in enumerate(params) if t == "i64")
    read: Callable[[], int]
    if result == "i32":
        read = lambda: values[0].i32  # noqa: E731
    elif result == "i64":
        read = lambda: values[0].i64  # noqa: E731
    else:
        read = lambda: 0  # noqa: E731

    def call(*args: int) -> int:
        for i, arg in enumerate(args):
            values[i].i32 = arg
        for i in wide:
            values[i].i64 = args[i]
        trap = _TrapPtr()
        error = _unchecked(context(), funcref, values, slots, ctypes.byref(trap))
        if error:
            raise _error_from_ptr(error)
        if trap:
            raise _trap_from_ptr(trap)
        return read()

    return call


def _public(store: wasmtime.Store, func: wasmtime.Func) -> Export:
    def call(*args: Any) -> int:
        out = func(store, *args)
        return 0 if out is None else int(out)  # type: ignore[call-overload]

    return call
