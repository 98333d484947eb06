// The playground in Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH),
// driven by playwright-core (which never downloads a browser). Without a
// Chromium the browser tests are skipped with a warning (and npm test repeats
// it after the summary), except under CI=true, where they fail: a CI machine
// that lost its browser must not pass silently. The static server's test
// needs no browser and always runs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { open, fromOpenAITools, fromMCPTools } from "../index.js";
import { startServer } from "../scripts/serve.mjs";
import { PKG, REPO, goldenLines } from "./helpers.mjs";
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

// The page's samples are copies of the shared test vectors (the static server
// serves only the package directory); they must not drift from them.
const SAMPLES = [
  ["openai-tools.json", "testdata/provider/openai-tools.json"],
  ["anthropic-tools.json", "testdata/provider/anthropic-tools.json"],
  ["mcp-github-slack.json", "testdata/mcp/github-slack.json"],
  ["mcp-github-slack.LICENSE", "testdata/mcp/LICENSE"],
];

test("playground samples are the testdata tool lists, byte for byte", () => {
  for (const [name, source] of SAMPLES) {
    assert.ok(readFileSync(path.join(PKG, "playground", "samples", name)).equals(readFileSync(path.join(REPO, source))), `playground/samples/${name} differs from ${source}`);
  }
});

/** Build the page's catalog from what is selected and pasted; resolves when it is served (or refused). */
async function buildInPage(page, source) {
  await page.click("#build");
  await page.waitForSelector(`body[data-ready='1']:not([data-building])`);
  if (source) await page.waitForSelector(`body[data-catalog='${source}']`);
}

/** Search in the page; resolves to what the page shows. */
async function searchInPage(page, query, { limit, budget = "" }) {
  await page.fill("#query", query);
  await page.fill("#limit", String(limit));
  await page.fill("#budget", budget);
  await page.click("#search");
  await page.waitForSelector("#payloads:not([hidden]) .payload");
  await page.waitForFunction((q) => JSON.parse(document.querySelector("#raw").textContent || "{}").query === q, query);
  return page.evaluate(() => ({
    paths: [...document.querySelectorAll(".result[data-path]")].map((e) => e.dataset.path),
    raw: document.querySelector("#raw").textContent,
    openaiCall: document.querySelector("#openai-call").textContent,
    openaiOutput: document.querySelector("#openai-output").textContent,
    anthropicCall: document.querySelector("#anthropic-call").textContent,
    anthropicOutput: document.querySelector("#anthropic-output").textContent,
  }));
}

/** What the library in Node answers for the same tools and query. */
function expectedAnswers(engine, query, limit, budgetTokens = 0) {
  const args = { query, limit };
  const item = { type: "tool_search_call", call_id: "call_playground", execution: "client", arguments: args };
  const block = { type: "tool_use", id: "toolu_playground", name: "tool_search", input: args };
  const budget = budgetTokens ? { budget_tokens: budgetTokens } : {};
  return {
    item, block,
    raw: engine.searchRaw({ version: "tool-search.v1", query, limit }),
    paths: engine.search({ version: "tool-search.v1", query, limit }).candidates.map((c) => c.canonical_path),
    openai: engine.answerToolSearchCall(item, { budgetTokens }),
    openaiRaw: engine.providerRaw({ op: "answer_tool_search_call", item, ...budget }),
    anthropic: engine.answerToolUse(block, { budgetTokens }),
    anthropicRaw: engine.providerRaw({ op: "answer_tool_use", block, ...budget }),
  };
}

function assertPayloads(shown, want, label) {
  assert.deepEqual(shown.paths, want.paths, `${label}: references`);
  assert.equal(shown.raw, want.raw, `${label}: #raw`);
  assert.deepEqual(JSON.parse(shown.openaiCall), want.item, `${label}: the tool_search_call shown`);
  assert.deepEqual(JSON.parse(shown.anthropicCall), want.block, `${label}: the tool_use shown`);
  // byte for byte the library's answers in Node (and the same values as its parsed ones)
  assert.equal(shown.openaiOutput, want.openaiRaw, `${label}: tool_search_output`);
  assert.deepEqual(JSON.parse(shown.openaiOutput), want.openai, `${label}: tool_search_output parsed`);
  assert.equal(shown.anthropicOutput, want.anthropicRaw, `${label}: tool_result`);
  assert.deepEqual(JSON.parse(shown.anthropicOutput), want.anthropic, `${label}: tool_result parsed`);
}

