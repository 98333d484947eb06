// index.d.ts: tsc --noEmit over test/types/requests.ts, where well-formed
// requests must type-check and misspelled or mistyped ones must not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { PKG } from "./helpers.mjs";

test("typed requests: tsc --noEmit over test/types/requests.ts", () => {
  // typescript is a devDependency: npm ci installs it.
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const res = spawnSync(process.execPath, [tsc, "-p", path.join(PKG, "test", "types", "tsconfig.json")], { cwd: PKG, encoding: "utf8" });
  assert.equal(res.status, 0, `tsc:\n${res.stdout}${res.stderr}`);
});
