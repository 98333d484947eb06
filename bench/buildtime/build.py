"""python bench/buildtime/build.py FORMAT CATALOG: toolsift.build_snapshot on
wasmtime, the median CPU and wall time of five builds after a warm-up (see
main.go). Needs the package installed (pip install ./bindings/python)."""

import sys
import time

import toolsift

fmt, path = sys.argv[1], sys.argv[2]
catalog = open(path, "rb").read()
toolsift.build_snapshot(fmt, catalog)
cpu, wall = [], []
for _ in range(5):
    c, w = time.process_time(), time.perf_counter()
    toolsift.build_snapshot(fmt, catalog)
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - w)
cpu.sort()
wall.sort()
print(f"python: cpu median {cpu[2]:.2f} s ({cpu[0]:.2f}–{cpu[4]:.2f}), wall median {wall[2]:.2f} s")
