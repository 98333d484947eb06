// Package files, typed errors, corrupted snapshots, lifecycle.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import path from "node:path";
import * as toolsift from "../index.js";
import { open, buildSnapshot, moduleVersion, ToolsiftError, ValidationError, DiscoveryError, InternalError, EngineClosedError } from "../index.js";
import { PKG, REPO, CHINESE_QUERY } from "./helpers.mjs";
import { Instance, compiledModule } from "../src/runtime.js";
import { stage } from "../scripts/stage.mjs";

const DWS = readFileSync(path.join(REPO, "catalogs", "dws", "dws.snap"));

let engine;
before(async () => { engine = await open(); });
after(() => engine.close());

test("package files are byte-identical to the repository copies", () => {
  for (const [pkg, repo] of [["toolsearch.wasm", "wasm/toolsearch.wasm"], ["dws.snap", "catalogs/dws/dws.snap"]]) {
    const a = readFileSync(path.join(PKG, pkg));
    const b = readFileSync(path.join(REPO, repo));
    assert.ok(a.equals(b), `${pkg} differs from ../../${repo}; copy it again`);
  }
  const pj = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8"));
  for (const f of ["toolsearch.wasm", "dws.snap", "artifacts.sha256", "index.js", "index.d.ts"]) assert.ok(pj.files.includes(f), f);
  // npm runs the copy on install from a checkout, on pack, and before the tests.
  for (const s of ["prepare", "prepack", "pretest"]) assert.equal(pj.scripts[s], "node scripts/stage.mjs", s);
});

