"""The Python runner of `make bench`: toolsift (bindings/python, on
wasmtime) and the libraries a Python user would pick instead, measured the
same way as bench/harness does for Go (see bench/README.md).

    python run.py --engine toolsift|bm25s|rank-bm25 --catalog dws \
        --data ../results/data --seconds 2 --out result.json
"""

import argparse
import gc
import json
import os
import re
import sys
import threading
import time
from importlib import metadata

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WORDS = re.compile(r"[^\W_]+")


def bigram_tokenize(text):
    """Neither bm25s nor rank-bm25 has a Chinese tokenizer: like bleve's CJK
    analyzer, Han runs give their characters and bigrams; other text splits
    on non-letters and is lowercased."""
    out = []
    for run in WORDS.findall(text.lower()):
        if not HAN.search(run):
            out.append(run)
            continue
        latin = ""
        for i, c in enumerate(run):
            if not HAN.match(c):
                latin += c
                continue
            if latin:
                out.append(latin)
                latin = ""
            out.append(c)
            if i + 1 < len(run) and HAN.match(run[i + 1]):
                out.append(c + run[i + 1])
        if latin:
            out.append(latin)
    return out


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def open_toolsift(o, tools):
    import toolsift

    with open(os.path.join(o.data, o.catalog, "catalog.snap"), "rb") as f:
        snap = f.read()

    def opener():
        e = toolsift.Engine.open(snap, instances=2, **({"memory_limit": o.memory_limit} if o.memory_limit else {}))

        def search(q):
            return e.search_raw({"version": "tool-search.v1", "query": q, "limit": 10, "candidate_limit": 20})

        def ranked(raw):
            return [c["canonical_path"] for c in json.loads(raw)["candidates"]]

        return search, ranked, e.close

    return {
        "engine": "toolsift wasm (Python%s)" % (", %d MiB limit" % (o.memory_limit >> 20) if o.memory_limit else ""),
        "library": "toolsift %s (bindings/python), wasmtime %s" % (metadata.version("toolsift"), metadata.version("wasmtime")),
        "ranking": "fielded BM25 (profile of the snapshot), dws-v1 tokenizer",
        "open_what": "Engine.open: cold = first in process (compiles the module), warm = compiled; instantiate + open the snapshot",
        "qps_2_note": "two threads sharing one Engine with instances=2",
    }, opener


def open_bm25s(o, tools):
    import bm25s
    import numpy as np

    def opener():
        corpus = [bigram_tokenize(" ".join(t["fields"])) for t in tools]
        r = bm25s.BM25()
        r.index(corpus, show_progress=False)
        vocab = r.vocab_dict

        def search(q):
            ids = [vocab[t] for t in bigram_tokenize(q) if t in vocab]
            if not ids:
                return []
            scores = r.get_scores(ids)
            k = min(10, len(scores))
            top = np.argpartition(-scores, k - 1)[:k]
            return [int(i) for i in top[np.argsort(-scores[top], kind="stable")] if scores[i] > 0]

        return search, (lambda r: [tools[i]["id"] for i in r]), (lambda: None)

    return {
        "engine": "bm25s",
        "library": "bm25s %s, numpy %s" % (metadata.version("bm25s"), metadata.version("numpy")),
        "ranking": "BM25 (Lucene variant, k1 1.5, b 0.75) over the concatenated fields; Han unigram+bigram tokenizer written in the runner",
        "open_what": "tokenize the tool texts and build the index",
        "qps_2_note": "two threads sharing one index (numpy releases the GIL only in parts)",
    }, opener


def open_rank_bm25(o, tools):
    from rank_bm25 import BM25Okapi
    import numpy as np

    def opener():
        corpus = [bigram_tokenize(" ".join(t["fields"])) for t in tools]
        bm = BM25Okapi(corpus)

        def search(q):
            tokens = bigram_tokenize(q)
            if not tokens:
                return []
            scores = bm.get_scores(tokens)
            k = min(10, len(scores))
            top = np.argpartition(-scores, k - 1)[:k]
            return [int(i) for i in top[np.argsort(-scores[top], kind="stable")] if scores[i] > 0]

        return search, (lambda r: [tools[i]["id"] for i in r]), (lambda: None)

    return {
        "engine": "rank-bm25",
        "library": "rank-bm25 %s, numpy %s" % (metadata.version("rank-bm25"), metadata.version("numpy")),
        "ranking": "BM25Okapi (k1 1.5, b 0.75) over the concatenated fields; Han unigram+bigram tokenizer written in the runner",
        "open_what": "tokenize the tool texts and build the index",
        "qps_2_note": "two threads sharing one index (the GIL serialises most of the work)",
    }, opener


