// The CLI (bin/toolsift.mjs): the JSONL batch contract of `wasmhost search --batch`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { open } from "../index.js";
import { PKG, REPO, CHINESE_QUERY, goldenLines } from "./helpers.mjs";

const BIN = path.join(PKG, "bin", "toolsift.mjs");
const run = (args, input) => spawnSync(process.execPath, [BIN, ...args], { input, maxBuffer: 256 << 20 });

let engine;
let dir;
before(async () => { engine = await open(); dir = mkdtempSync(path.join(tmpdir(), "toolsift-cli-")); });
after(() => { engine.close(); rmSync(dir, { recursive: true, force: true }); });

const TOO_LARGE = '{"error":{"category":"validation","code":3,"message":"the request is larger than 65536 bytes","reason":"request_too_large"}}';

function libraryAnswer(line) {
  try { return engine.searchRaw(line); } catch (err) { return err.raw; }
}

test("batch answers equal the library, errors in place, blank lines skipped", () => {
  const requests = [
    JSON.stringify(CHINESE_QUERY),
    "",
    "   \t",
    JSON.stringify({ version: "tool-search.v1", query: "查询群消息已读状态" }) + "\r",
    "{",
    JSON.stringify({ version: "tool-search.v1", query: "" }),
    JSON.stringify({ version: "tool-search.v1", query: "q", limit: 21 }),
    ...goldenLines("workflows.jsonl.gz").slice(0, 5).map((l) => JSON.stringify({ version: "tool-search.v1", ...l.request })),
  ];
  const res = run(["search", "--batch"], requests.join("\n") + "\n");
  assert.equal(res.status, 0, res.stderr.toString());
  const want = requests.filter((l) => l.trim() !== "").map((l) => libraryAnswer(l.replace(/\r$/, "")) + "\n").join("");
  assert.equal(res.stdout.toString("utf8"), want);
  assert.equal(res.stderr.length, 0);
});

test("batch: oversized lines (the Go CLI's buffer of 64 KiB + 2)", () => {
  const base = '{"version":"tool-search.v1","query":"q","p":"';
  const line = (n) => base + "x".repeat(n - base.length - 2) + '"}';
  const input = [line(65536), line(65537), line(65538), "y".repeat(200000), JSON.stringify(CHINESE_QUERY)].join("\n");
  const out = run(["search", "--batch"], input).stdout.toString("utf8").split("\n");
  assert.equal(out.length, 6);
  assert.equal(out[0], libraryAnswer(line(65536))); // the module answers (an unknown field here)
  assert.match(out[1], /"reason":"request_too_large"/); // 65,537 bytes: the module refuses it
  assert.notEqual(out[1], TOO_LARGE);
  assert.equal(out[2], TOO_LARGE); // does not fit the buffer: the host answers
  assert.equal(out[3], TOO_LARGE);
  assert.equal(out[4], engine.searchRaw(CHINESE_QUERY));
  assert.equal(out[5], "");
});

test("search --query, inspect, info, errors and exit codes", () => {
  const q = run(["search", "--query", "查询群消息已读状态", "--limit", "3"]);
  assert.equal(q.status, 0);
  assert.equal(q.stdout.toString("utf8"),
    engine.searchRaw({ version: "tool-search.v1", query: "查询群消息已读状态", limit: 3, candidate_limit: 20 }) + "\n");

  const { source_hash, surface_hash } = engine.info();
  const req = { version: "schema-inspect.v1", canonical_path: "chat.query_msg_read_status",
    expected_source_hash: source_hash, expected_surface_hash: surface_hash };
  const i = run(["inspect", "--request-json", "-"], JSON.stringify(req));
  assert.equal(i.status, 0);
  assert.equal(i.stdout.toString("utf8"), engine.inspectRaw(req) + "\n");

  const e = run(["search", "--query", ""]);
  assert.equal(e.status, 3);
  assert.equal(e.stdout.length, 0);
  assert.equal(JSON.parse(e.stderr.toString()).error.reason, "query_required");
  assert.ok(e.stderr.toString().startsWith('{\n  "error": {\n    "category": "validation",'));

  const amb = run(["search", "--batch", "--query", "x"], "");
  assert.equal(amb.status, 3);
  assert.equal(JSON.parse(amb.stderr.toString()).error.reason, "ambiguous_input");

  const info = JSON.parse(run(["info"]).stdout.toString());
  assert.equal(info.engine, "wasm");
  assert.equal(info.tool_count, 1122);

  assert.equal(run(["search", "--bogus"]).status, 2);
  assert.equal(run([]).status, 2);
});

test("--snapshot: a file, and a corrupted one", () => {
  const snap = readFileSync(path.join(REPO, "testdata", "dws", "dws.snap"));
  const good = path.join(dir, "good.snap");
  writeFileSync(good, snap);
  const r = run(["search", "--snapshot", good, "--batch"], JSON.stringify(CHINESE_QUERY) + "\n");
  assert.equal(r.stdout.toString("utf8"), engine.searchRaw(CHINESE_QUERY) + "\n");
  const bad = path.join(dir, "bad.snap");
  writeFileSync(bad, snap.subarray(0, 1000));
  const b = run(["search", "--snapshot", bad, "--batch"], JSON.stringify(CHINESE_QUERY) + "\n");
  assert.equal(b.status, 1);
  assert.match(b.stderr.toString(), /open snapshot in the module: .*invalid_snapshot/);
});

const haveGo = spawnSync("go", ["version"]).status === 0;
test("batch output is byte-identical to `go run ./cmd/wasmhost search --batch` (golden requests)",
  { skip: haveGo && process.env.TOOLSIFT_GO_CHECK === "1" ? false : "set TOOLSIFT_GO_CHECK=1 (needs Go) to compare with the Go CLI" }, () => {
    const input = ["misc", "workflows", "intent_use_when"].flatMap((n) => goldenLines(`${n}.jsonl.gz`))
      .map((l) => JSON.stringify({ version: "tool-search.v1", ...l.request })).join("\n") + "\n";
    const go = spawnSync("go", ["run", "./cmd/wasmhost", "search", "--batch"], { cwd: REPO, input, maxBuffer: 256 << 20 });
    assert.equal(go.status, 0, go.stderr.toString());
    const js = run(["search", "--batch"], input);
    assert.ok(js.stdout.equals(go.stdout), "JS CLI output differs from the Go CLI");
    console.log(`go vs js batch: ${js.stdout.toString().split("\n").length - 1} lines identical`);
  });
