#!/usr/bin/env python3
"""make quality: every ranker on every public benchmark set, one table.

For every set under BENCH (every directory holding corpus.jsonl,
queries.jsonl and qrels.tsv) it runs

- every toolsift profile (profile.Names(): the generic ones, then dws-v1)
  through `wasmhost eval --engine native --json`;
- the plain BM25 baseline, `bm25_reference.py DIR --json`;
- bm25s twice (bm25s_eval.py, in a venv made on the first run): with its
  documented tokenizer `bm25s.tokenize(texts, stopwords="en")` and with the
  baseline's CJK-aware tokenizer;

then writes the table into docs/QUALITY.md between the quality markers and
every figure into bench/quality/last.json. It also scores the baseline's
own ranking of one set with wasmhost's metric code (scorerun) and with this
script's Python port of the reference's formulas, and stops if either
differs from what the reference prints. Any ranker failing stops the run
with a non-zero status. Progress goes to stderr.

Environment: BENCH_SHARED (default ../shared/data/bench), QUALITY_VENV
(default .venv-quality), GO (default go), PYTHON (default python3).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
BM25S_VERSION = "0.3.16"  # the version PyPI serves here; pinned so runs compare
METRICS = ("ndcg@10", "recall@5", "recall@10", "comp@10", "mrr@10")
BEGIN, END = "<!-- quality:begin -->", "<!-- quality:end -->"


class RankerFailed(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def call(argv, what, cwd=ROOT):
    """Runs argv and returns its stdout; a failure stops the whole run."""
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RankerFailed(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n{proc.stderr.strip()}")
    return proc.stdout


def find_sets(bench):
    sets = []
    for dirpath, dirnames, filenames in os.walk(bench):
        dirnames.sort()
        if {"corpus.jsonl", "queries.jsonl", "qrels.tsv"} <= set(filenames):
            sets.append(os.path.relpath(dirpath, bench).replace(os.sep, "/"))
    return sorted(sets)


def ensure_venv(venv, python):
    exe = os.path.join(venv, "bin", "python")
    if not os.path.exists(exe):
        log(f"quality: making the venv {venv}")
        call([python, "-m", "venv", venv], "python -m venv")
    probe = subprocess.run([exe, "-c", "import bm25s; print(bm25s.__version__)"], capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.strip() != BM25S_VERSION:
        log(f"quality: pip install bm25s=={BM25S_VERSION} into {venv}")
        call([exe, "-m", "pip", "install", "--quiet", f"bm25s=={BM25S_VERSION}"], "pip install bm25s")
    return exe


def toolsift(wasmhost, folder, profiles):
    argv = [wasmhost, "eval", "--engine", "native", "--json", "--k", "5,10",
            "--corpus", os.path.join(folder, "corpus.jsonl"),
            "--queries", os.path.join(folder, "queries.jsonl"),
            "--qrels", os.path.join(folder, "qrels.tsv")]
    for p in profiles:
        argv += ["--profile", p]
    reports = json.loads(call(argv, "wasmhost eval"))
    out = {}
    for p, r in zip(profiles, reports):
        if r["profile"] != p:
            raise RankerFailed(f"wasmhost eval answered profile {r['profile']} for {p}")
        s, lat = r["slices"]["all"], r["latency_us"]["all"]
        out["toolsift " + p] = {
            "ndcg@10": 100 * s["ndcg"]["@10"], "recall@5": 100 * s["recall"]["@5"],
            "recall@10": 100 * s["recall"]["@10"], "comp@10": 100 * s["comprehensiveness"]["@10"],
            "mrr@10": 100 * s["mrr@10"], "queries": s["queries"], "tools": r["tools"],
            "build_ms": r["build_ms"], "p50_us": lat["p50_us"], "p99_us": lat["p99_us"],
            "queries_cut_to_budget": r["queries_cut_to_budget"], "query_budget_runes": r["query_budget_runes"],
            "queries_refused": r["queries_refused"], "zero_result_rate": 100 * s["zero_result_rate"],
        }
    return out


def baseline(python, reference, folder):
    row = json.loads(call([python, reference, folder, "--json"], "bm25_reference.py"))
    return {k: row[k] for k in (*METRICS, "queries", "tools")}


def bm25s_run(venv_python, reference, folder, ranker, run_file=None):
    argv = [venv_python, os.path.join(HERE, "bm25s_eval.py"), folder, "--ranker", ranker, "--reference", reference]
    if run_file:
        argv += ["--run", run_file]
    row = json.loads(call(argv, "bm25s_eval.py " + ranker))
    row.pop("set", None)
    row.pop("ranker", None)
    return row


def check_metrics(scorerun, venv_python, reference, folder, base, tmp):
    """The baseline's ranking scored three ways must give the same figures."""
    run_file = os.path.join(tmp, "reference-run.tsv")
    ported = bm25s_run(venv_python, reference, folder, "reference", run_file)
    go = json.loads(call([scorerun, "--queries", os.path.join(folder, "queries.jsonl"),
                          "--qrels", os.path.join(folder, "qrels.tsv"), "--run", run_file], "scorerun"))
    worst = 0.0
    for k in METRICS:
        for name, got in (("the Python port", ported[k]), ("wasmhost's metrics (internal/quality)", go[k])):
            diff = abs(got - base[k])
            worst = max(worst, diff)
            if diff > 0.011:  # both sides round to 2 decimals
                raise RankerFailed(f"metric check: {name} scores the reference's ranking {k}={got}, the reference prints {base[k]}")
    if go["queries"] != base["queries"] or ported["queries"] != base["queries"]:
        raise RankerFailed(f"metric check: query counts differ: {go['queries']}, {ported['queries']}, {base['queries']}")
    return {"set": None, "max_abs_difference": round(worst, 4),
            "reference": {k: base[k] for k in METRICS}, "python_port": {k: ported[k] for k in METRICS},
            "wasmhost_metrics": {k: go[k] for k in METRICS}}


