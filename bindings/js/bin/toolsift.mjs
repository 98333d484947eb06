#!/usr/bin/env node
// toolsift: the same commands and bytes as the Go `wasmhost` CLI (and `python -m toolsift`).
//
//   toolsift search --query Q [--limit N] [--candidate-limit N]
//                   [--product p,...] [--effect e,...] [--exclude c,...] [--explain]
//   toolsift search --request-json -      one request object on stdin
//   toolsift search --batch               one request per stdin line, one answer per stdout line
//   toolsift inspect --request-json -     one schema-inspect.v1 request on stdin
//   toolsift inspect --path P --expected-source-hash H1 --expected-surface-hash H2
//   toolsift info
//
// Every command takes --snapshot FILE (default: the built-in DWS snapshot).
// Every error prints as one compact {"error":{...}} line on stderr with exit
// code 3 (validation), 5 (internal) or 6 (discovery) — a bad request, an
// unreadable or corrupted snapshot, a trap alike; in --batch mode a request's
// error takes its line on stdout and the exit code stays 0. Only a misused
// command line (an unknown flag or command) prints the usage, with exit 2.

import { readFile, stat } from "node:fs/promises";
import { open, moduleLimits, moduleVersion, ToolsiftError } from "../index.js";
import { validation, hostFailure, makeError } from "../src/errors.js";

// The most a request may hold, and the words refusing a larger one, are the
// module's (moduleLimits: toolsift_limits). The Go CLI reads --batch lines
// through a bufio.Reader of max_request_bytes+2 bytes: a line whose content
// (without its "\n") exceeds max_request_bytes+1 bytes does not fit and is
// answered by the host; shorter lines go to the module (which refuses what is
// over the limit with its own message).

const USAGE = `usage: toolsift <command> [flags]

commands:
  search     rank the catalog's tools for a query (tool-search.v1)
  inspect    show one tool's compact spec, checked against the catalog hashes (schema-inspect.v1)
  info       what the engine serves: catalog hashes, tool count, profile, sizes
  version    the module's version: release, ABI, snapshot format, profiles, catalog formats (also --version)

search flags:
  --query Q              the task in natural language (Chinese or English)
  --limit N              references to return (1-20; 0 means 5)
  --candidate-limit N    candidates retrieved before the cut (1-100; 0 means 20)
  --product p,...        only these product IDs (repeatable)
  --effect e,...         only these effects: read, write, destructive (repeatable)
  --exclude c,...        never these canonical paths (repeatable)
  --request-json -       read one request object from stdin
  --batch                one request per stdin line, one answer per stdout line
  --explain              attach score_breakdown (for tuning, not for agents)
inspect flags:
  --path P  --expected-source-hash H  --expected-surface-hash H  |  --request-json -
every command:
  --snapshot FILE        snapshot to serve (default: the built-in DWS snapshot)
`;


class UsageError extends Error {}

const SPECS = {
  search: {
    snapshot: "string", query: "string", limit: "int", "candidate-limit": "int", product: "list", effect: "list",
    exclude: "list", "request-json": "string", batch: "bool", explain: "bool",
  },
  inspect: { snapshot: "string", path: "string", "expected-source-hash": "string", "expected-surface-hash": "string", "request-json": "string" },
  info: { snapshot: "string" },
  version: {},
};

