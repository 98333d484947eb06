// modulecompare in Node: builds of toolsearch.wasm against each other through
// the npm package, alternated round by round (see main.go beside this file).
//
//   node bench/modulecompare/node.mjs bench/results/data/dws/queries.jsonl /tmp/a.wasm /tmp/b.wasm
import { readFileSync } from "node:fs";
import { open } from "../../bindings/js/index.js";

const [queriesPath, ...modules] = process.argv.slice(2);
if (!queriesPath || modules.length === 0) {
  console.error("usage: node node.mjs queries.jsonl a.wasm [b.wasm …]");
  process.exit(2);
}
const ROUNDS = 7, MILLISECONDS = 1500;
const requests = readFileSync(queriesPath, "utf8").trim().split("\n")
  .map((line) => JSON.stringify({ version: "tool-search.v1", query: JSON.parse(line).text }));
const engines = [];
for (const path of modules) engines.push(await open(undefined, { wasm: await WebAssembly.compile(readFileSync(path)) }));
const perQuery = modules.map(() => []); // µs, one per round
for (let round = 0; round < ROUNDS; round++) {
  engines.forEach((engine, i) => {
    const start = performance.now();
    let n = 0;
    while (performance.now() - start < MILLISECONDS) {
      for (const r of requests) { engine.searchRaw(r); n++; }
    }
    perQuery[i].push(((performance.now() - start) * 1000) / n);
  });
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
modules.forEach((path, i) => {
  console.log(`${path}: median ${median(perQuery[i]).toFixed(1)} µs per query; rounds ${perQuery[i].map((v) => v.toFixed(1)).join(" ")}`);
});
