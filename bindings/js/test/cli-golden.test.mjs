// bin/toolsift.mjs against testdata/cli/golden.txt, the command lines every
// CLI (wasmhost, python -m toolsift, this one) answers with the same bytes:
// its header says the format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PKG, REPO } from "./helpers.mjs";

const BIN = path.join(PKG, "bin", "toolsift.mjs");
const GOLDEN = path.join(REPO, "testdata", "cli", "golden.txt");

function parse(text) {
  const cases = [];
  let cur = null;
  text.split("\n").forEach((line, i) => {
    if (line.startsWith("=== ")) {
      cur = { name: line.slice(4), args: null, stdin: "", repeat: 1, exit: null, stderr: "", stdout: "" };
      cases.push(cur);
    } else if (cur === null) {
      // the header's comment
    } else if (line === ">" || line.startsWith("> ")) {
      cur.stdout += line.slice(2) + "\n";
    } else if (line !== "") {
      const at = line.indexOf(":");
      const key = line.slice(0, at);
      let value = line.slice(at + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (key === "args") cur.args = JSON.parse(value);
      else if (key === "stdin") cur.stdin = JSON.parse(value);
      else if (key === "stdin-repeat") cur.repeat = Number(value);
      else if (key === "exit") cur.exit = Number(value);
      else if (key === "stderr") cur.stderr = value;
      else throw new Error(`${GOLDEN} line ${i + 1}: unknown key ${key}`);
    }
  });
  return cases;
}

const CASES = parse(readFileSync(GOLDEN, "utf8"));

test("the golden file has cases", () => {
  assert.ok(CASES.length >= 10);
  for (const c of CASES) assert.ok(Array.isArray(c.args) && Number.isInteger(c.exit), c.name);
});

for (const c of CASES) {
  test(`cli golden: ${c.name}`, (t) => {
    const cwd = mkdtempSync(path.join(tmpdir(), "toolsift-cli-golden-"));
    t.after(() => rmSync(cwd, { recursive: true, force: true }));
    const res = spawnSync(process.execPath, [BIN, ...c.args], { input: c.stdin.repeat(c.repeat), cwd, maxBuffer: 64 << 20 });
    const stderr = res.stderr.toString("utf8");
    assert.equal(res.status, c.exit, stderr);
    assert.equal(stderr.replace(/\n$/, ""), c.stderr);
    assert.equal(res.stdout.toString("utf8"), c.stdout);
  });
}
