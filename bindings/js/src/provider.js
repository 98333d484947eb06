// Provider tool search through the module's toolsift_import_tools and
// toolsift_provider calls (wasm/ABI.md, "Provider tool search"): the shapes
// are rendered in the module, so these wrappers only move bytes.

import { encodeText, decodeText, toBytes } from "./runtime.js";
import { hostFailure, validation } from "./errors.js";

function requireExport(inst, name) {
  if (typeof inst.ex[name] !== "function") {
    throw hostFailure(`module broke the ABI: missing export ${name} (a module built before provider tool search: rebuild it with wasm/build.sh)`);
  }
}

/** JSON text of a tool list given as an array, an object, a string or bytes. */
function toolListBytes(tools) {
  if (typeof tools === "string") return encodeText(tools);
  if (tools instanceof Uint8Array || tools instanceof ArrayBuffer || ArrayBuffer.isView(tools)) return toBytes(tools, "tools");
  if (tools !== null && typeof tools === "object") return encodeText(JSON.stringify(tools));
  throw new TypeError("tools must be an array, an object ({tools: [...]}), a JSON string or bytes");
}

/** toolsift_import_tools in inst: {snapshot, report, alwaysLoaded}. */
export function importTools(inst, format, tools) {
  requireExport(inst, "toolsift_import_tools");
  const out = inst.invoke("toolsift_import_tools", [], [encodeText(format), toolListBytes(tools)]);
  if (out.byteLength < 4) throw hostFailure(`module broke the ABI: toolsift_import_tools returned ${out.byteLength} bytes`);
  const n = new DataView(out.buffer, out.byteOffset, 4).getUint32(0, true);
  if (4 + n > out.byteLength) throw hostFailure("module broke the ABI: toolsift_import_tools report overruns its result");
  const reportText = decodeText(out.subarray(4, 4 + n));
  const report = JSON.parse(reportText);
  return { snapshot: out.slice(4 + n), report, reportText, alwaysLoaded: report.always_loaded ?? [] };
}

/** One provider request (an object, a JSON string or bytes) → the module's exact JSON text. */
export function providerRaw(inst, request) {
  requireExport(inst, "toolsift_provider");
  let data;
  if (typeof request === "string") data = encodeText(request);
  else if (request instanceof Uint8Array || request instanceof ArrayBuffer || ArrayBuffer.isView(request)) data = toBytes(request, "request");
  else if (request !== null && typeof request === "object") data = encodeText(JSON.stringify(request));
  else throw new TypeError("request must be an object, a JSON string or bytes");
  inst.limits.check(data.byteLength, "provider_request_too_large");
  return inst.invoke("toolsift_provider", [inst.handle | 0], [data], [], true);
}

/** An item or block given as an object or as its JSON text. */
function jsonValue(value, what) {
  if (typeof value === "string") {
    try { return JSON.parse(value); } catch (exc) { throw validation("invalid_request_json", `provider request: ${what}: ${exc.message}`); }
  }
  if (value === null || typeof value !== "object") throw new TypeError(`${what} must be an object or its JSON text`);
  return value;
}

/** The request of one op, members at their zero value left out (as the module wants). */
export function request(op, members = {}) {
  const r = { op };
  for (const [k, v] of Object.entries(members)) {
    if (v === undefined || v === null || v === "" || v === 0) continue;
    r[k] = v;
  }
  return r;
}

/**
 * budgetTokens as the request carries it. JSON has no NaN or Infinity
 * (JSON.stringify writes null, which would mean "the default"), so a
 * non-finite number is refused here, with the reason Python gives it.
 */
function budget(budgetTokens) {
  if (typeof budgetTokens === "number" && !Number.isFinite(budgetTokens)) {
    throw validation("invalid_budget", `budget_tokens must be a finite number, got ${budgetTokens}`);
  }
  return budgetTokens;
}

export const ops = {
  openAIToolSearchTool: () => request("openai_tool_search_tool"),
  answerToolSearchCall: (item, budgetTokens) => request("answer_tool_search_call", { item: jsonValue(item, "item"), budget_tokens: budget(budgetTokens) }),
  anthropicSearchTool: (name) => request("anthropic_search_tool", { name }),
  answerToolUse: (block, budgetTokens) => request("answer_tool_use", { block: jsonValue(block, "block"), budget_tokens: budget(budgetTokens) }),
  definitions: (provider) => request("definitions", { provider }),
  names: (provider) => request("names", { provider }),
  resolveName: (provider, name, namespace) => request("resolve_name", { provider, name, namespace }),
};

/**
 * Which tools one conversation has loaded, under which catalog generation:
 * each answer loads only new tools, within caps on the loaded set (by
 * default 64 tools and 128 KiB of definitions). The state is the module's
 * (core/provider/session.go); this only carries it between calls.
 */
export class ToolSession {
  constructor({ maxTools = 0, maxBytes = 0, state = null } = {}) {
    this.state = state ?? request("", { max_tools: maxTools, max_bytes: maxBytes });
    delete this.state.op;
    this.catalogChanged = false;
    this.alreadyLoaded = [];
    this.overCap = [];
  }

  /** Canonical paths of the tools loaded so far, in load order. */
  get loaded() {
    return (this.state.loaded ?? []).map((l) => l.path);
  }

  /** engine.answerToolSearchCall, loading only tools not loaded yet. */
  answerToolSearchCall(engine, item, { budgetTokens = 0 } = {}) {
    return this.#answer(engine, ops.answerToolSearchCall(item, budgetTokens));
  }

  /** engine.answerToolUse, referencing only tools not loaded yet. */
  answerToolUse(engine, block, { budgetTokens = 0 } = {}) {
    return this.#answer(engine, ops.answerToolUse(block, budgetTokens));
  }

  #answer(engine, req) {
    req.session = this.state;
    const a = JSON.parse(engine.providerRaw(req));
    this.state = a.session;
    this.catalogChanged = a.catalog_changed;
    this.alreadyLoaded = a.already_loaded;
    this.overCap = a.over_cap;
    return a.output;
  }
}
