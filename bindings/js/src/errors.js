// Typed errors answered by the toolsift module (wasm/ABI.md, "Results").

/** A typed failure from the module (or from the host, for a trap). */
export class ToolsiftError extends Error {
  /**
   * @param {string} category "validation" | "discovery" | "internal"
   * @param {number} code 3 | 6 | 5
   * @param {string} reason stable machine-readable code ("" when none)
   * @param {string} message for people
   * @param {string} [raw] the compact error object exactly as the module returned it
   */
  constructor(category, code, reason, message, raw) {
    super(reason ? `${category} (${reason}): ${message}` : `${category}: ${message}`);
    this.name = new.target.name;
    this.category = category;
    this.code = code;
    this.reason = reason;
    this.detail = message;
    this.raw = raw ?? encodeError(category, code, message, reason);
  }

  /** The error object: {"error":{category,code,message[,reason]}}. */
  toJSON() {
    const inner = { category: this.category, code: this.code, message: this.detail };
    if (this.reason) inner.reason = this.reason;
    return { error: inner };
  }
}

/** Category "validation" (code 3): a bad request, snapshot or catalog. */
export class ValidationError extends ToolsiftError {}
/** Category "discovery" (code 6): the catalog is not what the caller expected. */
export class DiscoveryError extends ToolsiftError {}
/** Category "internal" (code 5): a bug in the module, or a trap in the host (reason "host_failure"). */
export class InternalError extends ToolsiftError {}

/** A call on an Engine after close(). */
export class EngineClosedError extends Error {
  constructor(message = "toolsift: engine closed") {
    super(message);
    this.name = "EngineClosedError";
  }
}

const CLASSES = { validation: ValidationError, discovery: DiscoveryError, internal: InternalError };

// Go's encoding/json string escaping (escapeHTML on), as the module writes strings.
function goString(s) {
  return JSON.stringify(s)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** The compact error object in the module's field order (reason omitted when empty). */
export function encodeError(category, code, message, reason) {
  let out = `{"error":{"category":${goString(category)},"code":${Math.trunc(code)},"message":${goString(message)}`;
  if (reason) out += `,"reason":${goString(reason)}`;
  return out + "}}";
}

export function makeError(category, code, reason, message, raw) {
  const Cls = CLASSES[category] ?? ToolsiftError;
  return new Cls(category, code, reason, message, raw);
}

/** Parse a status-1 payload (a string) into its typed error, keeping the text. */
export function decodeModuleError(payload) {
  try {
    const doc = JSON.parse(payload);
    const inner = doc.error;
    if (!inner || typeof inner.category !== "string" || !inner.category) throw new Error("no category");
    return makeError(inner.category, Number(inner.code ?? 0) | 0, String(inner.reason ?? ""), String(inner.message ?? ""), payload);
  } catch (exc) {
    return new InternalError("internal", 5, "abi_violation",
      `module broke the ABI: error result is not {"error":{...}}: ${JSON.stringify(payload.slice(0, 200))} (${exc.message})`);
  }
}

export function validation(reason, message) {
  return new ValidationError("validation", 3, reason, message);
}

export function hostFailure(message) {
  return new InternalError("internal", 5, "host_failure", message);
}

/** A snapshot build that outgrew the instance's memory (worded as the Go host's). */
export function catalogTooLarge(catalogBytes, limitBytes) {
  return validation("catalog_too_large",
    `building a snapshot of this catalog (${catalogBytes} bytes) needs more than the module's memory limit of ${Math.floor(limitBytes / 2 ** 20)} MiB: ` +
    "build it natively (wasmhost snapshot build) or in a host with a larger limit");
}
