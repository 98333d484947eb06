// Without Chromium the browser tests must not pass quietly: under CI=true they
// fail, locally they are skipped with a warning, and the static server's test
// (which needs no browser) runs either way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { PKG } from "./helpers.mjs";

function runBrowserTests(extraEnv) {
  const env = { ...process.env, CHROMIUM_PATH: path.join(PKG, "no-such-dir", "chromium"), ...extraEnv };
  delete env.NODE_TEST_CONTEXT; // a fresh node --test run, not a child of this one
  if (!("CI" in extraEnv)) delete env.CI;
  const res = spawnSync(process.execPath, ["--test", "--test-reporter=tap", "test/browser.test.mjs"], { cwd: PKG, env, encoding: "utf8" });
  return { status: res.status, out: res.stdout + res.stderr };
}

test("no Chromium under CI=true: the browser tests fail, the static server test passes", () => {
  const { status, out } = runBrowserTests({ CI: "true" });
  assert.notEqual(status, 0, out);
  assert.match(out, /^ok \d+ - static server: content types and no escape from the package$/m);
  assert.match(out, /^not ok \d+ - playground \(desktop\)/m);
  assert.match(out, /CI=true requires the browser tests/);
});

test("no Chromium locally: a warning, the browser tests skipped, the static server test run", () => {
  const { status, out } = runBrowserTests({});
  assert.equal(status, 0, out);
  assert.match(out, /WARNING: no Chromium at .*no-such-dir/);
  assert.match(out, /^ok \d+ - static server: content types and no escape from the package$/m);
  assert.match(out, /^ok \d+ - playground \(desktop\).* # SKIP/m);
  const note = spawnSync(process.execPath, ["test/browser-note.mjs"], {
    cwd: PKG, encoding: "utf8", env: { ...process.env, CI: "", CHROMIUM_PATH: path.join(PKG, "no-such-dir", "chromium") } });
  assert.match(note.stderr, /browser tests were SKIPPED/);
});
