"""Benchmark (not a test): python bench.py

Times search_raw of one Chinese query (2,000 runs after warm-up; p50/p99),
the module compile with no cache, and Engine.open() cold (first in the
process: compile + instantiate + _initialize + open the DWS snapshot) and warm
(second: instantiate + _initialize + open)."""

from __future__ import annotations

import os
import time

import wasmtime

import toolsift
from toolsift import _runtime

REQUEST = '{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}'
RUNS = 2000


def pct(sorted_us: list, p: float) -> float:
    return sorted_us[min(len(sorted_us) - 1, int(round(p / 100 * (len(sorted_us) - 1))))]


def main() -> None:
    os.environ.pop("TOOLSIFT_CACHE_DIR", None)
    wasm = _runtime.module_bytes()

    t = time.perf_counter()
    engine = wasmtime.Engine()
    wasmtime.Module(engine, wasm)
    compile_s = time.perf_counter() - t

    t = time.perf_counter()
    e = toolsift.Engine.open()
    cold_s = time.perf_counter() - t
    t = time.perf_counter()
    e2 = toolsift.Engine.open()
    warm_s = time.perf_counter() - t
    e2.close()

    for _ in range(200):
        e.search_raw(REQUEST)
    samples = []
    for _ in range(RUNS):
        t = time.perf_counter_ns()
        e.search_raw(REQUEST)
        samples.append((time.perf_counter_ns() - t) / 1000)
    samples.sort()
    e.close()

    print(f"wasmtime {_runtime._wasmtime_version()}, module {len(wasm)} bytes, CPUs {os.cpu_count()}")
    print(f"module compile (no cache):        {compile_s * 1000:9.1f} ms")
    print(f"Engine.open() cold (1st, +compile): {cold_s * 1000:7.1f} ms")
    print(f"Engine.open() warm (2nd):          {warm_s * 1000:8.1f} ms")
    print(f"search_raw x{RUNS}: p50 {pct(samples, 50):.1f} us  p99 {pct(samples, 99):.1f} us  "
          f"mean {sum(samples) / len(samples):.1f} us")


if __name__ == "__main__":
    main()