test("scripts/stage.mjs copies the artifacts from a checkout and refuses other bytes", (t) => {
  const sha = (b) => createHash("sha256").update(b).digest("hex");
  const root = mkdtempSync(path.join(tmpdir(), "toolsift-stage-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const repo = path.join(root, "repo");
  const pkg = path.join(repo, "bindings", "js");
  for (const d of ["wasm", "catalogs/dws", "bindings/js"]) mkdirSync(path.join(repo, d), { recursive: true });
  const mod = Buffer.from("\0asm module"), snap = Buffer.from("snapshot");
  writeFileSync(path.join(repo, "wasm/toolsearch.wasm"), mod);
  writeFileSync(path.join(repo, "catalogs/dws/dws.snap"), snap);
  writeFileSync(path.join(repo, "wasm/artifacts.sha256"), `${sha(mod)}  wasm/toolsearch.wasm\n${sha(snap)}  catalogs/dws/dws.snap\n`);

  stage(pkg);
  assert.ok(readFileSync(path.join(pkg, "toolsearch.wasm")).equals(mod));
  assert.ok(readFileSync(path.join(pkg, "dws.snap")).equals(snap));
  writeFileSync(path.join(pkg, "dws.snap"), "old snapshot"); // a stale copy is replaced
  stage(pkg);
  assert.ok(readFileSync(path.join(pkg, "dws.snap")).equals(snap));

  // A module rebuilt without recording its hash is refused.
  writeFileSync(path.join(repo, "wasm/toolsearch.wasm"), "\0asm other module");
  assert.throws(() => stage(pkg), /wasm\/toolsearch\.wasm has SHA-256 \w+, but wasm\/artifacts\.sha256 records/);

  // An unpacked tarball (no checkout around it): checked against the hash list it carries.
  const unpacked = path.join(root, "unpacked", "package");
  cpSync(pkg, unpacked, { recursive: true });
  stage(unpacked);
  writeFileSync(path.join(unpacked, "toolsearch.wasm"), "tampered");
  assert.throws(() => stage(unpacked), /toolsearch\.wasm has SHA-256 \w+, but the package records \w+: it is not the committed file/);
  unlinkSync(path.join(unpacked, "toolsearch.wasm"));
  assert.throws(() => stage(unpacked), /toolsearch\.wasm is missing/);
});

test("exports", () => {
  for (const name of ["open", "buildSnapshot", "moduleVersion", "Engine", "ToolsiftError", "ValidationError",
    "DiscoveryError", "InternalError", "EngineClosedError"]) assert.ok(name in toolsift, name);
  assert.ok(new ValidationError("validation", 3, "x", "m") instanceof ToolsiftError);
  assert.ok(new DiscoveryError("discovery", 6, "x", "m") instanceof ToolsiftError);
  assert.ok(new InternalError("internal", 5, "x", "m") instanceof Error);
});

test("a scope hides a tool even from a query that names it exactly", () => {
  const path = "chat.send_personal_message";
  const filtered = engine.search({ version: "tool-search.v1", query: path, exclude_canonical: [path] });
  assert.deepEqual(filtered.exact_filtered, { canonical_path: path, reason: "excluded" });
  const scoped = engine.search({ version: "tool-search.v1", query: path, scope: { product_ids: ["chat"], exclude_canonical: [path] } });
  assert.equal(scoped.exact_filtered, undefined);
  assert.ok(scoped.candidates.length > 0);
  for (const c of scoped.candidates) {
    assert.equal(c.product_id, "chat");
    assert.notEqual(c.canonical_path, path);
  }
  expectError(() => engine.searchRaw({ version: "tool-search.v1", query: "q", scope: { effects: ["run"] } }), ValidationError, "validation", "invalid_effect");
});

test("moduleVersion", async () => {
  const v = await moduleVersion();
  assert.equal(v.abi, 1);
  assert.equal(v.module, "toolsift");
  assert.ok(v.formats.includes("dws"));
});

test("info and a Chinese search", () => {
  const info = engine.info();
  assert.equal(info.tool_count, 1122);
  assert.equal(info.profile, "dws-v1");
  assert.equal(info.snapshot_bytes, DWS.length);
  const raw = engine.searchRaw(CHINESE_QUERY);
  assert.ok(!raw.endsWith("\n"));
  const parsed = engine.search(CHINESE_QUERY);
  assert.deepEqual(parsed, JSON.parse(raw));
  assert.equal(parsed.query, CHINESE_QUERY.query);
  assert.ok(parsed.candidates.length > 0 && parsed.candidates.length <= 5);
  // string, bytes and object requests give the same bytes
  const s = JSON.stringify(CHINESE_QUERY);
  assert.equal(engine.searchRaw(s), raw);
  assert.equal(engine.searchRaw(new TextEncoder().encode(s)), raw);
  assert.equal(engine.searchRaw(new TextEncoder().encode(s).buffer), raw);
});

test("explain attaches score_breakdown", () => {
  const r = engine.search(CHINESE_QUERY, { explain: true });
  assert.ok(r.candidates.every((c) => "score_breakdown" in c));
  assert.ok(engine.search(CHINESE_QUERY).candidates.every((c) => !("score_breakdown" in c)));
});

test("inspect of the top result with the response's hashes", () => {
  const r = engine.search({ version: "tool-search.v1", query: "查询群消息已读状态" });
  const top = r.candidates[0];
  assert.equal(top.canonical_path, "chat.query_msg_read_status");
  const req = { version: "schema-inspect.v1", canonical_path: top.canonical_path,
    expected_source_hash: r.catalog.source_hash, expected_surface_hash: r.catalog.surface_hash };
  const raw = engine.inspectRaw(req);
  assert.ok(raw.startsWith("{\n  \"version\": \"schema-inspect.v1\""));
  assert.equal(engine.inspect(req).tool_spec.canonical_path ?? top.canonical_path, top.canonical_path);
  assert.throws(() => engine.inspect({ ...req, expected_source_hash: "sha256:" + "0".repeat(64) }),
    (e) => e instanceof DiscoveryError && e.category === "discovery" && e.code === 6);
});

function expectError(fn, Cls, category, reason) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Cls, `${e?.constructor?.name}: ${e?.message}`);
    assert.equal(e.category, category);
    assert.equal(e.reason, reason);
    assert.equal(JSON.parse(e.raw).error.reason, reason);
    return true;
  });
}