/** Go flag-style parsing: -name or --name, "value" or "=value"; records which were given. */
function parseFlags(spec, argv) {
  const values = {};
  const given = new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") { if (i + 1 < argv.length) throw new UsageError(`unexpected argument ${JSON.stringify(argv[i + 1])}`); break; }
    if (!arg.startsWith("-") || arg === "-") throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    let name = arg.replace(/^--?/, "");
    let value;
    const eq = name.indexOf("=");
    if (eq >= 0) { value = name.slice(eq + 1); name = name.slice(0, eq); }
    if (name === "h" || name === "help") throw new UsageError("");
    const kind = spec[name];
    if (!kind) throw new UsageError(`flag provided but not defined: -${name}`);
    if (kind === "bool") {
      if (value === undefined) value = "true";
      if (!/^(1|t|T|true|TRUE|True|0|f|F|false|FALSE|False)$/.test(value)) throw new UsageError(`invalid boolean value ${JSON.stringify(value)} for -${name}`);
      values[name] = /^(1|t|T|true|TRUE|True)$/.test(value);
    } else {
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`flag needs an argument: -${name}`);
        value = argv[++i];
      }
      if (kind === "int") {
        if (!/^[+-]?\d+$/.test(value)) throw new UsageError(`invalid value ${JSON.stringify(value)} for flag -${name}: parse error`);
        values[name] = Number.parseInt(value, 10);
      } else if (kind === "list") {
        values[name] = [...(values[name] ?? []), ...value.split(",")];
      } else {
        values[name] = value;
      }
    }
    given.add(name);
  }
  return { values, given };
}

async function writeOut(stream, text) {
  if (!stream.write(text)) await new Promise((resolve) => stream.once("drain", resolve));
}

/** The error object, compact on one stderr line; returns its exit code. */
async function printError(err) {
  await writeOut(process.stderr, err.raw + "\n");
  return err.code;
}

/** Read stdin up to the module's max_request_bytes (+1 to detect larger). */
async function readRequest() {
  const limits = await moduleLimits();
  const chunks = [];
  let n = 0;
  try {
    for await (const chunk of process.stdin) {
      chunks.push(chunk);
      n += chunk.length;
      if (n > limits.maxRequestBytes) throw limits.refusal("request_too_large");
    }
  } catch (err) {
    if (err instanceof ToolsiftError) throw err;
    throw validation("read_request_failed", `cannot read the request: ${err?.message ?? err}`);
  }
  return new Uint8Array(Buffer.concat(chunks, n));
}

/** A file name for a message: as it is when it is short printable ASCII
 * (as wasmhost prints it), else quoted with every character outside
 * printable ASCII escaped and capped, so that a hostile name cannot forge or
 * flood the error line (no bidi or invisible character reaches a terminal). */
function quoteName(name) {
  if (/^[\x21-\x7e]{1,200}$/.test(name)) return name;
  const cut = name.length > 200 ? name.slice(0, 200) : name;
  const quoted = JSON.stringify(cut).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return name.length > 200 ? `${quoted}... (${name.length} characters)` : quoted;
}

/** wasmhost's cap on what --snapshot reads (no snapshot size limit is defined). */
const MAX_SNAPSHOT_FILE_BYTES = 1 << 30;

// Go's words for the errors a snapshot read meets, so that both CLIs print the same line.
const ERRNO_TEXT = {
  ENOENT: "no such file or directory", EACCES: "permission denied", ENOTDIR: "not a directory",
  ENAMETOOLONG: "file name too long", ELOOP: "too many levels of symbolic links", EISDIR: "is a directory",
};

function readFailed(syscall, file, exc) {
  const why = ERRNO_TEXT[exc?.code] ?? String(exc?.message ?? exc).replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/s, "");
  return validation("read_snapshot_failed", `read snapshot: ${syscall} ${quoteName(file)}: ${why}`);
}