def fmt(v):
    return f"{v:.1f}"


def signed(v):
    return f"{v:+.1f}".replace("-", "−")


def table(result):
    meta, sets = result["meta"], result["sets"]
    ts_names = ["toolsift " + p for p in meta["profiles"]]
    others = ["bm25", "bm25s-default", "bm25s-cjk"]
    lines = [
        f"Generated by `make quality` (bench/quality/run.py) on {meta['date_utc']} at commit "
        f"`{meta['commit']}`{meta['tree_note']}, on {meta['machine']}; the whole run took "
        f"{meta['seconds']:.0f} s. Figures x100, averaged over the queries with a relevant tool. "
        f"Rankers: toolsift profiles through `wasmhost eval --engine native` (queries cut to the profile's "
        f"query budget); **bm25** is `bm25_reference.py` (Okapi k1 1.2 b 0.75, CJK unigrams+bigrams, "
        f"queries whole); **bm25s-default** is bm25s {meta['bm25s']} with `bm25s.tokenize(texts, stopwords=\"en\")`, "
        f"**bm25s-cjk** bm25s with the reference's tokenizer; both bm25s use method \"lucene\", k1 1.2, b 0.75 "
        f"over the reference's one text per tool. Δ: nDCG@10 points over bm25 / over the better bm25s.",
        "",
        "nDCG@10:",
        "",
        "| set | queries | " + " | ".join(n.replace("toolsift ", "") + " (Δ bm25 / Δ bm25s)" for n in ts_names)
        + " | bm25 | bm25s-default | bm25s-cjk |",
        "|---|---:|" + "---:|" * (len(ts_names) + 3),
    ]
    for s in sets:
        r = s["rankers"]
        best = max(r["bm25s-default"]["ndcg@10"], r["bm25s-cjk"]["ndcg@10"])
        cells = [f"{fmt(r[n]['ndcg@10'])} ({signed(r[n]['ndcg@10'] - r['bm25']['ndcg@10'])} / {signed(r[n]['ndcg@10'] - best)})"
                 for n in ts_names]
        lines.append(f"| {s['set']} | {r['bm25']['queries']:,} | " + " | ".join(cells) + " | "
                     + " | ".join(fmt(r[o]["ndcg@10"]) for o in others) + " |")
    lines += [
        "",
        "Every metric (build: import and index for toolsift, index for bm25s; p50/p99: one search call, "
        "native Go for toolsift, Python for bm25s, so not comparable across the two; cut: queries cut to the "
        "query budget):",
        "",
        "| set | ranker | nDCG@10 | R@5 | R@10 | Comp@10 | MRR@10 | Δ bm25 | Δ bm25s | build ms | p50 µs | p99 µs | cut |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sets:
        r = s["rankers"]
        best = max(r["bm25s-default"]["ndcg@10"], r["bm25s-cjk"]["ndcg@10"])
        for n in ts_names + others:
            m = r[n]
            toolsift_row = n in ts_names
            d1 = signed(m["ndcg@10"] - r["bm25"]["ndcg@10"]) if toolsift_row else ""
            d2 = signed(m["ndcg@10"] - best) if toolsift_row else ""
            build = f"{m['build_ms']:.0f}" if m.get("build_ms") is not None else ""
            p50 = f"{m['p50_us']:.0f}" if "p50_us" in m else ""
            p99 = f"{m['p99_us']:.0f}" if "p99_us" in m else ""
            cut = f"{m['queries_cut_to_budget']:,}" if toolsift_row else ""
            lines.append(f"| {s['set']} | {n} | " + " | ".join(fmt(m[k]) for k in METRICS)
                         + f" | {d1} | {d2} | {build} | {p50} | {p99} | {cut} |")
    c = result["metric_check"]
    lines += [
        "",
        f"Metric check ({c['set']}): the reference's own ranking, scored by wasmhost's metric code "
        f"(internal/quality, graded gain; every grade in these sets is 1), gives what bm25_reference.py "
        f"(binary relevance) prints, to {c['max_abs_difference']:.2f} points on every metric.",
    ]
    return "\n".join(lines)


def write_doc(doc, body):
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    block = f"{BEGIN}\n{body}\n{END}"
    if BEGIN in text and END in text and text.index(BEGIN) < text.index(END):
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Every ranker on every set (make quality)\n\n" + block + "\n"
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description="every ranker on every benchmark set")
    ap.add_argument("--bench", default=os.environ.get("BENCH_SHARED") or os.path.join(ROOT, "..", "shared", "data", "bench"))
    ap.add_argument("--venv", default=os.environ.get("QUALITY_VENV") or os.path.join(ROOT, ".venv-quality"))
    ap.add_argument("--reference", default=os.path.join(ROOT, "..", "shared", "tools", "bm25_reference.py"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "QUALITY.md"))
    ap.add_argument("--json-out", default=os.path.join(HERE, "last.json"))
    ap.add_argument("--profile", action="append", help="only these toolsift profiles (default: every one)")
    ap.add_argument("--set", action="append", help="only these sets (relative to --bench)")
    ap.add_argument("--check-set", default="livemcpbench/all", help="the set of the metric check (default: the first set if absent)")
    ap.add_argument("--no-doc", action="store_true", help="leave docs/QUALITY.md alone")
    args = ap.parse_args()
    go = os.environ.get("GO", "go")
    python = os.environ.get("PYTHON", "python3")
    started = time.monotonic()

    bench = os.path.abspath(args.bench)
    sets = args.set or find_sets(bench)
    if not sets:
        raise RankerFailed(f"no benchmark set (corpus.jsonl + queries.jsonl + qrels.tsv) under {bench}")
    if not os.path.exists(args.reference):
        raise RankerFailed(f"no baseline script at {args.reference}")
    reference = os.path.abspath(args.reference)

    with tempfile.TemporaryDirectory(prefix="quality-") as tmp:
        wasmhost, scorerun = os.path.join(tmp, "wasmhost"), os.path.join(tmp, "scorerun")
        log("quality: building wasmhost and scorerun")
        call([go, "build", "-o", wasmhost, "./cmd/wasmhost"], "go build ./cmd/wasmhost")
        call([go, "build", "-o", scorerun, "./bench/quality/scorerun"], "go build ./bench/quality/scorerun")
        known = call([go, "run", "./bench/quality/profiles"], "profile list").split()
        profiles = args.profile or [p for p in known if p != "dws-v1"] + (["dws-v1"] if "dws-v1" in known else [])
        venv_python = ensure_venv(args.venv, python)
        bm25s_version = call([venv_python, "-c", "import bm25s; print(bm25s.__version__)"], "bm25s").strip()

        results = []
        check = None
        check_set = args.check_set if args.check_set in sets else sets[0]
        for i, name in enumerate(sets, 1):
            folder = os.path.join(bench, name)
            rankers, took = {}, {}
            t = time.monotonic()
            rankers.update(toolsift(wasmhost, folder, profiles))
            took["toolsift"] = time.monotonic() - t
            t = time.monotonic()
            rankers["bm25"] = baseline(python, reference, folder)
            took["bm25"] = time.monotonic() - t
            for variant in ("bm25s-default", "bm25s-cjk"):
                t = time.monotonic()
                rankers[variant] = bm25s_run(venv_python, reference, folder, variant)
                took[variant] = time.monotonic() - t
            counts = {n: r["queries"] for n, r in rankers.items()}
            if len(set(counts.values())) != 1:
                raise RankerFailed(f"{name}: the rankers scored different query counts: {counts}")
            if name == check_set:
                check = check_metrics(scorerun, venv_python, reference, folder, rankers["bm25"], tmp)
                check["set"] = name
            results.append({"set": name, "rankers": rankers})
            ndcg = ", ".join(f"{n.replace('toolsift ', '')} {r['ndcg@10']:.1f}" for n, r in rankers.items())
            times = ", ".join(f"{n} {s:.1f} s" for n, s in took.items())
            log(f"quality: [{i}/{len(sets)}] {name}: nDCG@10 {ndcg} ({times})")

    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "core", "cmd", "internal"], cwd=ROOT).returncode != 0
    result = {
        "meta": {
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "--short", "HEAD"),
            "tree_note": " (the working tree had uncommitted changes in core/, cmd/ or internal/)" if dirty else "",
            "machine": f"nproc {call(['nproc'], 'nproc').strip()}, {call(['uname', '-m'], 'uname').strip()}",
            "profiles": profiles, "bm25s": bm25s_version, "bench": bench,
            "seconds": time.monotonic() - started,
        },
        "sets": results,
        "metric_check": check,
    }
    with open(args.json_out, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False, indent=1)
        f.write("\n")
    body = table(result)
    if not args.no_doc:
        write_doc(args.doc, body)
    print(body)
    log(f"quality: done in {result['meta']['seconds']:.0f} s; figures in {os.path.relpath(args.json_out, ROOT)}"
        + ("" if args.no_doc else f", table in {os.path.relpath(args.doc, ROOT)}"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RankerFailed as e:
        log(f"quality: FAILED: {e}")
        sys.exit(1)
