// The CLI (bin/toolsift.mjs): the JSONL batch contract of `wasmhost search --batch`,
// and the error contract (one compact {"error":{...}} line on stderr, exit 3/5/6).
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

test("batch answers equal the library, errors in place, blank lines answered", () => {
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
  const want = requests.map((l) => libraryAnswer(l.replace(/\r$/, "")) + "\n").join("");
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
  assert.equal(e.stderr.toString(), libraryAnswer({ version: "tool-search.v1", query: "", limit: 5, candidate_limit: 20 }) + "\n");

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
  const snap = readFileSync(path.join(REPO, "catalogs", "dws", "dws.snap"));
  const good = path.join(dir, "good.snap");
  writeFileSync(good, snap);
  const r = run(["search", "--snapshot", good, "--batch"], JSON.stringify(CHINESE_QUERY) + "\n");
  assert.equal(r.stdout.toString("utf8"), engine.searchRaw(CHINESE_QUERY) + "\n");
  const bad = path.join(dir, "bad.snap");
  writeFileSync(bad, snap.subarray(0, 1000));
  const b = run(["search", "--snapshot", bad, "--batch"], JSON.stringify(CHINESE_QUERY) + "\n");
  assert.equal(b.status, 3);
  assert.equal(b.stdout.length, 0);
  assert.equal(JSON.parse(b.stderr.toString()).error.reason, "invalid_snapshot");
});

/** The stderr of a failed run: exactly one compact error object and a newline. */
function errorLine(res, label) {
  const text = res.stderr.toString("utf8");
  assert.ok(text.endsWith("\n") && text.indexOf("\n") === text.length - 1, `${label}: not one line: ${JSON.stringify(text)}`);
  const doc = JSON.parse(text);
  assert.deepEqual(Object.keys(doc), ["error"], label);
  assert.equal(JSON.stringify(doc), text.slice(0, -1), `${label}: not compact`);
  assert.equal(res.stdout.length, 0, `${label}: wrote to stdout`);
  return doc.error;
}

test("every CLI error is one compact error line on stderr with exit 3 or 6", () => {
  const snap = readFileSync(path.join(REPO, "catalogs", "dws", "dws.snap"));
  const truncated = path.join(dir, "truncated.snap");
  writeFileSync(truncated, snap.subarray(0, 1000));
  const flipped = path.join(dir, "flipped.snap");
  const f = Buffer.from(snap);
  f[f.length >> 1] ^= 0xff;
  writeFileSync(flipped, f);
  const empty = path.join(dir, "empty.snap");
  writeFileSync(empty, "");
  const catalog = path.join(REPO, "testdata", "dws", "catalog.tar.gz"); // a catalog is not a snapshot
  const { source_hash, surface_hash } = engine.info();
  const hashes = ["--expected-source-hash", "sha256:" + "0".repeat(64), "--expected-surface-hash", "sha256:" + "0".repeat(64)];
  const cases = [
    // [label, args, stdin, exit code, reason]
    ["truncated snapshot", ["search", "--snapshot", truncated, "--query", "x"], "", 3, "invalid_snapshot"],
    ["flipped snapshot byte", ["info", "--snapshot", flipped], "", 3, "invalid_snapshot"],
    ["empty snapshot", ["info", "--snapshot", empty], "", 3, "invalid_snapshot"],
    ["a catalog as the snapshot", ["search", "--snapshot", catalog, "--batch"], "{}\n", 3, "invalid_snapshot"],
    ["missing snapshot", ["inspect", "--snapshot", path.join(dir, "nope.snap"), "--path", "x"], "", 3, "read_snapshot_failed"],
    ["--snapshot \"\"", ["search", "--snapshot", "", "--query", "x"], "", 3, "invalid_snapshot_path"],
    ["a directory as the snapshot", ["info", "--snapshot", dir], "", 3, "read_snapshot_failed"],
    ["/dev/zero as the snapshot", ["info", "--snapshot", "/dev/zero"], "", 3, "read_snapshot_failed"],
    ["empty query", ["search", "--query", ""], "", 3, "query_required"],
    ["limit 21", ["search", "--query", "x", "--limit", "21"], "", 3, "invalid_limit"],
    ["bad transport", ["search", "--request-json", "file.json"], "", 3, "invalid_transport"],
    ["ambiguous", ["inspect", "--request-json", "-", "--path", "x"], "", 3, "ambiguous_input"],
    ["request JSON", ["search", "--request-json", "-"], "{", 3, "invalid_request_json"],
    ["request over 64 KiB", ["search", "--request-json", "-"], "x".repeat(70000), 3, "request_too_large"],
    ["inspect: unknown tool", ["inspect", "--path", "no.such_tool", "--expected-source-hash", source_hash,
      "--expected-surface-hash", surface_hash], "", 3, "unknown_path"],
    ["inspect: catalog changed", ["inspect", "--path", "chat.query_msg_read_status", ...hashes], "", 6, "catalog_changed"],
  ];
  for (const [label, args, input, code, reason] of cases) {
    const res = run(args, input);
    assert.equal(res.status, code, `${label}: exit ${res.status}, stderr ${res.stderr}`);
    const err = errorLine(res, label);
    assert.equal(err.code, code, label);
    if (reason) assert.equal(err.reason, reason, label);
  }
});

