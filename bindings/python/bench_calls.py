"""Benchmark (not a test): python bench_calls.py

The per-call cost of the binding: search_raw of a query the exact guard
answers with one tool (about 1 µs of engine work) and of the Chinese query;
medians of 7 rounds of 1,000 calls after 300 warm-up calls."""

import time, statistics, toolsift
e = toolsift.Engine.open()
req = b'{"version":"tool-search.v1","query":"chat.send"}'
q2 = '{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}'.encode()
for r in (req, q2):
    for _ in range(300): e.search_raw(r)
    runs = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(1000): e.search_raw(r)
        runs.append((time.perf_counter() - t) / 1000 * 1e6)
    print(r[:40], "median µs", round(statistics.median(runs), 1))
