// Lint through this host: the module's toolsift.lint.v1 report of
// testdata/lint/trips.json with its expectations is byte for byte the
// golden the native core wrote (core/lint's TestGolden), as hostapi and the
// Python binding check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { open, fromMCPTools, ValidationError } from "../index.js";
import { PKG, REPO } from "./helpers.mjs";

const DIR = path.join(REPO, "testdata", "lint");
const built = readFileSync(path.join(PKG, "toolsearch.wasm")).includes("toolsift.lint.v1");
const skip = built ? false : "the packaged toolsearch.wasm has no lint op yet: run wasm/build.sh";

test("lint golden: same bytes as the native core", { skip }, async () => {
  const expect = readFileSync(path.join(DIR, "trips.expect.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const list = await fromMCPTools(readFileSync(path.join(DIR, "trips.json")));
  const engine = await open(list.snapshot);
  try {
    const golden = readFileSync(path.join(DIR, "trips.golden.json"), "utf8").replace(/\n$/, "");
    assert.equal(engine.lintRaw({ expect }), golden);
    const report = engine.lint({ expect });
    assert.equal(report.schema, "toolsift.lint.v1");
    assert.deepEqual(report.expectations.map((x) => x.rank), [2, 0, 4, 3]);
    assert.deepEqual(report.findings.filter((f) => f.check === "unreachable").map((f) => f.tool), ["store.list_records"]);
    assert.throws(() => engine.lint({ expect: [{ query: "weather", tool: "store.nope" }] }), (err) => err instanceof ValidationError && err.reason === "unknown_tool");
    assert.throws(() => engine.lint({ expect: [{ query: "weather" }] }), TypeError);
  } finally {
    engine.close();
  }
});
