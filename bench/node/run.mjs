#!/usr/bin/env node
// The Node runner of `make bench`: toolsift (the npm package, bindings/js)
// and the libraries a Node user would pick instead, measured the same way
// as bench/harness does for Go (see bench/README.md).
//   node --expose-gc run.mjs --engine toolsift|minisearch|flexsearch|orama \
//        --catalog dws --data ../results/data --seconds 2 --out result.json
import fs from "node:fs";
import path from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";

const FIELDS = ["identity", "summary", "description", "parameters", "use_when"];
const BOOST = { identity: 8, summary: 5, description: 2, parameters: 2, use_when: 3 };
const HAN = /\p{Script=Han}/u;

function flags(argv) {
  const o = { engine: "toolsift", catalog: "dws", data: "../results/data", seconds: 2, out: "", queries: 0, budget: 120 };
  for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
  o.seconds = Number(o.seconds);
  o.queries = Number(o.queries);
  o.budget = Number(o.budget);
  return o;
}

function readJSONL(file) {
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
}

function version(pkg) {
  const file = new URL(`node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(file, "utf8")).version;
}

// minisearch has no Chinese tokenizer: like bleve's CJK analyzer, Han runs
// give their characters and bigrams; other text splits on non-letters and
// is lowercased.
function bigramTokenize(text) {
  const out = [];
  for (const run of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (!HAN.test(run)) { out.push(run); continue; }
    let latin = "";
    const chars = [...run];
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (!HAN.test(c)) { latin += c; continue; }
      if (latin) { out.push(latin); latin = ""; }
      out.push(c);
      if (i + 1 < chars.length && HAN.test(chars[i + 1])) out.push(c + chars[i + 1]);
    }
    if (latin) out.push(latin);
  }
  return out;
}

// Each opener builds or opens an engine and returns { search(q) → answer,
// ranked(answer) → ids, close() }.
const openers = {
  async toolsift(o) {
    const { open } = await import("toolsift");
    const snap = fs.readFileSync(path.join(o.data, o.catalog, "catalog.snap"));
    return {
      library: `toolsift ${version("toolsift")} (bindings/js), Node ${process.version}`,
      ranking: "fielded BM25 (profile of the snapshot), dws-v1 tokenizer",
      openWhat: "open(): cold = first in process (compiles the module), warm = compiled; instantiate + open the snapshot",
      async open() {
        const e = await open(snap);
        return {
          search: (q) => e.searchRaw(JSON.stringify({ version: "tool-search.v1", query: q, limit: 10, candidate_limit: 20 })),
          ranked: (raw) => JSON.parse(raw).candidates.map((c) => c.canonical_path),
          close: () => e.close(),
        };
      },
    };
  },
  async minisearch(o, tools) {
    const { default: MiniSearch } = await import("minisearch");
    const docs = tools.map((t) => Object.fromEntries([["id", t.id], ...FIELDS.map((f, i) => [f, t.fields[i]])]));
    return {
      library: `minisearch ${version("minisearch")}`,
      ranking: "BM25+ over 5 fields with the profile's boosts; Han unigram+bigram tokenizer written in the runner",
      openWhat: "build the index from the tool texts",
      async open() {
        const ms = new MiniSearch({ fields: FIELDS, idField: "id", tokenize: bigramTokenize, searchOptions: { boost: BOOST } });
        ms.addAll(docs);
        return { search: (q) => ms.search(q), ranked: (r) => r.slice(0, 10).map((h) => h.id), close() {} };
      },
    };
  },
  async flexsearch(o, tools) {
    const { Index, Charset } = await import("flexsearch");
    const han = tools.some((t) => HAN.test(t.fields.join(" ")));
    return {
      library: `flexsearch ${version("flexsearch")}`,
      ranking: `its own contextual scoring over the concatenated fields (no field boosts), encoder ${han ? "Charset.CJK" : "Charset.Default (no Han text)"}, suggest on`,
      openWhat: "build the index from the tool texts",
      async open() {
        const ix = new Index({ encoder: han ? Charset.CJK : Charset.Default });
        tools.forEach((t, i) => ix.add(i, t.fields.join(" ")));
        return {
          search: (q) => ix.search(q, { limit: 10, suggest: true }),
          ranked: (r) => r.map((i) => tools[i].id),
          close() {},
        };
      },
    };
  },
  async orama(o, tools) {
    const { create, insertMultiple, search } = await import("@orama/orama");
    const { createTokenizer } = await import("@orama/tokenizers/mandarin");
    const docs = tools.map((t) => Object.fromEntries([["id", t.id], ...FIELDS.map((f, i) => [f, t.fields[i]])]));
    return {
      library: `@orama/orama ${version("@orama/orama")} + @orama/tokenizers/mandarin`,
      ranking: "BM25 over 5 fields with the profile's boosts, Mandarin tokenizer (Intl.Segmenter), threshold 1",
      openWhat: "build the index from the tool texts",
      async open() {
        const db = create({
          schema: Object.fromEntries(FIELDS.map((f) => [f, "string"])),
          components: { tokenizer: createTokenizer() },
        });
        const r = insertMultiple(db, docs, 1000);
        if (r instanceof Promise) await r;
        const props = FIELDS.filter((f) => docs.some((d) => d[f]));
        return {
          search: (q) => search(db, { term: q, properties: props, boost: BOOST, limit: 10, threshold: 1 }),
          ranked: (r) => r.hits.map((h) => h.id),
          close() {},
        };
      },
    };
  },
};

function rss() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().rss;
}

// warmUp answers up to 20 queries, for at most 5 s.
function warmUp(e, queries) {
  const start = performance.now();
  for (const q of queries.slice(0, 20)) {
    if (performance.now() - start > 5000) break;
    e.search(q.text);
  }
}

const pct = (sorted, p) => sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];

async function main() {
  const o = flags(process.argv.slice(2));
  const dir = path.join(o.data, o.catalog);
  const tools = o.engine === "toolsift" ? [] : readJSONL(path.join(dir, "tools.jsonl"));
  let queries = readJSONL(path.join(dir, "queries.jsonl"));
  if (o.queries > 0) queries = queries.slice(0, o.queries);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, "meta.json"), "utf8"));
  const res = {
    engine: o.engine === "toolsift" ? "toolsift wasm (Node)" : o.engine, host: "node",
    catalog: o.catalog, tools: meta.tools, queries: queries.length, queries_total: queries.length,
    memory_how: "RSS delta", started_at: new Date().toISOString(),
    loadavg: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  };
  const write = () => {
    const data = JSON.stringify(res, null, 1) + "\n";
    if (o.out) fs.writeFileSync(o.out, data); else process.stdout.write(data);
  };
  try {
    const spec = await openers[o.engine](o, tools);
    Object.assign(res, { library: spec.library, ranking: spec.ranking, open_what: spec.openWhat });
    const rss0 = rss();
    let t = performance.now();
    const e = await spec.open();
    res.open_cold_ms = performance.now() - t;
    res.memory_mib = (rss() - rss0) / 2 ** 20;
    if (o.engine === "toolsift" || res.open_cold_ms < 10000) {
      t = performance.now();
      const again = await spec.open();
      res.open_warm_ms = performance.now() - t;
      again.close();
    }
    warmUp(e, queries);
    const lat = [];
    let total = 0;
    res.rankings = [];
    for (let pass = 0; pass === 0 || total < o.seconds * 1000; pass++) {
      for (const [i, q] of queries.entries()) {
        if (pass === 0 && o.budget > 0 && total > o.budget * 1000) {
          // Too slow to answer every query in the budget: quality and
          // latency come from the queries answered.
          queries = queries.slice(0, i);
          res.queries = i;
          break;
        }
        t = performance.now();
        const answer = e.search(q.text);
        const d = performance.now() - t;
        if (pass === 0) res.rankings.push(e.ranked(answer).slice(0, 10));
        lat.push(d);
        total += d;
      }
    }
    lat.sort((a, b) => a - b);
    Object.assign(res, {
      latency_samples: lat.length, p50_us: pct(lat, 50) * 1000, p99_us: pct(lat, 99) * 1000,
      mean_us: (total / lat.length) * 1000, qps_1: lat.length / (total / 1000),
    });
    if (res.open_cold_ms < 30000) {
      res.qps_2 = await twoWorkers({ ...o, queries: res.queries });
      res.qps_2_note = "two worker_threads, each with its own engine";
    } else {
      res.qps_2_note = "not measured here: each worker would rebuild the index (over 30 s)";
    }
  } catch (err) {
    res.error = String(err?.stack ?? err).split("\n").slice(0, 3).join(" | ");
  }
  write();
}

// twoWorkers runs two worker threads, each opening its own engine, and
// counts the queries both answer in o.seconds once both are ready.
async function twoWorkers(o) {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const workers = [0, 1].map((w) => new Worker(new URL(import.meta.url), { workerData: { o, w, flag } }));
  const ready = workers.map((wk) => new Promise((ok, bad) => { wk.once("message", ok); wk.once("error", bad); }));
  await Promise.all(ready);
  const counts = workers.map((wk) => new Promise((ok, bad) => { wk.once("message", ok); wk.once("error", bad); }));
  const t = performance.now();
  Atomics.store(flag, 0, 1);
  await new Promise((ok) => setTimeout(ok, o.seconds * 1000));
  Atomics.store(flag, 0, 2);
  const n = (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  const qps = n / ((performance.now() - t) / 1000);
  await Promise.all(workers.map((wk) => wk.terminate()));
  return qps;
}

async function worker() {
  const { o, w, flag } = workerData;
  const dir = path.join(o.data, o.catalog);
  const tools = o.engine === "toolsift" ? [] : readJSONL(path.join(dir, "tools.jsonl"));
  let queries = readJSONL(path.join(dir, "queries.jsonl"));
  if (o.queries > 0) queries = queries.slice(0, o.queries);
  const e = await (await openers[o.engine](o, tools)).open();
  warmUp(e, queries);
  parentPort.postMessage("ready");
  while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 10);
  let n = 0;
  for (let i = (w * queries.length) >> 1; Atomics.load(flag, 0) === 1; i++, n++) e.search(queries[i % queries.length].text);
  parentPort.postMessage(n);
}

if (isMainThread) await main(); else await worker();
