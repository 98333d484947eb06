#!/usr/bin/env python3
"""python3 bench/buildtime/mkcatalog.py N OUT: an MCP catalog of at least N tools, the
LiveMCPBench servers of testdata/generic repeated under new names (server-0, -1, ...)."""
import gzip, json, sys
src = json.load(gzip.open('testdata/generic/livemcpbench-mcp.json.gz'))
n = int(sys.argv[1])
servers = src['servers']
out = {}
names = sorted(servers)
total = 0
copy = 0
while total < n:
    for name in names:
        if total >= n: break
        s = json.loads(json.dumps(servers[name]))
        tools = s['tools'] if isinstance(s, dict) else s
        key = f"{name}-{copy}"
        out[key] = s
        total += len(tools)
    copy += 1
json.dump({'servers': out}, open(sys.argv[2], 'w'))
print(total)