test("a hostile snapshot name is escaped and capped in the error line", () => {
  const name = path.join(dir, "a\u202eb\u200b" + "y".repeat(5000));
  const err = errorLine(run(["info", "--snapshot", name]), "hostile name");
  assert.equal(err.reason, "read_snapshot_failed");
  assert.ok(!/[\u202e\u200b]/.test(err.message), err.message);
  assert.ok(err.message.length < 400, `${err.message.length} characters`);
});

test("batch: one answer per input line, blank ones included", () => {
  const lines = ["", " ", "\t", "\r", JSON.stringify(CHINESE_QUERY), "", "\u3000", "{"];
  const res = run(["search", "--batch"], lines.join("\n") + "\n");
  assert.equal(res.status, 0);
  const out = res.stdout.toString("utf8").split("\n");
  assert.equal(out.pop(), "");
  assert.equal(out.length, lines.length);
  for (const [i, l] of lines.entries()) {
    if (i === 4) { assert.equal(out[i], engine.searchRaw(CHINESE_QUERY)); continue; }
    assert.equal(JSON.parse(out[i]).error.reason, "invalid_request_json", `line ${i}: ${out[i]}`);
    assert.equal(out[i], libraryAnswer(l.replace(/\r$/, "")), `line ${i}`);
  }
  // a last line without its "\n" is a line; the empty piece after a final "\n" is not
  assert.equal(run(["search", "--batch"], "\n ").stdout.toString().split("\n").length - 1, 2);
  assert.equal(run(["search", "--batch"], "").stdout.length, 0);
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

let goBin = null;
function goCLI(args, input) {
  if (goBin === null) {
    goBin = path.join(dir, "wasmhost");
    const b = spawnSync("go", ["build", "-o", goBin, "./cmd/wasmhost"], { cwd: REPO });
    assert.equal(b.status, 0, b.stderr.toString());
  }
  return spawnSync(goBin, args, { cwd: REPO, input, maxBuffer: 256 << 20 });
}
const goCheck = haveGo && process.env.TOOLSIFT_GO_CHECK === "1" ? false : "set TOOLSIFT_GO_CHECK=1 (needs Go) to compare with the Go CLI";

test("batch with blank and bad lines is byte-identical to wasmhost search --batch", { skip: goCheck }, () => {
  const input = ["", JSON.stringify(CHINESE_QUERY), "  ", "\r", "{", "\t", JSON.stringify({ version: "tool-search.v1", query: "q", limit: 21 }), ""].join("\n");
  const go = goCLI(["search", "--batch"], input);
  const js = run(["search", "--batch"], input);
  assert.equal(go.status, 0, go.stderr.toString());
  assert.equal(js.stdout.toString("utf8"), go.stdout.toString("utf8"));
});

test("error lines and exit codes are byte-identical to wasmhost", { skip: goCheck }, () => {
  const hashes = ["--expected-source-hash", "sha256:" + "0".repeat(64), "--expected-surface-hash", "sha256:" + "0".repeat(64)];
  for (const [args, input] of [
    [["search", "--query", ""], ""],
    [["search", "--request-json", "-"], "{"],
    [["search", "--request-json", "-"], "x".repeat(70000)],
    [["search", "--batch", "--query", "x"], ""],
    [["inspect", "--path", "chat.query_msg_read_status", ...hashes], ""],
    [["info", "--snapshot", ""], ""],
    [["info", "--snapshot", path.join(dir, "nope.snap")], ""],
    [["info", "--snapshot", dir], ""],
    [["info", "--snapshot", "/dev/zero"], ""],
    [["search", "--snapshot", path.join(REPO, "testdata", "dws", "catalog.tar.gz"), "--query", "x"], ""],
  ]) {
    const go = goCLI(args, input);
    const js = run(args, input);
    assert.equal(js.status, go.status, args.join(" "));
    assert.equal(js.stderr.toString("utf8"), go.stderr.toString("utf8"), args.join(" "));
  }
});

test("--version and version print the module's version line, byte-identical to wasmhost", { skip: goCheck }, () => {
  const pkg = JSON.parse(readFileSync(path.join(PKG, "package.json"), "utf8"));
  for (const args of [["--version"], ["version"], ["-version"]]) {
    const go = goCLI(args, "");
    const js = run(args, "");
    assert.equal(js.status, 0, js.stderr.toString());
    assert.equal(js.stdout.toString("utf8"), go.stdout.toString("utf8"), args.join(" "));
    assert.equal(JSON.parse(js.stdout.toString("utf8")).version, pkg.version);
  }
});