test("bad input gives typed errors", () => {
  expectError(() => engine.searchRaw("{"), ValidationError, "validation", "invalid_request_json");
  expectError(() => engine.searchRaw("not json"), ValidationError, "validation", "invalid_request_json");
  expectError(() => engine.searchRaw({ version: "tool-search.v1", query: "q", bogus: 1 }), ValidationError, "validation", "invalid_request_json");
  expectError(() => engine.searchRaw({ version: "tool-search.v2", query: "q" }), ValidationError, "validation", "unsupported_version");
  const big = { version: "tool-search.v1", query: "q", pad: "x".repeat(65 * 1024) };
  expectError(() => engine.searchRaw(big), ValidationError, "validation", "request_too_large");
  expectError(() => engine.searchRaw({ version: "tool-search.v1", query: "q", limit: 21 }), ValidationError, "validation", "invalid_limit");
  const err = (() => { try { engine.searchRaw("{"); } catch (e) { return e; } })();
  assert.equal(err.code, 3);
  assert.deepEqual(err.toJSON(), JSON.parse(err.raw));
  assert.ok(err.message.includes("invalid_request_json"));
  assert.throws(() => engine.searchRaw(42), TypeError);
  assert.throws(() => engine.searchRaw(null), TypeError);
  // the engine still answers
  assert.ok(engine.search(CHINESE_QUERY).candidates.length > 0);
});

test("corrupted snapshots are refused and an open engine still answers", async () => {
  const before = engine.searchRaw(CHINESE_QUERY);
  const flipped = new Uint8Array(DWS);
  flipped[DWS.length >> 1] ^= 0xff;
  for (const [label, bytes] of [["flipped body byte", flipped], ["truncated", DWS.subarray(0, DWS.length - 100)],
    ["header only", DWS.subarray(0, 24)], ["garbage", new TextEncoder().encode("not a snapshot")]]) {
    await assert.rejects(open(bytes), (e) => {
      assert.ok(e instanceof ValidationError, `${label}: ${e}`);
      assert.equal(e.reason, "invalid_snapshot", label);
      return true;
    });
  }
  assert.equal(engine.searchRaw(CHINESE_QUERY), before);
});

test("an explicit snapshot and wasm module", async () => {
  const mod = await WebAssembly.compile(readFileSync(path.join(REPO, "wasm", "toolsearch.wasm")));
  const e = await open(DWS.buffer.slice(DWS.byteOffset, DWS.byteOffset + DWS.length), { wasm: mod });
  try {
    assert.equal(e.searchRaw(CHINESE_QUERY), engine.searchRaw(CHINESE_QUERY));
  } finally {
    e.close();
  }
});

test("an instance tells the module its memory and hands the snapshot over", async () => {
  const inst = await Instance.create(await compiledModule());
  // The heap's soft ceiling: a sixteenth below wasm32's 4 GiB (an i64).
  assert.equal(inst.call("toolsift_set_memory_limit", 0n), 15n << 28n);
  inst.open(DWS);
  assert.ok(inst.handle > 0);
  // Opened in place (toolsift_open_owned), it answers as the engine does.
  const request = new TextEncoder().encode(JSON.stringify(CHINESE_QUERY));
  const ptr = inst.put(request);
  const answer = new TextDecoder().decode(inst.take(inst.call("toolsift_search", inst.handle, ptr, request.byteLength, 0)));
  assert.equal(answer, engine.searchRaw(CHINESE_QUERY));
  inst.close();
});

test("close", async () => {
  const e = await open(DWS);
  assert.equal(e.closed, false);
  e.close();
  e.close();
  assert.equal(e.closed, true);
  assert.throws(() => e.searchRaw(CHINESE_QUERY), EngineClosedError);
  assert.throws(() => e.info(), EngineClosedError);
});

