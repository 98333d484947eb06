// OpenAPI descriptions through this host: the module builds Scalar's Galaxy
// (OpenAPI 3.1, from its YAML and from its JSON) and the Swagger 2.0 Petstore
// (whose findPetsByTags is deprecated) into the snapshots the Go core builds
// (their SHA-256 in testdata/openapi/<name>.snap.sha256), and every vector of
// testdata/openapi/<name>.golden.jsonl gets the same bytes or the same typed
// error (as bindings/python/tests/test_openapi.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { open, buildSnapshot, ToolsiftError, ValidationError } from "../index.js";
import { REPO } from "./helpers.mjs";

const OPENAPI = path.join(REPO, "testdata", "openapi");

// name, the files it is built from, its tool count, its least vector count
// (core/engine's TestOpenAPIGolden writes them).
const SPECS = [
  ["galaxy", ["galaxy-3.1.yaml", "galaxy-3.1.json"], 9, 18],
  ["petstore", ["petstore-swagger2.json"], 20, 8],
];

for (const [name, files, tools, least] of SPECS) {
  test(`openapi golden vectors: ${name}`, async () => {
    const want = readFileSync(path.join(OPENAPI, `${name}.snap.sha256`), "utf8").trim();
    let snap;
    for (const file of files) {
      snap = await buildSnapshot("openapi", new Uint8Array(readFileSync(path.join(OPENAPI, file))));
      assert.equal(createHash("sha256").update(snap).digest("hex"), want, `the module built a different snapshot from ${file}`);
    }
    const engine = await open(snap);
    try {
      const info = engine.info();
      assert.deepEqual([info.format, info.tool_count], ["openapi", tools]);
      const lines = readFileSync(path.join(OPENAPI, `${name}.golden.jsonl`), "utf8").split("\n").filter((l) => l.trim() !== "");
      assert.ok(lines.length >= least);
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
    } finally {
      engine.close();
    }
  });
}

test("a document that is not OpenAPI is refused", async () => {
  await assert.rejects(buildSnapshot("openapi", { tools: [] }),
    (err) => err instanceof ValidationError && err.reason === "invalid_catalog" && err.message.includes("OpenAPI"));
});
