import { test } from "node:test";
import assert from "node:assert/strict";
import { PreopenDirectory, OpenFile, ConsoleStdout } from "@bjorn3/browser_wasi_shim";
import { sandbox } from "../src/runtime.js";
import { open } from "../index.js";

test("the module gets no arguments, no environment and no directory", async () => {
  const { args, env, fds } = sandbox(() => {});
  assert.deepEqual(args, []);
  assert.deepEqual(env, []);
  assert.equal(fds.length, 3, "stdin, stdout, stderr and nothing else");
  assert.ok(fds[0] instanceof OpenFile);
  assert.ok(fds[1] instanceof ConsoleStdout && fds[2] instanceof ConsoleStdout);
  assert.ok(!fds.some((fd) => fd instanceof PreopenDirectory));
  // And an engine built on it answers.
  const engine = await open();
  assert.equal(engine.search({ version: "tool-search.v1", query: "chat.send_message" }).strategy.length > 0, true);
  engine.close();
});