function fileKind(info) {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a device";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}

function checkRegular(file, info) {
  if (!info.isFile()) return validation("read_snapshot_failed", `read snapshot: ${quoteName(file)} is not a regular file (${fileKind(info)})`);
  if (info.size > MAX_SNAPSHOT_FILE_BYTES) {
    return validation("snapshot_too_large", `read snapshot: ${quoteName(file)} is larger than ${MAX_SNAPSHOT_FILE_BYTES} bytes`);
  }
  return null;
}

/** The --snapshot file's bytes (undefined: the built-in snapshot), as
 * wasmhost reads it: "" is refused (an unset variable in a script would
 * otherwise serve the built-in catalog), and only a regular file of at most
 * 1 GiB is read (a device such as /dev/zero never ends; a FIFO blocks). */
async function readSnapshot(file) {
  if (file === undefined) return undefined;
  if (file === "") {
    throw validation("invalid_snapshot_path", '--snapshot "" names no file (leave the flag out to serve the built-in DWS snapshot)');
  }
  let info;
  try { info = await stat(file); } catch (exc) { throw readFailed("stat", file, exc); }
  const bad = checkRegular(file, info);
  if (bad) throw bad;
  let data;
  try { data = await readFile(file); } catch (exc) { throw readFailed("open", file, exc); }
  if (data.length > MAX_SNAPSHOT_FILE_BYTES) throw checkRegular(file, { isFile: () => true, size: data.length });
  return data;
}

/** An engine on the --snapshot file; a bad file or snapshot throws its typed error. */
async function openEngine(snapshot) {
  const bytes = await readSnapshot(snapshot);
  try {
    return await open(bytes);
  } catch (err) {
    if (!(err instanceof ToolsiftError)) throw err;
    // The step's name before the module's message, as wasmhost prints it.
    throw makeError(err.category, err.code, err.reason, `open snapshot in the module: ${err.detail}`);
  }
}

/** Answer every input line, in order: the compact response or the compact
 * error object (the module's bytes verbatim). A blank line is answered too
 * (the module refuses it as invalid_request_json), so that answers and input
 * lines pair up; only the empty piece after a final "\n" is no line. */
export async function searchBatch(engine, input, output) {
  const limits = await moduleLimits();
  const batchBuffer = limits.maxRequestBytes + 2;
  let parts = []; // pieces of the current line
  let size = 0; // bytes in parts
  let oversized = false; // the current line did not fit the buffer: being skipped
  const answer = async (line) => {
    let text;
    try {
      text = engine.searchRaw(line);
    } catch (err) {
      if (!(err instanceof ToolsiftError)) throw err;
      text = err.raw;
    }
    await writeOut(output, text + "\n");
  };
  const finishLine = async () => {
    if (oversized) {
      oversized = false;
      await writeOut(output, limits.refusal("request_too_large").raw + "\n");
      return;
    }
    let line = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    let end = line.length; // rstrip "\r\n" characters
    while (end > 0 && (line[end - 1] === 0x0a || line[end - 1] === 0x0d)) end--;
    line = line.subarray(0, end);
    await answer(new Uint8Array(line.buffer, line.byteOffset, line.byteLength));
  };
  const append = (piece) => {
    if (oversized || piece.length === 0) return;
    if (size + piece.length > batchBuffer - 1) { // with its "\n" the line no longer fits the buffer
      oversized = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(Buffer.from(piece)); // a copy: the stream may reuse its chunk
    size += piece.length;
  };
  for await (const chunk of input) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) { append(chunk.subarray(start)); break; }
      append(chunk.subarray(start, nl)); // the line's content, without its "\n"
      await finishLine();
      start = nl + 1;
    }
  }
  if (oversized || size > 0) await finishLine();
  return 0;
}

async function cmdSearch({ values: a, given }) {
  const flagNames = ["query", "limit", "candidate-limit", "product", "effect", "exclude"];
  let request;
  if (a.batch) {
    for (const name of ["request-json", ...flagNames]) {
      if (given.has(name)) {
        return printError(validation("ambiguous_input",
          `--batch reads whole requests from stdin and cannot be combined with --${name}`));
      }
    }
  } else if (a["request-json"] !== undefined && a["request-json"].trim() !== "") {
    if (a["request-json"].trim() !== "-") return printError(validation("invalid_transport", "--request-json only accepts - (standard input)"));
    for (const name of flagNames) {
      if (given.has(name)) return printError(validation("ambiguous_input", `--request-json cannot be combined with --${name}`));
    }
    try { request = await readRequest(); } catch (err) { if (err instanceof ToolsiftError) return printError(err); throw err; }
  } else {
    // As Go's json.Marshal of wire.SearchRequest (omitempty fields).
    const req = { version: "tool-search.v1", query: a.query ?? "" };
    const limit = a.limit ?? 5;
    const candidateLimit = a["candidate-limit"] ?? 20;
    if (limit) req.limit = limit;
    if (candidateLimit) req.candidate_limit = candidateLimit;
    for (const [key, name] of [["product_ids", "product"], ["effects", "effect"], ["exclude_canonical", "exclude"]]) {
      if (a[name]?.length) req[key] = a[name];
    }
    request = JSON.stringify(req);
  }
  const engine = await openEngine(a.snapshot);
  try {
    if (a.batch) return await searchBatch(engine, process.stdin, process.stdout);
    let response;
    try {
      response = engine.searchRaw(request, { explain: !!a.explain });
    } catch (err) {
      if (err instanceof ToolsiftError) return printError(err);
      throw err;
    }
    await writeOut(process.stdout, response + "\n");
    return 0;
  } finally {
    engine.close();
  }
}