test("buildSnapshot from the DWS catalog dump is byte-identical to dws.snap", async () => {
  const tar = readFileSync(path.join(REPO, "testdata", "dws", "catalog.tar.gz"));
  const snap = await buildSnapshot("dws", tar);
  assert.ok(snap instanceof Uint8Array);
  assert.ok(Buffer.from(snap).equals(DWS), "built snapshot differs from catalogs/dws/dws.snap");
  await assert.rejects(buildSnapshot("nope", tar), (e) => e instanceof ValidationError && e.reason === "unknown_format");
  await assert.rejects(buildSnapshot("dws", "{not json"), (e) => e instanceof ValidationError && e.reason === "invalid_catalog");
});

/** open() with the instance's WebAssembly.Memory caught on the way (the
 * Engine keeps its instance private). */
async function openWatched(snapshot) {
  const instantiate = WebAssembly.instantiate;
  let memory = null;
  WebAssembly.instantiate = async function watched(...args) {
    const made = await instantiate.apply(this, args);
    memory = (made.instance ?? made).exports.memory;
    return made;
  };
  try {
    const e = await open(snapshot);
    return { engine: e, memory };
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}

test("a 60 MB request is refused by the host: request_too_large, memory not grown, the engine answers", async () => {
  const { engine: e, memory } = await openWatched(DWS);
  try {
    assert.ok(memory instanceof WebAssembly.Memory);
    const want = e.searchRaw(CHINESE_QUERY);
    const before = memory.buffer.byteLength;
    const pad = "x".repeat(60 << 20);
    const bytes = new TextEncoder().encode(`{"version":"tool-search.v1","query":"q","pad":"${pad}"}`);
    const requests = [
      ["search bytes", () => e.searchRaw(bytes), "tool-search.v1"],
      ["search string", () => e.searchRaw(`{"version":"tool-search.v1","query":"${pad}"}`), "tool-search.v1"],
      ["search object", () => e.search({ version: "tool-search.v1", query: pad }), "tool-search.v1"],
      ["inspect bytes", () => e.inspectRaw(bytes), "schema-inspect.v1"],
      ["inspect object", () => e.inspect({ version: "schema-inspect.v1", canonical_path: pad }), "schema-inspect.v1"],
    ];
    for (const [label, call, what] of requests) {
      assert.throws(call, (err) => {
        assert.ok(err instanceof ValidationError, `${label}: ${err}`);
        assert.equal(err.reason, "request_too_large", label);
        assert.equal(err.detail, `${what} request is larger than 65536 bytes`, label);
        return true;
      });
    }
    assert.equal(memory.buffer.byteLength, before, "the refused requests grew the instance's memory");
    assert.equal(e.broken, false);
    assert.equal(e.searchRaw(CHINESE_QUERY), want);
  } finally {
    e.close();
  }
});

test("the host's request_too_large is the module's own refusal, byte for byte", async () => {
  // 64 KiB + 1 bytes: the largest the module could still be handed; the host
  // refuses it first, with the bytes the module would have answered.
  const request = new TextEncoder().encode(`{"version":"tool-search.v1","query":"q","pad":"${"x".repeat(65537 - 49)}"}`);
  assert.equal(request.byteLength, 65537);
  const inst = await Instance.create(await compiledModule());
  inst.open(DWS);
  const ptr = inst.put(request);
  let fromModule;
  try { inst.take(inst.call("toolsift_search", inst.handle, ptr, request.byteLength, 0)); } catch (err) { fromModule = err.raw; }
  inst.close();
  assert.match(fromModule, /"reason":"request_too_large"/);
  let fromHost;
  try { engine.searchRaw(request); } catch (err) { fromHost = err.raw; }
  assert.equal(fromHost, fromModule);
  // and exactly 64 KiB still reaches the module (which refuses the unknown field)
  const fits = new TextEncoder().encode(`{"version":"tool-search.v1","query":"q","pad":"${"x".repeat(65536 - 49)}"}`);
  assert.equal(fits.byteLength, 65536);
  assert.throws(() => engine.searchRaw(fits), (err) => err.reason === "invalid_request_json");
});

test("a build that runs out of memory is the typed catalog_too_large, not a raw trap (issue 17 item 3)", async () => {
  // An instance here may grow to wasm32's 4 GiB; a catalog that needs all of
  // it is impractical in a test, so most of it is taken first by one real
  // allocation in the module (untouched pages: the process stays small), and
  // the DWS build then runs out of what is left, as a huge catalog would.
  const inst = await Instance.create(await compiledModule());
  assert.notEqual(inst.call("toolsift_alloc", Math.floor(3.95 * 2 ** 30)), 0);
  const catalog = readFileSync(path.join(REPO, "testdata", "dws", "catalog.tar.gz"));
  assert.throws(() => inst.buildSnapshot(new TextEncoder().encode("dws"), catalog), (err) => {
    assert.ok(err instanceof ValidationError, String(err));
    assert.equal(err.reason, "catalog_too_large");
    assert.equal(err.code, 3);
    assert.match(err.message, /memory limit of 4096 MiB/);
    return true;
  });
});

test("the npm tarball carries the licences, the README and the metadata", () => {
  const packed = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: PKG, encoding: "utf8" });
  assert.equal(packed.status, 0, packed.stderr);
  const files = new Set(JSON.parse(packed.stdout)[0].files.map((f) => f.path));
  for (const f of ["LICENSE", "README.md", "data-licenses/dws/LICENSE", "data-licenses/dws/NOTICE", "toolsearch.wasm", "dws.snap", "artifacts.sha256", "package.json"]) {
    assert.ok(files.has(f), `${f} is not in the tarball`);
  }
  assert.equal(readFileSync(path.join(PKG, "LICENSE"), "utf8"), readFileSync(path.join(REPO, "LICENSE"), "utf8"));
  const pj = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8"));
  assert.equal(pj.license, "Apache-2.0");
  assert.match(pj.repository.url, /github\.com\/toolsift\/toolsift/);
  assert.ok(pj.keywords.length > 0);
});

