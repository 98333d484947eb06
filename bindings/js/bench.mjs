#!/usr/bin/env node
// Benchmark: searchRaw latency (p50/p99 over 2,000 calls after warm-up) and
// open() cold (first in the process: read + compile the module, read the
// snapshot, instantiate, open) and warm (module compiled, snapshot cached).
//   node bench.mjs [--iterations N]
import { performance } from "node:perf_hooks";
import os from "node:os";

const i = process.argv.indexOf("--iterations");
const N = i >= 0 ? Number(process.argv[i + 1]) : 2000;
const REQUEST = '{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}';

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

let t = performance.now();
const { open } = await import("./index.js");
const importMs = performance.now() - t;

t = performance.now();
const engine = await open();
const coldMs = performance.now() - t;

const warm = [];
for (let k = 0; k < 5; k++) {
  t = performance.now();
  const e = await open();
  warm.push(performance.now() - t);
  e.close();
}
warm.sort((a, b) => a - b);

for (let k = 0; k < 200; k++) engine.searchRaw(REQUEST); // warm-up
const us = [];
for (let k = 0; k < N; k++) {
  t = performance.now();
  engine.searchRaw(REQUEST);
  us.push((performance.now() - t) * 1000);
}
us.sort((a, b) => a - b);
const mean = us.reduce((a, b) => a + b, 0) / us.length;
engine.close();

const out = {
  node: process.version,
  cpu: os.cpus()[0]?.model,
  cpus: os.cpus().length,
  loadavg: os.loadavg().map((x) => x.toFixed(2)).join(" "),
  import_ms: +importMs.toFixed(1),
  open_cold_ms: +coldMs.toFixed(1),
  open_warm_ms_median: +warm[Math.floor(warm.length / 2)].toFixed(1),
  open_warm_ms_min: +warm[0].toFixed(1),
  search_iterations: N,
  search_p50_us: +pct(us, 50).toFixed(1),
  search_p99_us: +pct(us, 99).toFixed(1),
  search_mean_us: +mean.toFixed(1),
  search_max_us: +us[us.length - 1].toFixed(1),
};
console.log(JSON.stringify(out, null, 2));
