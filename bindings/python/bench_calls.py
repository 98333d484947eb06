"""Benchmark (not a test): python bench_calls.py [rounds]

The per-call cost of the binding, on its two call paths (toolsift/_call.py):
wasmtime's unchecked entry point (the default) and the public Func.__call__
(TOOLSIFT_PUBLIC_CALLS=1). Each round runs both paths in fresh processes,
alternately, and each process reports the median of 7 batches of 1,000
calls (after 300 warm-up calls) of:

- search_raw of a query the exact guard answers (chat.query_msg_read_status:
  a few µs of engine work, so mostly the cost of calling the module);
- search_raw of the Chinese query of the engine benchmarks.
"""

import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, statistics, time, toolsift
from toolsift import _call
requests = {
    "exact guard": b'{"version":"tool-search.v1","query":"chat.query_msg_read_status"}',
    "Chinese query": '{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}'.encode(),
}
e = toolsift.Engine.open(instances=1)
out = {"fast": _call.FAST_CALLS}
for name, request in requests.items():
    for _ in range(300):
        e.search_raw(request)
    batches = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(1000):
            e.search_raw(request)
        batches.append((time.perf_counter() - t) / 1000 * 1e6)
    out[name] = statistics.median(batches)
print(json.dumps(out))
"""


def run(public: bool) -> dict:
    env = dict(os.environ)
    env.pop("TOOLSIFT_PUBLIC_CALLS", None)
    if public:
        env["TOOLSIFT_PUBLIC_CALLS"] = "1"
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    results: dict = {"public": [], "unchecked": []}
    for _ in range(rounds):
        results["public"].append(run(public=True))
        results["unchecked"].append(run(public=False))
    for name in ("exact guard", "Chinese query"):
        public = statistics.median(r[name] for r in results["public"])
        fast = statistics.median(r[name] for r in results["unchecked"])
        print(f"{name}: public Func.__call__ {public:.1f} µs, unchecked {fast:.1f} µs "
              f"({public / fast:.2f}x), medians of {rounds} processes each")


if __name__ == "__main__":
    main()