async function cmdInspect({ values: a, given }) {
  const transport = (a["request-json"] ?? "").trim();
  let request;
  if (transport === "") {
    const req = { version: "schema-inspect.v1", canonical_path: a.path ?? "" };
    if (a["expected-source-hash"]) req.expected_source_hash = a["expected-source-hash"];
    if (a["expected-surface-hash"]) req.expected_surface_hash = a["expected-surface-hash"];
    request = JSON.stringify(req);
  } else if (transport !== "-") {
    return printError(validation("invalid_transport", "--request-json only accepts - (standard input)"));
  } else {
    for (const name of ["path", "expected-source-hash", "expected-surface-hash"]) {
      if (given.has(name)) return printError(validation("ambiguous_input", `--request-json cannot be combined with --${name}`));
    }
    try { request = await readRequest(); } catch (err) { if (err instanceof ToolsiftError) return printError(err); throw err; }
  }
  const engine = await openEngine(a.snapshot);
  let response;
  try {
    response = engine.inspectRaw(request);
  } catch (err) {
    if (err instanceof ToolsiftError) return printError(err);
    throw err;
  } finally {
    engine.close();
  }
  await writeOut(process.stdout, response + "\n");
  return 0;
}

async function cmdInfo({ values: a }) {
  const engine = await openEngine(a.snapshot);
  let info;
  try { info = { engine: "wasm", ...engine.info() }; } finally { engine.close(); }
  // As the Go CLI: the module's size and toolsift_version.
  info.module_bytes = (await readFile(new URL("../toolsearch.wasm", import.meta.url))).length;
  info.module_version = await moduleVersion();
  await writeOut(process.stdout, JSON.stringify(info, null, 2) + "\n");
  return 0;
}

// The module's toolsift_version, compact: the bytes wasmhost --version and
// the Python CLI print.
async function cmdVersion() {
  await writeOut(process.stdout, JSON.stringify(await moduleVersion()) + "\n");
  return 0;
}

const COMMANDS = { search: cmdSearch, inspect: cmdInspect, info: cmdInfo, version: cmdVersion };

export async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined) { process.stderr.write(USAGE); return 2; }
  if (["-h", "-help", "--help", "help"].includes(command)) { process.stdout.write(USAGE); return 0; }
  const name = ["-version", "--version"].includes(command) ? "version" : command;
  const run = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!run) { process.stderr.write(`toolsift: unknown command ${JSON.stringify(command)}\n\n${USAGE}`); return 2; }
  let parsed;
  try {
    parsed = parseFlags(SPECS[name], rest);
  } catch (exc) {
    if (!(exc instanceof UsageError)) throw exc;
    if (exc.message === "") { process.stdout.write(USAGE); return 0; }
    process.stderr.write(`toolsift ${command}: ${exc.message}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await run(parsed);
  } catch (err) {
    if (err instanceof ToolsiftError) return printError(err); // a bad snapshot, a trap in the host
    // Anything else is this program's fault: still one error line, exit 5.
    return printError(hostFailure(`toolsift ${command}: ${err?.message ?? err}`));
  }
}

process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(1);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
