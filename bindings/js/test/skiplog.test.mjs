// The reporter `npm test` loads (internal/testskip/node-skiplog.mjs): a
// skipped test is appended to TOOLSIFT_SKIP_LOG, one "suite: test: reason"
// line, so that `make test` lists it and fails on it; a test that ran is not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PKG, REPO } from "./helpers.mjs";

test("the skip-log reporter records skips, and only skips", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolsift-skiplog-"));
  try {
    const file = path.join(dir, "sample.test.mjs");
    writeFileSync(file, [
      'import { test } from "node:test";',
      'test("runs", () => {});',
      'test("needs a thing", { skip: "the thing is not installed" }, () => {});',
      'test("skipped without a reason", { skip: true }, () => {});',
      'test("todo", { todo: "later" }, () => {});',
    ].join("\n"));
    const log = path.join(dir, "skips.log");
    const env = { ...process.env, TOOLSIFT_SKIP_LOG: log };
    delete env.NODE_TEST_CONTEXT; // a fresh node --test run, not a child of this one
    const reporter = path.join(REPO, "internal", "testskip", "node-skiplog.mjs");
    const res = spawnSync(process.execPath, ["--test", "--test-reporter=tap", "--test-reporter-destination=stdout",
      `--test-reporter=${reporter}`, "--test-reporter-destination=stderr", file], { cwd: PKG, env, encoding: "utf8" });
    assert.equal(res.status, 0, res.stdout + res.stderr);
    assert.equal(readFileSync(log, "utf8"),
      `node ${file}: needs a thing: the thing is not installed\nnode ${file}: skipped without a reason: skipped\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
