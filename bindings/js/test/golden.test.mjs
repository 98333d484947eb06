// Golden conformance: every line of the DWS golden sets, through searchRaw /
// inspectRaw, must give exactly the reference's wire bytes or the typed error
// with the reference's category and reason (as bindings/python/tests/test_golden.py).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { open, ToolsiftError } from "../index.js";
import { goldenLines } from "./helpers.mjs";

const SEARCH_SETS = ["misc.jsonl.gz", "workflows.jsonl.gz", "identity.jsonl.gz",
  "intent_use_when.jsonl.gz", "forbidden_avoid_when.jsonl.gz"];

// Inspect cases that exercise CLI flags a JSON request cannot express.
const INSPECT_CLI_ONLY = new Set(["missing_compact", "with_all", "with_fields", "with_jq", "format_table"]);

let engine;
before(async () => { engine = await open(); });
after(() => engine.close());

/** null when the answer matches the golden line, else a description. */
function mismatch(call, request, line, missingReason = "") {
  let out;
  try {
    out = call(request);
  } catch (err) {
    if (!(err instanceof ToolsiftError)) throw err;
    const want = line.error;
    if (!want) return `unexpected error ${err.message}`;
    const reason = want.reason || missingReason;
    if (err.category === want.category && err.reason === reason) return null;
    return `error ${err.category}/${err.reason}, want ${want.category}/${reason}`;
  }
  if (line.wire_response == null) return `answered ${out.slice(0, 120)}, want error ${JSON.stringify(line.error)}`;
  if (out === line.wire_response) return null;
  return `bytes differ: got ${out.slice(0, 200)}`;
}

function replay(label, lines, call, toRequest, missingReason) {
  let identical = 0;
  const failures = [];
  lines.forEach((line, i) => {
    const request = toRequest(line);
    const problem = mismatch(call, request, line, missingReason);
    if (problem === null) identical++;
    else if (failures.length < 10) failures.push(`line ${i + 1} ${JSON.stringify(request).slice(0, 200)}: ${problem}`);
  });
  console.log(`${label}: ${identical} / ${lines.length} identical`);
  assert.deepEqual(failures, []);
  assert.equal(identical, lines.length);
  assert.ok(lines.length > 0);
}

for (const name of SEARCH_SETS) {
  test(`golden search ${name}`, () => {
    replay(name, goldenLines(name), (r) => engine.searchRaw(r),
      (line) => ({ version: "tool-search.v1", ...line.request }));
  });
}

test("golden inspect", () => {
  const lines = goldenLines("inspect.jsonl.gz").filter((l) => l.set === "inspect");
  assert.ok(lines.length > 1000);
  replay("inspect", lines, (r) => engine.inspectRaw(r), (line) => line.request);
});

test("golden inspect errors", () => {
  // The reference gives no reason for an unknown path; the module says unknown_path.
  const lines = goldenLines("inspect.jsonl.gz")
    .filter((l) => l.set === "inspect_error" && !INSPECT_CLI_ONLY.has(l.case));
  replay("inspect_error", lines, (r) => engine.inspectRaw(r), (line) => line.request, "unknown_path");
});
