// An OpenAPI description through this host: the module builds Scalar's
// Galaxy (OpenAPI 3.1) from its YAML and from its JSON into the snapshot the
// Go core builds (its SHA-256 in testdata/openapi/galaxy.snap.sha256), and
// every vector of testdata/openapi/golden.jsonl gets the same bytes or the
// same typed error (as bindings/python/tests/test_openapi.py).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { open, buildSnapshot, ToolsiftError, ValidationError } from "../index.js";
import { REPO } from "./helpers.mjs";

const OPENAPI = path.join(REPO, "testdata", "openapi");

let engine;
before(async () => {
  const want = readFileSync(path.join(OPENAPI, "galaxy.snap.sha256"), "utf8").trim();
  let snap;
  for (const name of ["galaxy-3.1.yaml", "galaxy-3.1.json"]) {
    snap = await buildSnapshot("openapi", new Uint8Array(readFileSync(path.join(OPENAPI, name))));
    assert.equal(createHash("sha256").update(snap).digest("hex"), want, `the module built a different Galaxy snapshot from ${name}`);
  }
  engine = await open(snap);
});
after(() => engine.close());

test("openapi golden vectors", () => {
  const info = engine.info();
  assert.deepEqual([info.format, info.tool_count], ["openapi", 9]);
  const lines = readFileSync(path.join(OPENAPI, "golden.jsonl"), "utf8").split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length >= 18);
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

test("a document that is not OpenAPI is refused", async () => {
  await assert.rejects(buildSnapshot("openapi", { tools: [] }),
    (err) => err instanceof ValidationError && err.reason === "invalid_catalog" && err.message.includes("OpenAPI"));
});
