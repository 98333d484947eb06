// toolsift: tool search for AI agents, through the toolsift WebAssembly module.
//
//   import { open } from "toolsift";
//   const engine = await open();               // Node: the bundled DWS snapshot
//   engine.search({ version: "tool-search.v1", query: "给群里发文件" });
//
// The module (toolsearch.wasm, WASI preview 1 reactor) runs through
// @bjorn3/browser_wasi_shim with no file system, environment, arguments or
// network, in Node and in browsers alike. See wasm/ABI.md in the project.

import {
  Instance,
  compiledModule,
  knownLimits,
  packagedSnapshot,
  toBytes,
  encodeText,
  decodeText,
} from "./src/runtime.js";
import { EngineClosedError, validation } from "./src/errors.js";
import { importTools, providerRaw, ops as providerOps } from "./src/provider.js";
import { lintRequest } from "./src/lint.js";

export { ToolSession } from "./src/provider.js";
export { aiSDKToolSearch } from "./src/provider-aisdk.js";
export { agentsToolSearch, agentsToolDefinitions } from "./src/provider-agents.js";

export {
  ToolsiftError,
  ValidationError,
  DiscoveryError,
  InternalError,
  EngineClosedError,
} from "./src/errors.js";

export const VERSION = "0.1.0";

/** Request bytes: an object is serialised with JSON.stringify (UTF-8);
 * a string is encoded as UTF-8; bytes are passed as they are. A request over
 * the module's max_request_bytes (its toolsift_limits) is refused here,
 * before the module sees it, with the module's own words (`key` names them:
 * "search_request_too_large" or "inspect_request_too_large"), so that the
 * answer is the same bytes as every other host's and the instance is
 * untouched. */
function encodeRequest(request, limits, key) {
  let data;
  if (typeof request === "string") {
    // Every UTF-16 code unit takes at least one UTF-8 byte: a string this
    // long is refused without encoding it.
    limits.check(request.length, key);
    data = encodeText(request);
  } else if (request instanceof Uint8Array || request instanceof ArrayBuffer || ArrayBuffer.isView(request)) {
    data = toBytes(request, "request");
  } else if (request !== null && typeof request === "object") {
    data = encodeText(JSON.stringify(request));
  } else {
    throw new TypeError(`request must be an object, a string or a Uint8Array, not ${request === null ? "null" : typeof request}`);
  }
  limits.check(data.byteLength, key);
  return data;
}

/**
 * Search and inspect one snapshot through one instance of the module.
 * Calls are synchronous and single-threaded; for parallel searches use one
 * Engine per Worker (see README.md).
 */
