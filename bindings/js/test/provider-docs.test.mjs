// Every runnable snippet of docs/INTEGRATIONS.md and README.md (```js
// runnable blocks) runs from the repository root and prints what its last
// comment says it prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { PKG, REPO } from "./helpers.mjs";

const built = readFileSync(path.join(PKG, "toolsearch.wasm")).includes("toolsift_provider");
const skip = built ? false : "the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh";

/** The ```js runnable blocks of a Markdown file. */
export function snippets(file) {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/```js runnable\n([\s\S]*?)```/g)].map((m) => m[1]);
}

for (const doc of ["docs/INTEGRATIONS.md", "bindings/js/README.md"]) {
  test(`${doc}: every runnable snippet runs and prints what it says`, { skip }, () => {
    const blocks = snippets(path.join(REPO, doc));
    assert.ok(blocks.length >= 2, `${doc} has ${blocks.length} runnable snippets`);
    blocks.forEach((code, i) => {
      const lines = code.trimEnd().split("\n");
      assert.ok(lines.length < 20, `${doc} snippet ${i + 1} has ${lines.length} lines`);
      const expected = lines[lines.length - 1].split("// ").pop();
      // Inside the package, so that `import … from "toolsift"` resolves to it.
      const file = path.join(PKG, "test", `.snippet-${process.pid}-${i}.mjs`);
      writeFileSync(file, code);
      try {
        const res = spawnSync(process.execPath, [file], { cwd: REPO, encoding: "utf8" });
        assert.equal(res.status, 0, `${doc} snippet ${i + 1}:\n${res.stderr}`);
        assert.equal(res.stdout.trim(), expected, `${doc} snippet ${i + 1}`);
      } finally {
        rmSync(file, { force: true });
      }
    });
  });
}
