// The component against the core module in one Node process, on the same
// DWS snapshot: a small call (info: no input, ~300 bytes out) and a search
// (the Chinese query of bindings/js/bench.mjs), mean and p50 over N calls
// after a warm-up. The core module goes through bindings/js (its hand glue
// over the WASI shim; needs npm ci there), the component through jco
// transpile (npm test, or this script, writes transpiled/).
//   node bench.mjs [--iterations N]
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { transpile } from "@bytecodealliance/jco";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const REPO = path.resolve(HERE, "..", "..", "..");
const i = process.argv.indexOf("--iterations");
const N = i >= 0 ? Number(process.argv[i + 1]) : 5000;
const REQUEST = '{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}';

const { files } = await transpile(readFileSync(path.join(REPO, "wasm", "toolsift.component.wasm")), { name: "toolsift" });
for (const [name, bytes] of Object.entries(files)) {
  const to = path.join(HERE, "transpiled", name);
  await mkdir(path.dirname(to), { recursive: true });
  await writeFile(to, bytes);
}
const { toolSearch } = await import(path.join(HERE, "transpiled", "toolsift.js"));
const { open } = await import(path.join(REPO, "bindings", "js", "index.js"));

const snap = readFileSync(path.join(REPO, "catalogs", "dws", "dws.snap"));
let t = performance.now();
const component = toolSearch.Engine.open(snap);
const componentOpenMs = performance.now() - t;
t = performance.now();
const core = await open(snap);
const coreOpenMs = performance.now() - t;

function measure(call) {
  for (let k = 0; k < 500; k++) call();
  const us = [];
  for (let k = 0; k < N; k++) {
    const s = performance.now();
    call();
    us.push((performance.now() - s) * 1000);
  }
  us.sort((a, b) => a - b);
  return { mean: us.reduce((a, b) => a + b, 0) / N, p50: us[Math.floor(N / 2)] };
}

if (component.search(REQUEST, false) !== core.searchRaw(REQUEST)) throw new Error("the answers differ");
const rows = [
  ["info, core module", measure(() => core.info())],
  ["info, component", measure(() => component.info())],
  ["search, core module", measure(() => core.searchRaw(REQUEST))],
  ["search, component", measure(() => component.search(REQUEST, false))],
];
console.log(`node ${process.version}, ${N} calls each; open: core module ${coreOpenMs.toFixed(0)} ms (first, compiles), component ${componentOpenMs.toFixed(0)} ms`);
console.log("| call | mean µs | p50 µs |\n|---|---|---|");
for (const [name, r] of rows) console.log(`| ${name} | ${r.mean.toFixed(1)} | ${r.p50.toFixed(1)} |`);
