#!/usr/bin/env python3
"""Each public benchmark set rendered in the layouts users' catalogs come in,
imported as they are: how many tools survive, how many were repaired, and
nDCG@10 beside the plain BM25 baseline.

For every set under BENCH (corpus.jsonl with each tool's original definition
under "doc", queries.jsonl, qrels.tsv) it writes, into OUT/<set>/<layout>/,

  beir-text     BEIR's own records: {"_id", "title", "text"} (text only)
  text+doc      the text beside the original object: {"_id", "text", "doc"}
  openapi-ops   OpenAPI-like operations: {"_id", "doc": {"operationId",
                "summary", "tags", "parameters": [a {"$ref":
                "#/components/parameters/<name>"} for the first parameter,
                {"name", "in", "required": "true"|"false" (strings),
                "schema", "description"} for the rest], "responses"}}
  short+results a one-sentence description, the rest of it under "results"
                (return-value prose a tool list keeps apart): {"_id",
                "name", "description", "results", "doc": {"parameters"}}
  service-array the definition as an array of functions: {"_id", "doc": [def]}
  mcp           an MCP tools/list ({"servers": …} when ids are server::tool)
  openai        OpenAI function tools (Responses namespaces for servers)
  anthropic     Anthropic tools

each with the set's queries (the first QUERIES of them) and qrels (ids the
layout's tools are found by: corpus ids, bare names for the flat tool lists),
builds each with `wasmhost snapshot build --engine native` (counting tools
read, imported, skipped and repairs from its report) and scores it with
`wasmhost eval --engine native`, for each wasmhost given (a build before a
change and after it, say). Plain BM25 (`bm25_reference.py`) scores the set's
own corpus.

  python3 bench/quality/layouts.py [--bench DIR] [--out DIR] [--queries N]
      [--bm25 PATH] NAME=WASMHOST [NAME=WASMHOST ...]

It prints one markdown table; progress goes to stderr.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAYOUTS = ["beir-text", "text+doc", "openapi-ops", "short+results", "service-array", "mcp", "openai", "anthropic"]
FORMATS = {"mcp": "mcp", "openai": "openai", "anthropic": "anthropic"}  # others: beir


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def find_sets(bench):
    out = []
    for dirpath, dirnames, filenames in os.walk(bench):
        dirnames.sort()
        if {"corpus.jsonl", "queries.jsonl", "qrels.tsv"} <= set(filenames):
            out.append(os.path.relpath(dirpath, bench))
    return sorted(out)


def split_id(tool_id):
    if "::" in tool_id:
        server, name = tool_id.split("::", 1)
        return server, name
    return None, tool_id


def schema_of(doc):
    """The definition's parameters as a JSON Schema object."""
    if not isinstance(doc, dict):
        return {"type": "object", "properties": {}}
    for key in ("inputSchema", "input_schema", "parameters"):
        s = doc.get(key)
        if isinstance(s, dict):
            s = dict(s)
            if s.get("type") == "dict":
                s["type"] = "object"
            s.setdefault("type", "object")
            s.setdefault("properties", {})
            return s
    props, required = {}, []
    for key, req in (("required_parameters", True), ("optional_parameters", False)):
        for p in doc.get(key) or []:
            if isinstance(p, dict) and p.get("name"):
                props[p["name"]] = {k: v for k, v in (("type", str(p.get("type", "string")).lower()), ("description", p.get("description", ""))) if v}
                if req:
                    required.append(p["name"])
    return {"type": "object", "properties": props, "required": required}


def description_of(record):
    doc = record.get("doc") if isinstance(record.get("doc"), dict) else {}
    return record.get("description") or doc.get("description") or doc.get("api_description") or ""


def first_sentence(text):
    m = re.search(r"(.+?[.!?。！？])(\s|$)", text, re.S)
    if not m or len(m.group(1)) >= len(text.strip()):
        return text.strip(), ""
    return m.group(1).strip(), text[m.end():].strip()


