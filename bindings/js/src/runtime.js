// The WebAssembly side: one compiled module per realm, one instance per Engine.
// Everything here follows wasm/ABI.md (ABI version 1) of the toolsift project.
// The same code runs in Node (>= 20) and in browsers; the only difference is
// how the packaged files are read (node:fs for file: URLs, fetch otherwise).

import { WASI, File, OpenFile, ConsoleStdout } from "@bjorn3/browser_wasi_shim";
import { catalogTooLarge, decodeModuleError, hostFailure } from "./errors.js";

/** ABI version this binding speaks. */
export const ABI_VERSION = 1;

const EXPORTS = {
  toolsift_alloc: 1,
  toolsift_free: 1,
  toolsift_version: 0,
  toolsift_set_memory_limit: 1,
  toolsift_open_owned: 2,
  toolsift_close: 1,
  toolsift_info: 1,
  toolsift_search: 4,
  toolsift_inspect: 3,
  toolsift_build_snapshot: 4,
  toolsift_limits: 0,
};

// The most linear memory a wasm32 instance can have, as an i64 (BigInt).
const WASM32_MEMORY_BYTES = 1n << 32n;

/**
 * What a module reports through toolsift_limits (wasm/ABI.md): its budgets
 * (`maxRequestBytes`, and every one in `values`) and, for each request a
 * host refuses in its place, the error it would answer. A request over
 * maxRequestBytes is refused before a byte is copied into the module (a
 * 60 MB request copied in grew the instance's memory for good), in the
 * module's own words: nothing here repeats them.
 */
export class Limits {
  constructor(text) {
    let doc;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = null;
    }
    if (!doc || !Number.isInteger(doc.max_request_bytes) || doc.max_request_bytes <= 0 || typeof doc.errors !== "object" || doc.errors === null) {
      throw hostFailure(`module broke the ABI: toolsift_limits returned ${String(text).slice(0, 200)}`);
    }
    this.maxRequestBytes = doc.max_request_bytes;
    this.values = Object.fromEntries(Object.entries(doc).filter(([, v]) => Number.isInteger(v)));
    this.errors = doc.errors;
  }

  /** The module's error errors[key] (e.g. "search_request_too_large"), typed. */
  refusal(key) {
    const payload = this.errors[key];
    if (payload === undefined) return hostFailure(`module broke the ABI: toolsift_limits has no errors.${key}`);
    return decodeModuleError(JSON.stringify(payload));
  }

  /** Throws the module's refusal `key` if a request of n bytes is over the limit. */
  check(n, key) {
    if (n > this.maxRequestBytes) throw this.refusal(key);
  }
}

// Each compiled module's limits, read by its first instance.
const limitsOf = new WeakMap();

/** The limits a compiled module's first instance read, or undefined. */
export function knownLimits(module) {
  return limitsOf.get(module);
}