test("playground: your own tools built in the page, searched, and their provider payloads", { skip: SKIP }, async () => {
  if (MISSING) assert.fail(`${MISSING}, and CI=true requires the browser tests`);
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  const engines = [];
  try {
    await page.goto(url);
    await page.waitForSelector("body[data-ready='1'][data-catalog='dws']");

    // pick the MCP sample (two real servers' tools/list), build it in the page
    await page.selectOption("#source", "mcp");
    await buildInPage(page, "mcp");
    const mcp = await fromMCPTools(readFileSync(path.join(REPO, "testdata/mcp/github-slack.json")));
    const mcpEngine = await open(mcp.snapshot);
    engines.push(mcpEngine);
    const shownCatalog = await page.evaluate(() => window.__toolsift);
    assert.deepEqual(shownCatalog.phases.map((p) => p.phase), ["reading", "building", "opening"]);
    assert.equal(shownCatalog.catalog.source_hash, mcpEngine.info().source_hash);
    assert.equal(shownCatalog.catalog.surface_hash, mcpEngine.info().surface_hash);
    assert.match(await page.textContent("#import-report"), /Imported 34 of 34 tools/);
    assert.deepEqual(await page.$$eval(".phases li", (lis) => lis.map((li) => [li.dataset.phase, li.className, /^ \d+ ms$/.test(li.querySelector(".ms").textContent)])),
      [["reading", "done", true], ["building", "done", true], ["opening", "done", true]]);
    const q1 = "post a message to a slack channel";
    assertPayloads(await searchInPage(page, q1, { limit: 3 }), expectedAnswers(mcpEngine, q1, 3), "mcp");

    // the OpenAI sample (namespaces, always-loaded tools), under a small budget
    await page.selectOption("#source", "openai");
    await buildInPage(page, "openai");
    const oa = await fromOpenAITools(readFileSync(path.join(REPO, "testdata/provider/openai-tools.json")));
    const oaEngine = await open(oa.snapshot);
    engines.push(oaEngine);
    assert.match(await page.textContent("#import-report"), new RegExp(`always loaded, not searched: ${oa.alwaysLoaded.join(", ")}`));
    const q2 = "change a customer's email";
    const shown = await searchInPage(page, q2, { limit: 5, budget: "300" });
    const want = expectedAnswers(oaEngine, q2, 5, 300);
    assertPayloads(shown, want, "openai, budget 300");
    const loaded = JSON.parse(shown.openaiOutput).tools.flatMap((t) => (t.type === "namespace" ? t.tools : [t]));
    assert.ok(loaded.length > 0 && loaded.length < want.paths.length, `the budget loaded ${loaded.length} of ${want.paths.length}`);

    // a bad paste: the module's typed error, and the last catalog keeps answering
    await page.selectOption("#source", "paste");
    await page.selectOption("#format", "openai");
    await page.fill("#tools", '{"tools": 5}');
    await buildInPage(page, null);
    await page.waitForSelector("#build-error:not([hidden])");
    assert.equal(await page.isVisible("#progress"), false);
    const refused = await fromOpenAITools('{"tools": 5}').then(() => null, (err) => err);
    assert.equal(refused?.reason, "invalid_catalog");
    assert.equal(await page.textContent("#build-error"), `validation · invalid_catalog: ${refused.detail}`);
    assert.equal(await page.getAttribute("body", "data-catalog"), "openai");
    assertPayloads(await searchInPage(page, q2, { limit: 5, budget: "300" }), want, "openai after the bad paste");

    // catalog text is shown as text, never as markup
    const hostile = { tools: [{ name: "render_probe", description: 'Probe <img src=x onerror="window.__injected=1"> <b>bold</b> & co',
      inputSchema: { type: "object", properties: { q: { type: "string", description: "<script>window.__injected=2</script>" } } } }] };
    await page.selectOption("#format", "mcp");
    await page.setInputFiles("#file", { name: "probe.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(hostile)) });
    await page.waitForFunction(() => document.querySelector("#tools").value.includes("render_probe"));
    await buildInPage(page, "mcp");
    await page.fill("#query", "probe");
    await page.fill("#budget", "");
    await page.click("#search");
    await page.waitForSelector(".result[data-path]");
    await page.click(".result[data-path]");
    await page.waitForSelector("#inspect .param");
    assert.equal(await page.textContent(".result .summary"), hostile.tools[0].description);
    assert.equal(await page.textContent("#inspect .param .pdesc"), hostile.tools[0].inputSchema.properties.q.description);
    assert.equal(await page.locator("main img, main b, main script").count(), 0);
    assert.equal(await page.evaluate(() => window.__injected), undefined);

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the viewport`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.selectOption("#source", "mcp");
    await buildInPage(page, "mcp");
    await searchInPage(page, q1, { limit: 3 });
    const shot = path.join(ARTIFACTS, "playground-tools.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`own tools: built in the page in ${(await page.evaluate(() => window.__toolsift.buildMs)).toFixed(0)} ms (34 MCP tools); payloads match the library in Node; screenshot ${path.relative(PKG, shot)}`);
    assert.deepEqual(problems, []);
  } finally {
    for (const e of engines) e.close();
    await page.close();
  }
});