// What the README says a user installs: one runtime dependency, the Node
// versions CI tests declared in engines, and the running Node within them.
test("one runtime dependency, and engines covers the Node this runs on", () => {
  const pj = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8"));
  assert.deepEqual(Object.keys(pj.dependencies), ["@bjorn3/browser_wasi_shim"], "a new runtime dependency: say so in both READMEs (Install)");
  assert.equal(pj.engines.node, ">=20");
  assert.ok(Number(process.versions.node.split(".")[0]) >= 20, `Node ${process.versions.node} is below engines`);
  for (const dev of ["openai", "@anthropic-ai/sdk", "ai", "@openai/agents", "typescript", "playwright-core"]) {
    assert.ok(dev in pj.devDependencies && !(dev in pj.dependencies), `${dev} is for the tests only`);
  }
});

test("the host's limits and refusals are the module's (toolsift_limits)", async () => {
  const limits = await toolsift.moduleLimits();
  assert.equal(limits.maxRequestBytes, 65536);
  assert.equal(limits.values.max_limit, 20);
  assert.equal(limits.values.max_candidate_limit, 100);
  for (const [key, what] of [["search_request_too_large", "tool-search.v1"], ["inspect_request_too_large", "schema-inspect.v1"],
    ["provider_request_too_large", "provider"], ["request_too_large", "the"]]) {
    const err = limits.refusal(key);
    assert.ok(err instanceof ValidationError, key);
    assert.equal(err.raw, `{"error":{"category":"validation","code":3,"message":"${what} request is larger than 65536 bytes","reason":"request_too_large"}}`);
  }
  assert.equal(limits.refusal("no_such_key").reason, "host_failure");
  limits.check(65536, "search_request_too_large"); // exactly the limit passes
  assert.throws(() => limits.check(65537, "search_request_too_large"), ValidationError);
});
