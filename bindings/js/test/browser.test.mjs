// The playground in Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH),
// driven by playwright-core (which never downloads a browser). Without a
// Chromium the browser tests are skipped with a warning (and npm test repeats
// it after the summary), except under CI=true, where they fail: a CI machine
// that lost its browser must not pass silently. The static server's test
// needs no browser and always runs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { open } from "../index.js";
import { startServer } from "../scripts/serve.mjs";
import { PKG, goldenLines } from "./helpers.mjs";
import { CHROMIUM, MISSING, REQUIRED } from "./chromium.mjs";

// Skipped only when the browser is missing and not required.
const SKIP = MISSING && !REQUIRED ? `${MISSING}: browser test skipped` : false;
if (SKIP) console.warn(`WARNING: ${SKIP}`);
const QUERY = "查询群消息已读状态";
const ARTIFACTS = path.join(PKG, "test-artifacts");

let server, url, browser, profile;

before(async () => {
  ({ server, url } = await startServer(0));
  if (MISSING) return;
  const { chromium } = await import("playwright-core");
  profile = mkdtempSync(path.join(tmpdir(), "toolsift-chromium-"));
  // A new empty profile (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("static server: content types and no escape from the package", async () => {
  const base = url.replace(/playground\/$/, "");
  const wasm = await fetch(base + "toolsearch.wasm", { method: "HEAD" });
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.match((await fetch(url)).headers.get("content-type"), /^text\/html/);
  assert.match((await fetch(base + "index.js", { method: "HEAD" })).headers.get("content-type"), /^text\/javascript/);
  assert.equal((await fetch(base + "..%2f..%2fREADME.md")).status, 403);
  assert.equal((await fetch(base + "nope.txt")).status, 404);
});

async function expectedRaw() {
  const request = { version: "tool-search.v1", query: QUERY };
  for (const name of ["misc.jsonl.gz", "workflows.jsonl.gz", "identity.jsonl.gz", "intent_use_when.jsonl.gz", "forbidden_avoid_when.jsonl.gz"]) {
    const hit = goldenLines(name).find((l) => JSON.stringify(l.request) === JSON.stringify({ query: QUERY }) && l.wire_response);
    if (hit) return { raw: hit.wire_response, source: `golden ${name}` };
  }
  const engine = await open();
  try {
    return { raw: engine.searchRaw(request), source: "the library in Node" };
  } finally {
    engine.close();
  }
}

for (const [label, viewport] of [["desktop", { width: 1280, height: 900 }], ["375 px", { width: 375, height: 812 }]]) {
  test(`playground (${label}): search, raw bytes, inspect`, { skip: SKIP }, async () => {
    if (MISSING) assert.fail(`${MISSING}, and CI=true requires the browser tests`);
    const want = await expectedRaw();
    const page = await browser.newPage();
    await page.setViewportSize(viewport);
    const problems = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    try {
      const t0 = Date.now();
      await page.goto(url);
      await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
      await page.fill("#query", QUERY);
      await page.click("#search");
      await page.waitForSelector(".result[data-path]");
      const loadToFirstResult = Date.now() - t0;
      const inPage = await page.evaluate(() => window.__toolsift);

      const paths = await page.$$eval(".result[data-path]", (els) => els.map((e) => e.dataset.path));
      assert.equal(paths[0], "chat.query_msg_read_status");
      const raw = await page.textContent("#raw");
      assert.equal(raw, want.raw, `#raw differs from ${want.source}`);

      await page.click(".result[data-path='chat.query_msg_read_status']");
      await page.waitForSelector("#inspect .param");
      const params = await page.$$eval("#inspect .param", (rows) => rows.map((r) => r.dataset.name));
      assert.ok(params.includes("conversation-id") && params.includes("message-id"), params.join(","));
      const required = await page.textContent("#inspect .param[data-name='conversation-id'] .req");
      assert.equal(required, "required");

      // nothing overflows the viewport horizontally
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page is ${overflow}px wider than the viewport`);

      // open() without arguments in the browser fetches the packaged dws.snap next to index.js
      const viaDefault = await page.evaluate(async (q) => {
        const { open } = await import("../index.js");
        const e = await open();
        try { return e.searchRaw({ version: "tool-search.v1", query: q }); } finally { e.close(); }
      }, QUERY);
      assert.equal(viaDefault, want.raw);

      // a typed error shows in the page, and the engine keeps answering
      await page.fill("#limit", "21");
      await page.click("#search");
      await page.waitForSelector("#error:not([hidden])");
      assert.match(await page.textContent("#error"), /invalid_limit/);
      await page.fill("#limit", "5");
      await page.click("#search");
      await page.waitForSelector(".result[data-path]");

      await page.click(".result[data-path='chat.query_msg_read_status']");
      await page.waitForSelector("#inspect .param");
      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = path.join(ARTIFACTS, label === "desktop" ? "playground.png" : "playground-375.png");
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`${label}: page load to first result ${loadToFirstResult} ms (in page: engine ready ${inPage.loadMs.toFixed(0)} ms, first result ${inPage.firstResultMs.toFixed(0)} ms); raw matches ${want.source}; screenshot ${path.relative(PKG, shot)}`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