export class Engine {
  constructor(token, inst) {
    if (token !== Engine.#token) throw new TypeError("use toolsift.open(snapshot)");
    this.#inst = inst;
  }

  static #token = Symbol("Engine");
  #inst;

  /** @internal */
  static async _open(snapshot, options) {
    const module = await compiledModule(options?.wasm);
    const bytes = snapshot == null ? await packagedSnapshot() : toBytes(snapshot, "snapshot");
    const inst = await Instance.create(module);
    inst.open(bytes);
    return new Engine(Engine.#token, inst);
  }

  #live() {
    if (this.#inst === null) throw new EngineClosedError();
    return this.#inst;
  }

  /** The exact compact tool-search.v1 response (no newline), decoded as UTF-8. */
  searchRaw(request, { explain = false } = {}) {
    const inst = this.#live();
    return inst.search(encodeRequest(request, inst.limits, "search_request_too_large"), explain ? 1 : 0);
  }

  /** The parsed tool-search.v1 response. */
  search(request, options) {
    return JSON.parse(this.searchRaw(request, options));
  }

  /** The exact pretty schema-inspect.v1 response (no newline). */
  inspectRaw(request) {
    const inst = this.#live();
    return decodeText(inst.inspect(encodeRequest(request, inst.limits, "inspect_request_too_large")));
  }

  /** The parsed schema-inspect.v1 response. */
  inspect(request) {
    return JSON.parse(this.inspectRaw(request));
  }

  /** What the engine serves: profile, format, source_hash, surface_hash,
   * tool_count, product_count, snapshot_bytes. */
  info() {
    return JSON.parse(decodeText(this.#live().info()));
  }

  // -- provider tool search (docs/INTEGRATIONS.md) --------------------

  /** The module's exact JSON answer to one provider request ({op, …}). */
  providerRaw(request) {
    return providerRaw(this.#live(), request);
  }

  /** The Responses `tool_search` tool to send (execution "client"). */
  openAIToolSearchTool() {
    return JSON.parse(this.providerRaw(providerOps.openAIToolSearchTool()));
  }

  /** The `tool_search_output` item answering a client-executed `tool_search_call` item. */
  answerToolSearchCall(item, { budgetTokens = 0 } = {}) {
    return JSON.parse(this.providerRaw(providerOps.answerToolSearchCall(item, budgetTokens)));
  }

  /** A Messages client-side search tool named `name` (default "tool_search"). */
  anthropicSearchTool({ name = "" } = {}) {
    return JSON.parse(this.providerRaw(providerOps.anthropicSearchTool(name)));
  }

  /** The `tool_result` block (tool_reference blocks) answering the search tool's `tool_use` block. */
  answerToolUse(block, { budgetTokens = 0 } = {}) {
    return JSON.parse(this.providerRaw(providerOps.answerToolUse(block, budgetTokens)));
  }

  /** Every indexed tool's definition in the shape of "openai" or "anthropic". */
  definitions(provider) {
    return JSON.parse(this.providerRaw(providerOps.definitions(provider)));
  }

  /**
   * The name each indexed tool is shown under by "openai" or "anthropic", in
   * catalog order: {canonical_path, name}, with namespace for an OpenAI
   * function inside one. A tool keeps its own name where the provider takes
   * it and no other tool would share it; otherwise it is renamed with 8 hex
   * digits of its canonical path's SHA-256.
   */
  names(provider) {
    return JSON.parse(this.providerRaw(providerOps.names(provider)));
  }

  /** The tool a provider showed as `name` (and `namespace`, for OpenAI): {canonical_path, product_id, name}. */
  resolveName(provider, name, { namespace = "" } = {}) {
    if (typeof name !== "string" || name === "") throw validation("unknown_name", `no tool is shown to ${provider} as an empty name`);
    return JSON.parse(this.providerRaw(providerOps.resolveName(provider, name, namespace)));
  }

  // -- lint (docs/CATALOGS.md) ---------------------------------------

  /** The module's exact toolsift.lint.v1 JSON for the catalog this engine serves. */
  lintRaw({ expect } = {}) {
    return this.providerRaw(lintRequest(expect));
  }

  /**
   * The catalog's lint report: unreachable tools, confusable pairs, thin
   * descriptions, safety hints, and the rank of each {query, tool} in
   * `expect`. A bad expectation throws ValidationError (unknown_tool,
   * invalid_expectation); the request is at most 64 KiB.
   */
  lint({ expect } = {}) {
    return JSON.parse(this.lintRaw({ expect }));
  }

  /** Whether close() was called. */
  get closed() {
    return this.#inst === null;
  }

  /** Whether a trap made the instance unusable (open a new Engine). */
  get broken() {
    return this.#inst !== null && this.#inst.broken;
  }

  /** Release the instance. Later calls throw EngineClosedError. Idempotent. */
  close() {
    if (this.#inst === null) return;
    this.#inst.close();
    this.#inst = null;
  }
}

// `using engine = await open()` where explicit resource management exists.
if (typeof Symbol.dispose === "symbol") {
  Engine.prototype[Symbol.dispose] = function dispose() { this.close(); };
}

/**
 * Open snapshot bytes. Without a snapshot: in Node the bundled DWS snapshot;
 * in a browser it is fetched from the package (next to toolsearch.wasm).
 * A bad snapshot rejects with ValidationError (invalid_snapshot or
 * unsupported_snapshot_version).
 * @param {Uint8Array|ArrayBuffer} [snapshot]
 * @param {{wasm?: Uint8Array|ArrayBuffer|WebAssembly.Module}} [options]
 */
export function open(snapshot, options) {
  return Engine._open(snapshot, options);
}

async function oneShot(op, options) {
  const inst = await Instance.create(await compiledModule(options?.wasm));
  return op(inst); // the instance (and its memory) is dropped afterwards
}

/**
 * Build snapshot bytes from a catalog in a fresh instance
 * (toolsift_build_snapshot), byte-identical to `wasmhost snapshot build`.
 * `catalog`: the DWS dump as bytes (a gzip'd tar, or the JSON bundle), a
 * string of that JSON, or an object of it (serialised with JSON.stringify).
 * @returns {Promise<Uint8Array>}
 */
export async function buildSnapshot(format, catalog, options) {
  if (typeof format !== "string" || !/^[\x00-\x7f]*$/.test(format)) throw new TypeError("format must be an ASCII string");
  let data;
  if (typeof catalog === "string") data = encodeText(catalog);
  else if (catalog instanceof Uint8Array || catalog instanceof ArrayBuffer || ArrayBuffer.isView(catalog)) data = toBytes(catalog, "catalog");
  else if (catalog !== null && typeof catalog === "object") data = encodeText(JSON.stringify(catalog));
  else throw new TypeError("catalog must be a Uint8Array, a string or an object");
  const fmt = encodeText(format);
  return oneShot((inst) => inst.buildSnapshot(fmt, data), options);
}

let versionCache = null;

/** toolsift_version: {abi, module, snapshot_format, profiles, formats}. */
export async function moduleVersion(options) {
  if (options?.wasm != null) return JSON.parse(decodeText(await oneShot((inst) => inst.version(), options)));
  if (versionCache === null) versionCache = JSON.parse(decodeText(await oneShot((inst) => inst.version())));
  return structuredClone(versionCache);
}

/** toolsift_limits: the module's budgets (`maxRequestBytes`, `values`) and
 * the errors a host gives in its place (`refusal(key)`); wasm/ABI.md. Read
 * once per compiled module, by its first instance: an open engine's
 * module answers at once, without an instance of its own. */
export async function moduleLimits(options) {
  const module = await compiledModule(options?.wasm);
  return knownLimits(module) ?? oneShot((inst) => inst.limits, { wasm: module });
}

/**
 * Import the tools a provider request passes (an array, {tools: [...]}, JSON
 * text or bytes) for tool search, in a fresh instance: each tool keeps its
 * definition, and when any is marked defer_loading only the deferred ones
 * are indexed. Resolves to {snapshot, report, reportText, alwaysLoaded}.
 */
export async function fromOpenAITools(tools, options) {
  return oneShot((inst) => importTools(inst, "openai", tools), options);
}

/** fromOpenAITools for an Anthropic Messages tools list. */
export async function fromAnthropicTools(tools, options) {
  return oneShot((inst) => importTools(inst, "anthropic", tools), options);
}

/** fromOpenAITools for an MCP tools/list result (or {servers: {...}}); every tool is indexed. */
export async function fromMCPTools(tools, options) {
  return oneShot((inst) => importTools(inst, "mcp", tools), options);
}
