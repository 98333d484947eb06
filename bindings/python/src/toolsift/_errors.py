"""Typed errors answered by the toolsift module."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

__all__ = [
    "ToolsiftError",
    "ValidationError",
    "DiscoveryError",
    "InternalError",
    "EngineClosedError",
]


class ToolsiftError(Exception):
    """A typed failure from the module (or from the host, for a trap).

    ``category`` is ``"validation"`` (code 3, the caller's fault),
    ``"discovery"`` (code 6, the catalog is not what the caller expected) or
    ``"internal"`` (code 5); ``reason`` is the stable machine-readable code
    (for example ``"invalid_limit"``, ``"catalog_changed"``,
    ``"invalid_snapshot"``; ``""`` when the module gave none); ``message`` is
    for people. ``raw`` is the compact error object
    ``{"error":{"category","code","message","reason"}}`` exactly as the module
    returned it (or as the host encoded it, in the module's field order).
    """

    category: str
    code: int
    reason: str
    message: str
    raw: bytes

    def __init__(
        self,
        category: str,
        code: int,
        reason: str,
        message: str,
        raw: Optional[bytes] = None,
    ) -> None:
        self.category = category
        self.code = code
        self.reason = reason
        self.message = message
        self.raw = raw if raw is not None else encode_error(category, code, message, reason)
        super().__init__(str(self))

    def __str__(self) -> str:
        if not self.reason:
            return f"{self.category}: {self.message}"
        return f"{self.category} ({self.reason}): {self.message}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(category={self.category!r}, code={self.code!r}, "
            f"reason={self.reason!r}, message={self.message!r})"
        )

    def to_dict(self) -> Dict[str, Any]:
        """The error object as a dict: ``{"error": {...}}``."""
        inner: Dict[str, Any] = {"category": self.category, "code": self.code, "message": self.message}
        if self.reason:
            inner["reason"] = self.reason
        return {"error": inner}


class ValidationError(ToolsiftError):
    """Category ``validation`` (code 3): a bad request, snapshot or catalog."""


class DiscoveryError(ToolsiftError):
    """Category ``discovery`` (code 6): the catalog is not what the caller expected."""


class InternalError(ToolsiftError):
    """Category ``internal`` (code 5): a bug in the module, or a trap in the host
    (reason ``host_failure``; the instance that trapped is discarded)."""


class EngineClosedError(RuntimeError):
    """A call on an :class:`Engine` after :meth:`Engine.close`."""


_CLASSES = {
    "validation": ValidationError,
    "discovery": DiscoveryError,
    "internal": InternalError,
}


def _go_string(s: str) -> str:
    # Go's jsonw.AppendString with escapeHTML: like encoding/json.
    out = json.dumps(s, ensure_ascii=False)
    return (
        out.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def encode_error(category: str, code: int, message: str, reason: str) -> bytes:
    """The compact error object in the module's field order (reason omitted when empty)."""
    parts = [
        '{"error":{"category":', _go_string(category),
        ',"code":', str(int(code)),
        ',"message":', _go_string(message),
    ]
    if reason:
        parts += [',"reason":', _go_string(reason)]
    parts.append("}}")
    return "".join(parts).encode("utf-8")


def make_error(category: str, code: int, reason: str, message: str, raw: Optional[bytes] = None) -> ToolsiftError:
    cls = _CLASSES.get(category, ToolsiftError)
    return cls(category, code, reason, message, raw)


def decode_module_error(payload: bytes) -> ToolsiftError:
    """Parse a status-1 payload into its typed exception (keeping the bytes)."""
    try:
        doc = json.loads(payload)
        inner = doc["error"]
        category = inner["category"]
        if not isinstance(category, str) or not category:
            raise ValueError("no category")
        return make_error(
            category,
            int(inner.get("code", 0)),
            str(inner.get("reason", "") or ""),
            str(inner.get("message", "")),
            bytes(payload),
        )
    except (ValueError, KeyError, TypeError) as exc:
        clipped = bytes(payload[:200]).decode("utf-8", "replace")
        return InternalError(
            "internal", 5, "abi_violation",
            f"module broke the ABI: error result is not {{\"error\":{{...}}}}: {clipped!r} ({exc})",
        )


def validation(reason: str, message: str) -> ValidationError:
    return ValidationError("validation", 3, reason, message)


def host_failure(message: str) -> InternalError:
    return InternalError("internal", 5, "host_failure", message)


def catalog_too_large(catalog_bytes: int, memory_limit: int) -> ValidationError:
    """A snapshot build that outgrew the instance's memory limit (worded as
    the Go host's)."""
    return validation(
        "catalog_too_large",
        f"building a snapshot of this catalog ({catalog_bytes} bytes) needs more than the module's memory limit of "
        f"{memory_limit >> 20} MiB: raise the limit (build_snapshot(..., memory_limit=)) or build natively (wasmhost snapshot build)",
    )
