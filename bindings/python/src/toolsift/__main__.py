"""python -m toolsift: the same commands and bytes as the Go ``wasmhost`` CLI.

    python -m toolsift search --query Q [--limit N] [--candidate-limit N]
                              [--product p,...] [--effect e,...] [--exclude c,...]
    python -m toolsift search --request-json -      one request object on stdin
    python -m toolsift search --batch               one request per stdin line
    python -m toolsift inspect --request-json -     one schema-inspect.v1 request on stdin
    python -m toolsift inspect --path P --expected-source-hash H1 --expected-surface-hash H2
    python -m toolsift info

Every command takes --snapshot FILE (default: the built-in DWS snapshot;
--snapshot "" is refused). Every error prints as one compact {"error":{...}}
line on stderr with exit code 3 (validation), 5 (internal) or 6 (discovery),
a missing, unreadable or bad snapshot too; in --batch mode a request's error
prints on stdout in its line's place (a blank line is answered too) and the
exit code stays 0.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from typing import Any, BinaryIO, Dict, List, Optional, Sequence, Set

from ._engine import Engine, module_version
from ._errors import ToolsiftError, host_failure, validation
from ._runtime import module_limits
#: The most --snapshot reads (as wasmhost): no snapshot format limit is
#: defined, and an instance cannot open one near its memory limit anyway.
MAX_SNAPSHOT_FILE_BYTES = 1 << 30


def _max_request_bytes() -> int:
    """The most a request may hold: the module's max_request_bytes."""
    return module_limits().max_request_bytes


def _batch_buffer() -> int:
    """The Go CLI reads --batch lines through a bufio.Reader of
    max_request_bytes+2 bytes: a line (with its "\n") that does not fit is
    answered by the host; shorter lines go to the module (which refuses what
    is over the limit after "\r\n" is trimmed, with its own message)."""
    return _max_request_bytes() + 2


def _too_large() -> ToolsiftError:
    """The module's words for a request line over the limit (toolsift_limits)."""
    return module_limits().refusal("request_too_large")


def _print_error(err: ToolsiftError) -> int:
    """The error object, compact on one line, on stderr; its exit code."""
    sys.stderr.buffer.write(err.raw + b"\n")
    sys.stderr.buffer.flush()
    return err.code


def _read_request(stdin: BinaryIO) -> bytes:
    limit = _max_request_bytes()
    data = stdin.read(limit + 1)
    if len(data) > limit:
        raise _too_large()
    return data


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _check_snapshot_file(path: str, st: os.stat_result) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise validation("read_snapshot_failed", f"read snapshot: {path} is not a regular file ({_file_kind(st.st_mode)})")
    if st.st_size > MAX_SNAPSHOT_FILE_BYTES:
        raise validation("snapshot_too_large", f"read snapshot: {path} is larger than {MAX_SNAPSHOT_FILE_BYTES} bytes")


def _os_reason(exc: OSError) -> str:
    """The OS's reason, worded as Go's syscall errors are (lower-case first
    letter: "no such file or directory")."""
    text = exc.strerror or str(exc)
    return text[:1].lower() + text[1:]


def read_snapshot_file(path: Optional[str]) -> Optional[bytes]:
    """The --snapshot file's bytes (None: the built-in snapshot), as wasmhost
    reads it: an empty path is refused (an unset variable in a script would
    otherwise serve the built-in catalog), and so is anything but a regular
    file (/dev/zero, a FIFO, a directory) or a file over 1 GiB, before it is
    read."""
    if path is None:
        return None
    if path == "":
        raise validation("invalid_snapshot_path",
                         '--snapshot "" names no file (leave the flag out to serve the built-in DWS snapshot)')
    step = "stat"
    try:
        # Stat first: opening a FIFO would block until someone writes to it.
        _check_snapshot_file(path, os.stat(path))
        step = "open"
        with open(path, "rb") as f:
            _check_snapshot_file(path, os.fstat(f.fileno()))  # the file opened may not be the one stat saw
            step = "read"
            data = f.read(MAX_SNAPSHOT_FILE_BYTES + 1)
    except OSError as exc:
        raise validation("read_snapshot_failed", f"read snapshot: {step} {path}: {_os_reason(exc)}") from None
    if len(data) > MAX_SNAPSHOT_FILE_BYTES:  # it grew while being read
        raise validation("snapshot_too_large", f"read snapshot: {path} is larger than {MAX_SNAPSHOT_FILE_BYTES} bytes")
    return data


