"""A client of the gateway through the official Python `mcp` SDK, driven
by gateway/replica_test.go: one JSON command a line on stdin, one JSON
answer a line on stdout.

    {"tool": "search_tools", "arguments": {...}}                 one call
    {"tool": "call_tool", "arguments": {...}, "retry": true}     retried once on a failure

An answer is {"ok": true, "is_error": bool, "texts": [...], "retries": n}
or {"ok": false, "error": "...", "retries": n}. A failed request (a
replica gone) is retried once when the command asks for it, never more.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def one(session, command):
    result = await session.call_tool(command["tool"], command.get("arguments") or {})
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    return {"ok": True, "is_error": bool(result.is_error), "texts": texts}


async def main(url):
    async with streamable_http_client(url, terminate_on_close=False) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            print(json.dumps({"ready": True}), flush=True)
            loop = asyncio.get_running_loop()
            while True:
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line:
                    return
                command = json.loads(line)
                retries = 0
                while True:
                    try:
                        answer = await one(session, command)
                        break
                    except Exception as exc:  # a transport or JSON-RPC failure
                        if command.get("retry") and retries == 0:
                            retries += 1
                            continue
                        answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                        break
                answer["retries"] = retries
                print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
