// The generic-v1 catalog (a multi-server MCP catalog) through this host: the
// module builds the same snapshot bytes as the Go core, and every vector of
// testdata/generic/golden.jsonl gets the same bytes or the same typed error
// (as bindings/python/tests/test_generic.py).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import path from "node:path";
import { open, buildSnapshot, ToolsiftError, ValidationError } from "../index.js";
import { REPO } from "./helpers.mjs";

const GENERIC = path.join(REPO, "testdata", "generic");

let engine;
before(async () => {
  const catalog = gunzipSync(readFileSync(path.join(GENERIC, "livemcpbench-mcp.json.gz")));
  const snap = await buildSnapshot("mcp", new Uint8Array(catalog));
  assert.ok(Buffer.from(snap).equals(readFileSync(path.join(GENERIC, "mcp.snap"))), "the module built a different generic snapshot");
  engine = await open(snap);
});
after(() => engine.close());

test("generic catalog info", () => {
  const info = engine.info();
  assert.deepEqual([info.profile, info.format, info.tool_count], ["generic-v1", "mcp", 527]);
});

test("generic golden vectors", () => {
  const lines = readFileSync(path.join(GENERIC, "golden.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length > 25);
  for (const line of lines) {
    const v = JSON.parse(line);
    const request = JSON.stringify(v.request);
    const call = v.kind === "inspect" ? (r) => engine.inspectRaw(r) : (r) => engine.searchRaw(r);
    if (v.error) {
      assert.throws(() => call(request), (err) => err instanceof ToolsiftError && err.category === v.error.category && err.reason === v.error.reason, request);
    } else {
      assert.equal(call(request), v.response, request);
    }
  }
});

test("a bad generic catalog names the entry", async () => {
  await assert.rejects(buildSnapshot("mcp", { servers: { github: { tools: [{ description: "no name" }] } } }),
    (err) => err instanceof ValidationError && err.reason === "invalid_catalog" && err.message.includes('servers["github"]') && err.message.includes("tools[0]"));
});
