// The generic catalog (a multi-server MCP catalog) through this host: the
// module builds the same snapshot bytes as the Go core (profile generic-v3,
// the format's default; their SHA-256 is
// testdata/generic/mcp-generic-v3.snap.sha256), and every vector of every
// generic profile (golden-generic-v3.jsonl over that snapshot, golden.jsonl
// for generic-v2 over the committed mcp.snap, golden-generic-v1.jsonl over
// mcp-generic-v1.snap) gets the same bytes or the same typed error (as
// bindings/python/tests/test_generic.py).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import path from "node:path";
import { open, buildSnapshot, fromOpenAITools, fromAnthropicTools, fromMCPTools, ToolsiftError, ValidationError } from "../index.js";
import { REPO } from "./helpers.mjs";

const GENERIC = path.join(REPO, "testdata", "generic");

let engine;
let engineV2;
let engineV1;
before(async () => {
  const catalog = gunzipSync(readFileSync(path.join(GENERIC, "livemcpbench-mcp.json.gz")));
  const snap = await buildSnapshot("mcp", new Uint8Array(catalog));
  const want = readFileSync(path.join(GENERIC, "mcp-generic-v3.snap.sha256"), "ascii").trim();
  assert.equal(createHash("sha256").update(snap).digest("hex"), want, "the module built a different generic snapshot");
  engine = await open(snap);
  engineV2 = await open(new Uint8Array(readFileSync(path.join(GENERIC, "mcp.snap"))));
  engineV1 = await open(new Uint8Array(readFileSync(path.join(GENERIC, "mcp-generic-v1.snap"))));
});
after(() => {
  engine.close();
  engineV2.close();
  engineV1.close();
});

test("generic catalog info", () => {
  let info = engine.info();
  assert.deepEqual([info.profile, info.format, info.tool_count], ["generic-v3", "mcp", 527]);
  info = engineV2.info();
  assert.deepEqual([info.profile, info.format, info.tool_count], ["generic-v2", "mcp", 527]);
  info = engineV1.info();
  assert.deepEqual([info.profile, info.format, info.tool_count], ["generic-v1", "mcp", 527]);
});

function replay(e, file) {
  const lines = readFileSync(path.join(GENERIC, file), "utf8").split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length > 25);
  for (const line of lines) {
    const v = JSON.parse(line);
    const request = JSON.stringify(v.request);
    const call = v.kind === "inspect" ? (r) => e.inspectRaw(r) : (r) => e.searchRaw(r);
    if (v.error) {
      assert.throws(() => call(request), (err) => err instanceof ToolsiftError && err.category === v.error.category && err.reason === v.error.reason, request);
    } else {
      assert.equal(call(request), v.response, request);
    }
  }
}

test("generic golden vectors (generic-v3)", () => replay(engine, "golden-generic-v3.jsonl"));

test("generic golden vectors (generic-v2)", () => replay(engineV2, "golden.jsonl"));

test("generic golden vectors (generic-v1)", () => replay(engineV1, "golden-generic-v1.jsonl"));

test("a bad generic catalog names the entry", async () => {
  await assert.rejects(buildSnapshot("mcp", { servers: { github: { tools: [{ description: "no name" }] } } }),
    (err) => err instanceof ValidationError && err.reason === "invalid_catalog" && err.message.includes('servers["github"]') && err.message.includes("tools[0]"));
});

// A catalog nested deeper than the core's bound (512 levels) is refused as
// invalid_catalog in every format and every import, as in Python, where
// 8,000 levels used to overflow wasmtime's stack.
test("deep nesting is invalid_catalog in every format", async () => {
  for (const levels of [514, 8000, 9998]) {
    const half = levels / 2;
    const deep = '{"a":['.repeat(half) + "]}".repeat(half);
    const catalogs = {
      toolsift: `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"x","input_schema":${deep}}]}]}`,
      mcp: `{"tools":[{"name":"x","inputSchema":{"type":"object","properties":{"q":${deep}}}}]}`,
      openai: `[{"type":"function","name":"x","parameters":${deep}}]`,
      anthropic: `[{"name":"x","input_schema":${deep}}]`,
      beir: `{"id":"x","description":"d","doc":${deep}}`,
      dws: `{"catalog.json":${deep}}`,
    };
    for (const [format, text] of Object.entries(catalogs)) {
      await assert.rejects(buildSnapshot(format, text),
        (err) => err instanceof ValidationError && err.reason === "invalid_catalog" && err.message.includes("nested more than 512 levels deep"), `${format}, ${levels}`);
    }
    for (const [format, load] of [["openai", fromOpenAITools], ["anthropic", fromAnthropicTools], ["mcp", fromMCPTools]]) {
      await assert.rejects(load(catalogs[format]), (err) => err instanceof ValidationError && err.reason === "invalid_catalog", `${format}, ${levels}`);
    }
  }
});