const WASM_URL = new URL("../toolsearch.wasm", import.meta.url);
const SNAPSHOT_URL = new URL("../dws.snap", import.meta.url);

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Read a packaged file: node:fs for file: URLs (Node), fetch otherwise (browsers). */
async function readPackaged(url) {
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    const buf = await readFile(url);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  const res = await fetch(url);
  if (!res.ok) throw hostFailure(`fetch ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

let defaultModule = null; // Promise<WebAssembly.Module>
let defaultSnapshot = null; // Promise<Uint8Array>

/** The packaged toolsearch.wasm, compiled once per realm. */
export function compiledModule(wasm) {
  if (wasm instanceof WebAssembly.Module) return Promise.resolve(wasm);
  if (wasm != null) return WebAssembly.compile(toBytes(wasm, "options.wasm"));
  if (defaultModule === null) {
    defaultModule = readPackaged(WASM_URL).then((b) => WebAssembly.compile(b));
    defaultModule.catch(() => { defaultModule = null; });
  }
  return defaultModule;
}

/** The packaged DWS snapshot (dws.snap) bytes. */
export function packagedSnapshot() {
  if (defaultSnapshot === null) {
    defaultSnapshot = readPackaged(SNAPSHOT_URL);
    defaultSnapshot.catch(() => { defaultSnapshot = null; });
  }
  return defaultSnapshot;
}

/** Uint8Array view of bytes given as Uint8Array / ArrayBuffer / other views. */
export function toBytes(data, what) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && data instanceof SharedArrayBuffer)) {
    return new Uint8Array(data);
  }
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError(`${what} must be a Uint8Array or an ArrayBuffer, not ${data === null ? "null" : typeof data}`);
}

export function encodeText(s) {
  return encoder.encode(s);
}

export function decodeText(b) {
  return decoder.decode(b);
}

const STDERR_KEEP = 4096;

/**
 * The whole world the module sees: no arguments, no environment, and three
 * file descriptors — an empty read-only stdin, a discarded stdout and a
 * stderr handed to onStderr. No PreopenDirectory: the module cannot open a
 * file. Exported so that a test can show it.
 * @param {(data: Uint8Array) => void} onStderr
 */
export function sandbox(onStderr) {
  return {
    args: [],
    env: [],
    fds: [
      new OpenFile(new File(new Uint8Array(0), { readonly: true })),
      new ConsoleStdout(() => {}),
      new ConsoleStdout(onStderr),
    ],
  };
}

/**
 * One instantiated module. Single-threaded (JS is); after a trap
 * (`broken`) it must be discarded.
 */
export class Instance {
  /** @param {WebAssembly.Module} module */
  static async create(module) {
    const self = new Instance();
    self.broken = false;
    self.handle = 0;
    self.stderr = "";
    self.outOfMemory = false;
    // No preopened directory, no environment, no arguments (wasm/ABI.md):
    // fd 0 is an empty read-only file, stdout is discarded, stderr keeps its
    // last few KiB (a Go panic prints there) for trap messages. The Go
    // runtime's out-of-memory line comes first and a goroutine dump after
    // it, so it is noted as it passes rather than looked for in the tail.
    const { args, env, fds } = sandbox((data) => {
      const text = decoder.decode(data);
      if (text.includes("out of memory") || text.includes("cannot allocate memory")) self.outOfMemory = true;
      self.stderr = (self.stderr + text).slice(-STDERR_KEEP);
    });
    const wasi = new WASI(args, env, fds, { debug: false });
    let inst;
    try {
      inst = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
    } catch (exc) {
      throw hostFailure(`instantiate: ${exc?.message ?? exc}`);
    }
    const ex = inst.exports;
    if (!(ex.memory instanceof WebAssembly.Memory)) throw hostFailure('module broke the ABI: no exported "memory"');
    for (const [name, arity] of Object.entries(EXPORTS)) {
      if (typeof ex[name] !== "function") throw hostFailure(`module broke the ABI: missing export ${name}`);
      if (ex[name].length !== arity) throw hostFailure(`module broke the ABI: export ${name} takes ${ex[name].length} parameters, want ${arity}`);
    }
    if (typeof ex._initialize !== "function") throw hostFailure("module broke the ABI: missing export _initialize");
    self.ex = ex;
    self.memory = ex.memory;
    try {
      wasi.initialize(inst); // a reactor: _initialize starts the Go runtime
    } catch (exc) {
      throw hostFailure(`initialize: ${exc?.message ?? exc}${self.stderrTail()}`);
    }
    // The module declares no maximum memory, so an instance may grow to
    // wasm32's 4 GiB: its Go heap is told so, instead of keeping under the
    // 256 MiB it assumes otherwise (which a large catalog's live heap
    // exceeds, and then the collector runs on every few allocations).
    self.call("toolsift_set_memory_limit", WASM32_MEMORY_BYTES);
    if (!limitsOf.has(module)) limitsOf.set(module, new Limits(decoder.decode(self.take(self.call("toolsift_limits")))));
    self.limits = limitsOf.get(module);
    // One request buffer for the life of the instance: every search and
    // Inspect request fits (the module refuses larger ones), so a search
    // makes two calls into the module (search, free the result) instead of
    // four.
    self.scratchBytes = self.limits.maxRequestBytes;
    self.scratch = self.call("toolsift_alloc", self.scratchBytes) >>> 0;
    if (self.scratch === 0) throw hostFailure(`module broke the ABI: toolsift_alloc(${self.scratchBytes}) returned 0`);
    return self;
  }

  stderrTail() {
    const t = this.stderr.trim();
    return t ? ` (module stderr: ${t.slice(-500)})` : "";
  }

  // -- low level -------------------------------------------------------

  call(name, ...params) {
    if (this.broken) throw hostFailure("the instance trapped earlier and is unusable; open a new Engine");
    try {
      return this.ex[name](...params);
    } catch (exc) {
      this.broken = true;
      let text = String(exc?.message ?? exc);
      if (text.length > 500) text = text.slice(0, 500) + "…";
      throw hostFailure(`the module trapped; the instance is discarded: ${text}${this.stderrTail()}`);
    }
  }

  put(data) {
    if (data.byteLength === 0) return 0;
    if (data.byteLength > 0x7fffffff) throw hostFailure(`buffer of ${data.byteLength} bytes does not fit an i32 length`);
    const ptr = this.call("toolsift_alloc", data.byteLength) >>> 0;
    if (ptr === 0) {
      this.broken = true;
      throw hostFailure(`module broke the ABI: toolsift_alloc(${data.byteLength}) returned 0`);
    }
    const mem = new Uint8Array(this.memory.buffer);
    if (ptr + data.byteLength > mem.byteLength) {
      this.broken = true;
      throw hostFailure(`module broke the ABI: toolsift_alloc returned 0x${ptr.toString(16)} outside memory`);
    }
    mem.set(data, ptr);
    return ptr;
  }

  /** Copy a result out, free it, and return the payload bytes (or, with
   * `text`, the payload decoded as UTF-8 straight from linear memory, which
   * saves a copy) or throw its error. */
  take(descriptor, text = false) {
    const d = BigInt.asUintN(64, BigInt(descriptor));
    const ptr = Number(d >> 32n);
    const n = Number(d & 0xffffffffn);
    const mem = new Uint8Array(this.memory.buffer);
    if (n === 0 || ptr + n > mem.byteLength) {
      this.broken = true;
      throw hostFailure(`module broke the ABI: result descriptor 0x${d.toString(16)} (memory ${mem.byteLength} bytes)`);
    }
    const status = mem[ptr];
    const payload = text && status === 0
      ? decoder.decode(mem.subarray(ptr + 1, ptr + n)) // read before the free
      : mem.slice(ptr + 1, ptr + n); // a copy
    this.call("toolsift_free", ptr | 0);
    if (status === 0) return payload;
    if (status === 1) throw decodeModuleError(decoder.decode(payload));
    this.broken = true;
    throw hostFailure(`module broke the ABI: result status byte ${status}`);
  }

  invoke(name, lead, bufs, trail = [], text = false) {
    const ptrs = [];
    const params = [...lead];
    if (bufs.length === 1 && bufs[0].byteLength > 0 && bufs[0].byteLength <= this.scratchBytes) {
      // The module reads the request during the call only: the instance's
      // request buffer can carry it.
      new Uint8Array(this.memory.buffer).set(bufs[0], this.scratch);
      params.push(this.scratch | 0, bufs[0].byteLength);
      bufs = [];
    }
    try {
      for (const b of bufs) {
        const p = this.put(b);
        ptrs.push(p);
        params.push(p | 0, b.byteLength);
      }
      params.push(...trail);
      const descriptor = this.call(name, ...params);
      return this.take(descriptor, text);
    } finally {
      if (!this.broken) for (const p of ptrs) if (p) this.call("toolsift_free", p | 0);
    }
  }

  // -- ABI calls -------------------------------------------------------

  open(snapshot) {
    // toolsift_open_owned: the module keeps the buffer the snapshot is copied
    // into (never freed here, and never the request buffer), so the instance
    // holds one copy of the snapshot, not two.
    const ptr = this.put(snapshot);
    const out = this.take(this.call("toolsift_open_owned", ptr | 0, snapshot.byteLength));
    if (out.byteLength !== 4) {
      this.broken = true;
      throw hostFailure(`module broke the ABI: toolsift_open returned ${out.byteLength} payload bytes, want 4`);
    }
    const handle = new DataView(out.buffer, out.byteOffset, 4).getUint32(0, true);
    if (handle === 0) {
      this.broken = true;
      throw hostFailure("module broke the ABI: toolsift_open returned handle 0");
    }
    this.handle = handle;
  }

  close() {
    if (this.handle && !this.broken) {
      try { this.call("toolsift_close", this.handle | 0); } catch { /* the instance is dropped anyway */ }
    }
    this.handle = 0;
  }

  info() { return this.take(this.call("toolsift_info", this.handle | 0)); }
  /** The answer to a search request, as a string. */
  search(request, flags) { return this.invoke("toolsift_search", [this.handle | 0], [request], [flags], true); }
  inspect(request) { return this.invoke("toolsift_inspect", [this.handle | 0], [request]); }
  version() { return this.take(this.call("toolsift_version")); }
  buildSnapshot(fmt, catalog) {
    try {
      return this.invoke("toolsift_build_snapshot", [], [fmt, catalog]);
    } catch (exc) {
      // The Go runtime's out-of-memory is fatal (a trap, not an error
      // result); its stderr says so. The caller gets the typed refusal the
      // other hosts give. An instance may grow to wasm32's 4 GiB here.
      if (this.ranOutOfMemory()) throw catalogTooLarge(catalog.byteLength, Number(WASM32_MEMORY_BYTES));
      throw exc;
    }
  }

  /** Whether the instance trapped because the Go runtime ran out of memory. */
  ranOutOfMemory() { return this.broken && this.outOfMemory; }
}
