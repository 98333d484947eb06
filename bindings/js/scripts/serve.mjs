#!/usr/bin/env node
// A tiny static server for the playground: serves bindings/js (the package,
// its node_modules and playground/) on 127.0.0.1 only. No dependencies.
// It first copies the module and the DWS snapshot into the package
// (scripts/stage.mjs; git holds them in wasm/ and catalogs/dws/ only).
//   node scripts/serve.mjs [--port N]      (PORT env also works; 0 picks a free port)
import { createServer } from "node:http";
import { stat, readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { stage } from "./stage.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".snap": "application/octet-stream",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".map": "application/json; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

/** Start the server; resolves to {server, port, url}. */
export function startServer(port = 0, host = "127.0.0.1") {
  stage();
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405, { Allow: "GET, HEAD" }).end();
        return;
      }
      const url = new URL(req.url, "http://localhost");
      if (url.pathname === "/" || url.pathname === "/playground") {
        res.writeHead(302, { Location: "/playground/" }).end();
        return;
      }
      let rel = decodeURIComponent(url.pathname);
      if (rel.endsWith("/")) rel += "index.html";
      const file = path.resolve(ROOT, "." + rel);
      if (file !== ROOT && !file.startsWith(ROOT)) {
        res.writeHead(403).end("forbidden");
        return;
      }
      const st = await stat(file).catch(() => null);
      if (!st || !st.isFile()) {
        res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found");
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, {
        "Content-Type": TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream",
        "Content-Length": body.length,
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
      });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (exc) {
      res.writeHead(500).end(String(exc));
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({ server, port: actual, url: `http://${host}:${actual}/playground/` });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const i = process.argv.indexOf("--port");
  const port = Number(i >= 0 ? process.argv[i + 1] : process.env.PORT ?? 8080);
  const { url } = await startServer(port);
  console.log(`toolsift playground: ${url}  (Ctrl-C to stop)`);
}
