#!/usr/bin/env python3
"""Rank one benchmark set with bm25s (or the plain reference BM25) and score it.

Run with the interpreter of the venv that has bm25s (run.py makes it):

  bm25s_eval.py DIR --ranker bm25s-default|bm25s-cjk|reference --reference PATH
                [--run FILE]

DIR holds corpus.jsonl, queries.jsonl and qrels.tsv. Every ranker indexes the
same one text per tool as the reference baseline (PATH is
bm25_reference.py, imported for its text and id rules and its tokenizer, so
that "the same tokenization" cannot drift):

- bm25s-default: bm25s.tokenize(texts, stopwords="en"): lower case, runs of
  two or more word characters, bm25s's English stop list, no stemmer.
- bm25s-cjk: the reference's tokenizer (camelCase split, lower case, runs of
  [a-z0-9], its stop list, CJK unigrams plus bigrams) fed to bm25s.
- reference: the reference's own BM25 class, to check this script's metrics
  against the reference's output.

bm25s scores with method "lucene", k1 1.2, b 0.75 (bm25s's own default k1 is
1.5; 1.2 is the baseline's). Queries are used whole. Ranking: score
descending, ties by corpus order, tools scoring 0 left out (the reference
never returns a tool sharing no term with the query).

Metrics, binary relevance (grade > 0), averaged over queries with at least
one relevant tool, x100: nDCG@10, Recall@5, Recall@10, Comp@10, MRR@10 (the
reference's definitions). Prints one JSON object; --run writes the top 10 of
each query as "query-id TAB rank TAB corpus-id" lines.
"""
import argparse
import importlib.util
import json
import math
import os
import sys
import time


def load_reference(path):
    spec = importlib.util.spec_from_file_location("bm25_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_relevant(path):
    """query-id -> set of relevant corpus ids; an optional header line."""
    relevant = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f):
            parts = line.rstrip("\n").rstrip("\r").split("\t")
            if len(parts) < 2 or not line.strip():
                continue
            if len(parts) >= 3:
                try:
                    grade = float(parts[2])
                except ValueError:
                    if n == 0:
                        continue  # the header
                    raise SystemExit(f"{path}: line {n + 1}: grade {parts[2]!r} is not a number")
                if grade <= 0:
                    continue
            relevant.setdefault(parts[0], set()).add(parts[1])
    return relevant


def rank_scores(scores, k):
    order = sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-float(scores[i]), i))
    return order[:k]


def bm25s_ranker(texts, tokenize, k1=1.2, b=0.75):
    import bm25s  # the venv's

    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.index(tokenize(texts), show_progress=False)

    def search(query_tokens, k):
        if not query_tokens:
            return []
        known = [t for t in query_tokens if t in retriever.vocab_dict]
        if not known:
            return []
        return rank_scores(retriever.get_scores(known), k)

    return search


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--ranker", required=True, choices=["bm25s-default", "bm25s-cjk", "reference"])
    ap.add_argument("--reference", required=True, help="path of bm25_reference.py")
    ap.add_argument("--run", help="write the rankings here")
    args = ap.parse_args()

    ref = load_reference(args.reference)
    corpus = read_jsonl(os.path.join(args.dir, "corpus.jsonl"))
    queries = read_jsonl(os.path.join(args.dir, "queries.jsonl"))
    relevant = read_relevant(os.path.join(args.dir, "qrels.tsv"))
    ids = [ref._id(row) for row in corpus]
    texts = [ref._text(row) for row in corpus]

    start = time.perf_counter()
    if args.ranker == "reference":
        bm = ref.BM25([ref.tokenize(t) for t in texts])
        query_tokens = ref.tokenize

        def search(tokens, k):
            return [i for i, _ in bm.search(tokens, k)]
    elif args.ranker == "bm25s-cjk":
        search = bm25s_ranker(texts, lambda ts: [ref.tokenize(t) for t in ts])
        query_tokens = ref.tokenize
    else:
        import bm25s

        def default_tokenize(ts):
            return bm25s.tokenize(ts, stopwords="en", return_ids=False, show_progress=False)

        search = bm25s_ranker(texts, default_tokenize)

        def query_tokens(text):
            return default_tokenize([text])[0]
    build_ms = (time.perf_counter() - start) * 1000

    sums = dict.fromkeys(("ndcg@10", "recall@5", "recall@10", "comp@10", "mrr@10"), 0.0)
    n = 0
    run_lines = []
    latencies = []
    for q in queries:
        qid = ref._id(q)
        rel = relevant.get(qid)
        if not rel:
            continue
        n += 1
        t0 = time.perf_counter()
        top = [ids[i] for i in search(query_tokens(q.get("text") or ""), 10)]
        latencies.append((time.perf_counter() - t0) * 1e6)
        run_lines.extend(f"{qid}\t{r + 1}\t{d}" for r, d in enumerate(top))
        dcg = sum(1 / math.log2(r + 2) for r, d in enumerate(top) if d in rel)
        idcg = sum(1 / math.log2(r + 2) for r in range(min(len(rel), 10)))
        sums["ndcg@10"] += dcg / idcg
        sums["recall@5"] += len(rel & set(top[:5])) / len(rel)
        sums["recall@10"] += len(rel & set(top)) / len(rel)
        sums["comp@10"] += float(rel <= set(top))
        sums["mrr@10"] += next((1 / (r + 1) for r, d in enumerate(top) if d in rel), 0.0)
    if args.run:
        with open(args.run, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in run_lines))
    latencies.sort()

    def pct(p):
        return round(latencies[max(math.ceil(p * len(latencies)), 1) - 1], 1) if latencies else 0.0

    out = {"set": args.dir.rstrip("/"), "ranker": args.ranker, "tools": len(corpus), "queries": n,
           "build_ms": round(build_ms, 2), "p50_us": pct(0.5), "p99_us": pct(0.99),
           **{k: round(100 * v / max(1, n), 2) for k, v in sums.items()}}
    if args.ranker.startswith("bm25s"):
        import bm25s
        out["bm25s"] = {"version": bm25s.__version__, "method": "lucene", "k1": 1.2, "b": 0.75}
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