def openapi_parameters(schema):
    out = []
    required = set(schema.get("required") or [])
    for i, (name, spec) in enumerate(sorted((schema.get("properties") or {}).items())):
        if i == 0:
            out.append({"$ref": "#/components/parameters/" + name})
            continue
        spec = spec if isinstance(spec, dict) else {"description": str(spec)}
        entry = {"name": name, "in": "query", "required": "true" if name in required else "false",
                 "schema": {k: v for k, v in spec.items() if k not in ("description",)}}
        if spec.get("description"):
            entry["description"] = spec["description"]
        out.append(entry)
    return out


def render(records, layout):
    """The corpus in one layout: (file name, bytes, qrels id of each corpus id)."""
    ids = {}
    if layout in ("beir-text", "text+doc", "openapi-ops", "short+results", "service-array"):
        lines = []
        for r in records:
            rid = r.get("id") or r.get("_id")
            ids[rid] = rid
            doc = r.get("doc")
            server, name = split_id(rid)
            if layout == "beir-text":
                out = {"_id": rid, "title": r.get("name", name), "text": r.get("text", "")}
            elif layout == "text+doc":
                out = {"_id": rid, "text": r.get("text", ""), "doc": doc}
            elif layout == "openapi-ops":
                schema = schema_of(doc)
                short, rest = first_sentence(description_of(r))
                op = {"operationId": r.get("name", name), "summary": short, "parameters": openapi_parameters(schema),
                      "responses": {"200": {"description": rest or "OK"}}}
                if server:
                    op["tags"] = [server]
                if rest:
                    op["description"] = rest
                out = {"_id": rid, "doc": op}
            elif layout == "short+results":
                short, rest = first_sentence(description_of(r))
                out = {"_id": rid, "name": r.get("name", name), "description": short,
                       "doc": {"parameters": schema_of(doc)}}
                if rest:
                    out["results"] = rest
            else:
                out = {"_id": rid, "doc": [doc if doc is not None else {"name": name}]}
            lines.append(json.dumps(out, ensure_ascii=False))
        return "corpus.jsonl", ("\n".join(lines) + "\n").encode(), ids
    servers = {}
    for r in records:
        rid = r.get("id") or r.get("_id")
        server, name = split_id(rid)
        servers.setdefault(server, []).append((rid, name, r))
    flat = list(servers) == [None]
    if layout == "mcp":
        def tool(name, r):
            return {"name": name, "description": description_of(r), "inputSchema": schema_of(r.get("doc"))}
        if flat:
            body = {"tools": [tool(n, r) for _, n, r in servers[None]]}
            ids = {rid: n for rid, n, _ in servers[None]}
        else:
            body = {"servers": {s or "tools": {"tools": [tool(n, r) for _, n, r in ts]} for s, ts in servers.items()}}
            ids = {rid: rid if s else n for s, ts in servers.items() for rid, n, _ in ts}
        return "tools.json", json.dumps(body, ensure_ascii=False).encode(), ids
    if layout == "openai":
        def tool(name, r):
            return {"type": "function", "name": name, "description": description_of(r), "parameters": schema_of(r.get("doc"))}
        body = []
        for s, ts in servers.items():
            if s is None:
                body += [tool(n, r) for _, n, r in ts]
                ids.update({rid: n for rid, n, _ in ts})
            else:
                body.append({"type": "namespace", "name": s.replace(".", "_"), "description": s, "tools": [tool(n, r) for _, n, r in ts]})
                ids.update({rid: rid for rid, _, _ in ts})
        return "tools.json", json.dumps(body, ensure_ascii=False).encode(), ids
    body = []
    for s, ts in servers.items():  # anthropic: one flat list, tools found by bare name
        for rid, n, r in ts:
            body.append({"name": n, "description": description_of(r), "input_schema": schema_of(r.get("doc"))})
            ids[rid] = n
    return "tools.json", json.dumps(body, ensure_ascii=False).encode(), ids


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)


def build_report(wasmhost, fmt, path, out):
    proc = run([wasmhost, "snapshot", "build", "--engine", "native", "--format", fmt, "--in", path, "-o", out])
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160]}
    m = re.search(r"(\d+) tools read, (\d+) imported, (\d+) skipped", proc.stderr)
    repaired = sum(int(n) for n in re.findall(r"repaired \S+ on (\d+)", proc.stderr))
    return {"read": int(m.group(1)), "imported": int(m.group(2)), "skipped": int(m.group(3)), "repaired": repaired}