def _open(snapshot: Optional[str]) -> Engine:
    """The engine on --snapshot; a bad snapshot raises its typed error with
    the step named first, as wasmhost prints it."""
    data = read_snapshot_file(snapshot)
    try:
        return Engine.open(data)
    except ToolsiftError as err:
        raise type(err)(err.category, err.code, err.reason, "open snapshot in the module: " + err.message) from None


def search_batch(engine: Engine, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer every input line, in order, with one output line: the compact
    response or the compact error object (the module's bytes verbatim). A
    blank line is answered too (the module's invalid_request_json for an
    empty request), so output line n answers input line n."""
    buffer = _batch_buffer()
    while True:
        chunk = stdin.readline(buffer)
        if not chunk:
            return 0
        if len(chunk) == buffer and not chunk.endswith(b"\n"):
            # The line does not fit the buffer: answer without holding it.
            while True:
                rest = stdin.readline(buffer)
                if not rest or rest.endswith(b"\n"):
                    break
            answer = _too_large().raw
        else:
            line = chunk.rstrip(b"\r\n")
            try:
                answer = engine.search_raw(line)
            except ToolsiftError as err:
                answer = err.raw
        stdout.write(answer + b"\n")
        stdout.flush()


def _list(values: Optional[List[str]]) -> List[str]:
    out: List[str] = []
    for v in values or []:
        out += v.split(",")
    return out


def _cmd_search(args: argparse.Namespace, given: Set[str]) -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    flag_names = ["query", "limit", "candidate_limit", "product", "effect", "exclude"]
    if args.batch:
        for name in ["request_json"] + flag_names:
            if name in given:
                return _print_error(validation(
                    "ambiguous_input",
                    "--batch reads whole requests from stdin and cannot be combined with --" + name.replace("_", "-")))
        request = b""
    elif args.request_json is not None and args.request_json.strip() != "":
        if args.request_json.strip() != "-":
            return _print_error(validation("invalid_transport", "--request-json only accepts - (standard input)"))
        for name in flag_names:
            if name in given:
                return _print_error(validation(
                    "ambiguous_input", "--request-json cannot be combined with --" + name.replace("_", "-")))
        try:
            request = _read_request(stdin)
        except ToolsiftError as err:
            return _print_error(err)
    else:
        # As Go's json.Marshal of wire.SearchRequest (omitempty fields).
        req: Dict[str, Any] = {"version": "tool-search.v1", "query": args.query}
        if args.limit:
            req["limit"] = args.limit
        if args.candidate_limit:
            req["candidate_limit"] = args.candidate_limit
        for key, values in (("product_ids", args.product), ("effects", args.effect), ("exclude_canonical", args.exclude)):
            if values:
                req[key] = _list(values)
        request = json.dumps(req, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    engine = _open(args.snapshot)
    with engine:
        if args.batch:
            return search_batch(engine, stdin, stdout)
        try:
            response = engine.search_raw(request, explain=args.explain)
        except ToolsiftError as err:
            return _print_error(err)
        stdout.write(response + b"\n")
        stdout.flush()
    return 0


def _cmd_inspect(args: argparse.Namespace, given: Set[str]) -> int:
    transport = (args.request_json or "").strip()
    if transport == "":
        req = {"version": "schema-inspect.v1", "canonical_path": args.path}
        if args.expected_source_hash:
            req["expected_source_hash"] = args.expected_source_hash
        if args.expected_surface_hash:
            req["expected_surface_hash"] = args.expected_surface_hash
        request = json.dumps(req, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    elif transport != "-":
        return _print_error(validation("invalid_transport", "--request-json only accepts - (standard input)"))
    else:
        for name in ("path", "expected_source_hash", "expected_surface_hash"):
            if name in given:
                return _print_error(validation(
                    "ambiguous_input", "--request-json cannot be combined with --" + name.replace("_", "-")))
        try:
            request = _read_request(sys.stdin.buffer)
        except ToolsiftError as err:
            return _print_error(err)
    engine = _open(args.snapshot)
    with engine:
        try:
            response = engine.inspect_raw(request)
        except ToolsiftError as err:
            return _print_error(err)
    sys.stdout.buffer.write(response + b"\n")
    sys.stdout.buffer.flush()
    return 0


def _cmd_info(args: argparse.Namespace, given: Set[str]) -> int:
    engine = _open(args.snapshot)
    with engine:
        info = {"engine": "wasm", **engine.info()}
    sys.stdout.write(json.dumps(info, ensure_ascii=False, indent=2) + "\n")
    return 0


class _Tracking(argparse.Action):
    """Records which flags were given (Go's flag.Visit)."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        if getattr(namespace, "given", None) is None:
            namespace.given = set()
        namespace.given.add(self.dest)
        if self.nargs == 0:
            setattr(namespace, self.dest, True)
        elif self.dest in ("product", "effect", "exclude"):
            setattr(namespace, self.dest, (getattr(namespace, self.dest) or []) + [values])
        else:
            setattr(namespace, self.dest, values)


def _cmd_version(args: argparse.Namespace, given: Set[str]) -> int:
    # The module's toolsift_version, compact: the bytes wasmhost --version
    # and the Node CLI print (release, ABI, snapshot format, profiles, formats).
    sys.stdout.write(json.dumps(module_version(), separators=(",", ":")) + "\n")
    return 0


class _Version(argparse.Action):
    """--version: answered before a command is required, as wasmhost does."""

    def __init__(self, option_strings, dest, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        try:
            code = _cmd_version(namespace, set())
        except ToolsiftError as err:
            code = _print_error(err)
        parser.exit(code)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m toolsift", description="toolsift tool search (WebAssembly module on wasmtime)")
    p.add_argument("--version", action=_Version, help="print the module's version JSON and exit")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("version", help="the module's version: release, ABI, snapshot format, profiles, catalog formats")
    v.set_defaults(func=_cmd_version)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--snapshot", default=None, help="snapshot file to serve (default: the built-in DWS snapshot)")
        sp.set_defaults(given=None)

    s = sub.add_parser("search", help="rank the catalog's tools for a query (tool-search.v1)")
    common(s)
    s.add_argument("--query", default="", action=_Tracking)
    s.add_argument("--limit", type=int, default=5, action=_Tracking, help="references to return (1-20; 0 means 5)")
    s.add_argument("--candidate-limit", type=int, default=20, action=_Tracking, help="candidates retrieved before the cut (1-100; 0 means 20)")
    s.add_argument("--product", default=None, action=_Tracking, help="only these product IDs (repeatable, comma-separated)")
    s.add_argument("--effect", default=None, action=_Tracking, help="only these effects (repeatable, comma-separated)")
    s.add_argument("--exclude", default=None, action=_Tracking, help="never these canonical paths (repeatable, comma-separated)")
    s.add_argument("--request-json", default=None, action=_Tracking, help='read one request object from stdin; the value must be "-"')
    s.add_argument("--batch", default=False, nargs=0, action=_Tracking, help="one request per stdin line, one answer per stdout line")
    s.add_argument("--explain", default=False, nargs=0, action=_Tracking, help="attach score_breakdown (for tuning, not for agents)")
    s.set_defaults(func=_cmd_search)

    i = sub.add_parser("inspect", help="show one tool's compact spec (schema-inspect.v1)")
    common(i)
    i.add_argument("--path", default="", action=_Tracking)
    i.add_argument("--expected-source-hash", default="", action=_Tracking)
    i.add_argument("--expected-surface-hash", default="", action=_Tracking)
    i.add_argument("--request-json", default=None, action=_Tracking, help='read one request object from stdin; the value must be "-"')
    i.set_defaults(func=_cmd_inspect)

    f = sub.add_parser("info", help="what the engine serves")
    common(f)
    f.set_defaults(func=_cmd_info)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    args.given = set(getattr(args, "given", None) or ())
    try:
        return int(args.func(args, args.given))
    except BrokenPipeError:
        return 1
    except ToolsiftError as err:  # a bad snapshot, a trap in the host
        return _print_error(err)
    except Exception as exc:  # noqa: BLE001 - a bug here still prints the one error line
        return _print_error(host_failure(f"{type(exc).__name__}: {exc}"))


def _entry() -> None:
    """The ``toolsift`` console script."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
