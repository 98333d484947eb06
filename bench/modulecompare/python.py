"""modulecompare in Python: builds of toolsearch.wasm against each other
through the binding's instances, alternated round by round (see main.go
beside this file).

    python bench/modulecompare/python.py bench/results/data/dws/queries.jsonl /tmp/a.wasm /tmp/b.wasm
"""

import json
import statistics
import sys
import time

from toolsift import _runtime

ROUNDS, SECONDS = 7, 1.5


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: python python.py queries.jsonl a.wasm [b.wasm …]")
    queries_path, modules = sys.argv[1], sys.argv[2:]
    with open(queries_path, encoding="utf-8") as f:
        requests = [json.dumps({"version": "tool-search.v1", "query": json.loads(line)["text"]},
                               ensure_ascii=False).encode() for line in f]
    snapshot = _runtime.default_snapshot()
    instances = []
    for path in modules:
        with open(path, "rb") as f:
            inst = _runtime.Instance(_runtime.Runtime(f.read()))
        inst.open(snapshot, object())
        instances.append(inst)
    per_query = [[] for _ in modules]  # µs, one per round
    for _ in range(ROUNDS):
        for i, inst in enumerate(instances):
            start, n = time.perf_counter(), 0
            while time.perf_counter() - start < SECONDS:
                for r in requests:
                    inst.search(r, 0)
                    n += 1
            per_query[i].append((time.perf_counter() - start) / n * 1e6)
    for path, values in zip(modules, per_query):
        rounds = " ".join(f"{v:.1f}" for v in values)
        print(f"{path}: median {statistics.median(values):.1f} µs per query; rounds {rounds}")


if __name__ == "__main__":
    main()