class OpenError(Exception):
    """The engine did not open (the result says so with this message)."""


OPENERS = {"toolsift": open_toolsift, "bm25s": open_bm25s, "rank-bm25": open_rank_bm25}


def rss():
    gc.collect()
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def pct(sorted_, p):
    i = -(-len(sorted_) * p // 100)
    return sorted_[max(0, min(len(sorted_) - 1, i - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="toolsift")
    ap.add_argument("--catalog", default="dws")
    ap.add_argument("--data", default="../results/data")
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--queries", type=int, default=0)
    ap.add_argument("--out", default="")
    ap.add_argument("--budget", type=float, default=120, help="stop the quality pass after this many seconds")
    ap.add_argument("--memory-limit", type=int, default=0, help="toolsift: Engine.open(memory_limit=…) in bytes (0: the default)")
    o = ap.parse_args()
    d = os.path.join(o.data, o.catalog)
    queries = read_jsonl(os.path.join(d, "queries.jsonl"))
    if o.queries > 0:
        queries = queries[: o.queries]
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    res = {
        "engine": o.engine, "host": "python", "catalog": o.catalog, "tools": meta["tools"],
        "queries": len(queries), "queries_total": len(queries), "memory_how": "RSS delta",
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "loadavg": load,
    }
    try:
        tools = [] if o.engine == "toolsift" else read_jsonl(os.path.join(d, "tools.jsonl"))
        info, opener = OPENERS[o.engine](o, tools)
        res.update(info)
        rss0 = rss()
        t = time.perf_counter()
        try:
            search, ranked, close = opener()
        except Exception as err:
            raise OpenError("open: %s: %s" % (type(err).__name__, err)) from err
        res["open_cold_ms"] = (time.perf_counter() - t) * 1000
        res["memory_mib"] = (rss() - rss0) / 2**20
        if o.engine == "toolsift" or res["open_cold_ms"] < 10000:
            t = time.perf_counter()
            again = opener()
            res["open_warm_ms"] = (time.perf_counter() - t) * 1000
            again[2]()
            del again
        warm_up(search, queries)
        lat, total, rankings = [], 0.0, []
        pass_ = 0
        while pass_ == 0 or total < o.seconds:
            for i, q in enumerate(queries):
                if pass_ == 0 and o.budget > 0 and total > o.budget:
                    # Too slow to answer every query in the budget: quality
                    # and latency come from the queries answered.
                    queries = queries[:i]
                    res["queries"] = i
                    break
                t = time.perf_counter()
                answer = search(q["text"])
                dt = time.perf_counter() - t
                if pass_ == 0:
                    rankings.append(ranked(answer)[:10])
                lat.append(dt)
                total += dt
            pass_ += 1
        lat.sort()
        res.update(
            latency_samples=len(lat), p50_us=pct(lat, 50) * 1e6, p99_us=pct(lat, 99) * 1e6,
            mean_us=total / len(lat) * 1e6, qps_1=len(lat) / total, rankings=rankings,
        )
        res["qps_2"] = two_threads(search, queries, o.seconds)
        close()
    except Exception as err:  # reported in the table, not hidden
        res["error"] = str(err) if isinstance(err, OpenError) else "%s: %s" % (type(err).__name__, err)
    data = json.dumps(res, ensure_ascii=False, indent=1) + "\n"
    if o.out:
        with open(o.out, "w", encoding="utf-8") as f:
            f.write(data)
    else:
        sys.stdout.write(data)


def warm_up(search, queries):
    """Up to 20 queries, for at most 5 s."""
    start = time.perf_counter()
    for q in queries[:20]:
        if time.perf_counter() - start > 5:
            break
        search(q["text"])


def two_threads(search, queries, seconds):
    # Warm both threads at once, so that a pool grows its second instance
    # before the clock starts.
    warm = [threading.Thread(target=warm_up, args=(search, queries)) for _ in (0, 1)]
    for th in warm:
        th.start()
    for th in warm:
        th.join()
    stop = threading.Event()
    counts = [0, 0]

    def work(w):
        i = w * len(queries) // 2
        while not stop.is_set():
            search(queries[i % len(queries)]["text"])
            counts[w] += 1
            i += 1

    threads = [threading.Thread(target=work, args=(w,)) for w in (0, 1)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    time.sleep(seconds)
    stop.set()
    for th in threads:
        th.join()
    return sum(counts) / (time.perf_counter() - t)


if __name__ == "__main__":
    main()