def evaluate(wasmhost, fmt, path, queries, qrels):
    proc = run([wasmhost, "eval", "--engine", "native", "--json", "--k", "10", "--catalog", path, "--format", fmt,
                "--queries", queries, "--qrels", qrels])
    if proc.returncode != 0:
        return None
    return 100 * json.loads(proc.stdout)["slices"]["all"]["ndcg"]["@10"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.environ.get("BENCH_SHARED", os.path.join(ROOT, "..", "shared", "data", "bench")))
    ap.add_argument("--out", default="/tmp/toolsift-layouts")
    ap.add_argument("--queries", type=int, default=800)
    ap.add_argument("--bm25", default=os.path.join(ROOT, "..", "shared", "tools", "bm25_reference.py"))
    ap.add_argument("hosts", nargs="+", help="NAME=path/to/wasmhost")
    args = ap.parse_args()
    hosts = [h.split("=", 1) for h in args.hosts]
    rows = []
    for name in find_sets(args.bench):
        src = os.path.join(args.bench, name)
        records = read_jsonl(os.path.join(src, "corpus.jsonl"))
        queries = read_jsonl(os.path.join(src, "queries.jsonl"))[: args.queries]
        qids = {q.get("id") or q.get("_id") for q in queries}
        qrels = [line.rstrip("\n").split("\t") for line in open(os.path.join(src, "qrels.tsv"), encoding="utf-8")]
        qrels = [q for q in qrels if len(q) >= 3 and q[0] in qids]
        base = os.path.join(args.out, name.replace("/", "_"), "bm25")
        os.makedirs(base, exist_ok=True)
        for file, content in (("corpus.jsonl", open(os.path.join(src, "corpus.jsonl"), "rb").read()),
                              ("queries.jsonl", "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries).encode()),
                              ("qrels.tsv", "".join("\t".join(q) + "\n" for q in qrels).encode())):
            open(os.path.join(base, file), "wb").write(content)
        bm25 = json.loads(run([sys.executable, args.bm25, "--json", base]).stdout.splitlines()[0])
        bm25_ndcg = bm25.get("ndcg@10", bm25.get("nDCG@10"))
        log(f"layouts: {name}: {len(records)} tools, {len(queries)} queries, BM25 {bm25_ndcg:.2f}")
        for layout in LAYOUTS:
            folder = os.path.join(args.out, name.replace("/", "_"), layout)
            os.makedirs(folder, exist_ok=True)
            file, content, ids = render(records, layout)
            path = os.path.join(folder, file)
            open(path, "wb").write(content)
            qpath, rpath = os.path.join(base, "queries.jsonl"), os.path.join(folder, "qrels.tsv")
            open(rpath, "w", encoding="utf-8").write("".join(f"{q[0]}\t{ids.get(q[1], q[1])}\t{q[2]}\n" for q in qrels))
            fmt = FORMATS.get(layout, "beir")
            row = {"set": name, "layout": layout, "bm25": bm25_ndcg}
            for host, exe in hosts:
                row[host] = build_report(exe, fmt, path, os.path.join(folder, host + ".snap"))
                row[host]["ndcg"] = evaluate(exe, fmt, path, qpath, rpath) if "error" not in row[host] else None
                log(f"  {layout} {host}: {row[host]}")
            rows.append(row)
    head = ["set", "layout", "BM25"]
    for host, _ in hosts:
        head += [f"{host} imported/read", f"{host} skipped", f"{host} repaired", f"{host} nDCG@10"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["set"], r["layout"], f"{r['bm25']:.2f}"]
        for host, _ in hosts:
            h = r[host]
            if "error" in h:
                cells += ["refused", "all", "-", "-"]
                continue
            cells += [f"{h['imported']}/{h['read']}", str(h["skipped"]), str(h["repaired"]),
                      "-" if h["ndcg"] is None else f"{h['ndcg']:.2f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
