// The playground: the same package code as in Node (../index.js), with the
// module and the DWS snapshot fetched from the package directory. A person's
// own tools (pasted, loaded from a file, or one of the samples in samples/)
// are imported into a snapshot here, in the page, by the module itself.
// Everything shown from a catalog goes in as text nodes (el() below), never
// as HTML.
import { open, fromOpenAITools, fromAnthropicTools, fromMCPTools } from "../index.js";
// The exact requests Engine.answerToolSearchCall / answerToolUse send, so that
// the bytes shown are those calls' answers (providerRaw keeps them unparsed).
import { ops } from "../src/provider.js";

const t0 = performance.now();
const $ = (sel) => document.querySelector(sel);
const state = { module: null, engine: null, catalog: null, products: new Set(), building: false };
window.__toolsift = { ready: false, loadMs: null, firstResultMs: null, phases: [], catalog: null };

const IMPORTERS = { openai: fromOpenAITools, anthropic: fromAnthropicTools, mcp: fromMCPTools };
const SAMPLES = { openai: "samples/openai-tools.json", anthropic: "samples/anthropic-tools.json", mcp: "samples/mcp-github-slack.json" };
// A tool list bigger than this is refused before it is read into memory.
const MAX_TOOLS_BYTES = 32 << 20;
// The ids the payloads carry: a model would choose its own.
const CALL_ID = "call_playground";
const TOOL_USE_ID = "toolu_playground";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

const badge = (kind, value) => el("span", { class: `badge ${kind} ${kind}-${value}`, title: kind }, value);

async function fetchBytes(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/** A failure as one line: a typed error's category, reason and detail. */
function errorText(err) {
  return err?.category ? `${err.category} · ${err.reason}: ${err.detail ?? err.message}` : String(err?.message ?? err);
}

async function load() {
  try {
    const [wasm, snapshot] = await Promise.all([fetchBytes("../toolsearch.wasm"), fetchBytes("../dws.snap")]);
    state.module = await WebAssembly.compile(wasm);
    await useEngine(await open(snapshot, { wasm: state.module }), "dws", null);
    const ms = performance.now() - t0;
    window.__toolsift.loadMs = ms;
    $("#status").textContent = `Ready in ${ms.toFixed(0)} ms · ${$("#catalog-meta").textContent}`;
    for (const id of ["#query", "#search", "#source", "#build"]) $(id).disabled = false;
    document.body.dataset.ready = "1";
    window.__toolsift.ready = true;
    $("#query").focus();
  } catch (exc) {
    $("#status").textContent = `Could not load the engine: ${errorText(exc)}`;
    $("#status").classList.add("error");
  }
}

/** Serve searches from engine from now on (closing the previous one). */
async function useEngine(engine, source, list) {
  state.engine?.close();
  state.engine = engine;
  state.catalog = null;
  state.products = new Set();
  const info = engine.info();
  const what = source === "dws" ? "DWS CLI catalog" : `${info.format} tools`;
  $("#catalog-meta").textContent = `${what} · ${info.tool_count} tools in ${info.product_count} products · profile ${info.profile} · ${info.snapshot_bytes.toLocaleString("en")} bytes`;
  const report = list?.report;
  $("#import-report").textContent = report
    ? `Imported ${report.tools_imported} of ${report.tools_read} tools` +
      (report.tools_skipped ? `, ${report.tools_skipped} skipped (${(report.skipped ?? []).map((s) => `${s.tool}: ${s.reason}`).join("; ")})` : "") +
      (list.alwaysLoaded.length ? ` · always loaded, not searched: ${list.alwaysLoaded.join(", ")}` : "")
    : "";
  $("#openai-tool").textContent = engine.providerRaw(ops.openAIToolSearchTool());
  $("#anthropic-tool").textContent = engine.providerRaw(ops.anthropicSearchTool(""));
  $("#results").replaceChildren();
  $("#meta").textContent = "";
  $("#raw").textContent = "";
  $("#error").hidden = true;
  $("#payloads").hidden = true;
  $("#inspect").hidden = true;
  $("#product-ids").replaceChildren();
  window.__toolsift.catalog = { source, ...info };
  document.body.dataset.catalog = source;
}

// -- your own tools --------------------------------------------------

/** Let the page paint (the build itself runs on this thread, without pauses). */
const paint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

const PHASES = ["reading", "building", "opening"];
let phaseStart = 0;

/** Show the build at step (0-3) of PHASES, each finished phase with its time. */
async function phase(name, step) {
  const now = performance.now();
  $("#build-progress").value = step;
  for (const li of document.querySelectorAll(".phases li")) {
    const i = PHASES.indexOf(li.dataset.phase);
    const ms = li.querySelector(".ms");
    if (li.classList.contains("active")) ms.textContent = ` ${(now - phaseStart).toFixed(0)} ms`;
    if (step === 0) ms.textContent = "";
    li.className = i < step ? "done" : li.dataset.phase === name ? "active" : "";
  }
  phaseStart = now;
  if (name) window.__toolsift.phases.push({ phase: name, ms: Math.round(now - t0) });
  await paint();
}

let sampleLoad = null; // the sample being fetched into the text area

function onSource() {
  const source = $("#source").value;
  const own = source !== "dws";
  $("#format").disabled = source !== "paste";
  $("#file").disabled = source !== "paste";
  $("#tools").disabled = !own;
  $("#tools").hidden = !own;
  $(".catalog .file").hidden = source !== "paste";
  $("#build-error").hidden = true;
  if (SAMPLES[source]) {
    $("#format").value = source;
    $("#tools").value = "";
    const load = sampleLoad = fetch(SAMPLES[source]).then((r) => {
      if (!r.ok) throw new Error(`${SAMPLES[source]}: HTTP ${r.status}`);
      return r.text();
    }).then((text) => { if (sampleLoad === load) $("#tools").value = text; });
    load.catch(() => {}); // reported by the build that waits for it
  } else {
    sampleLoad = null;
    if (source === "paste" && $("#tools").dataset.sample) $("#tools").value = "";
  }
  $("#tools").dataset.sample = SAMPLES[source] ? "1" : "";
}

/** Editing a sample makes it your own list. */
function onEdit() {
  if (SAMPLES[$("#source").value]) {
    $("#source").value = "paste";
    $("#format").disabled = $("#file").disabled = false;
    sampleLoad = null;
  }
  $("#tools").dataset.sample = "";
}

async function onFile() {
  const file = $("#file").files[0];
  if (!file) return;
  $("#build-error").hidden = true;
  if (file.size > MAX_TOOLS_BYTES) {
    showBuildError({ category: "validation", reason: "catalog_too_large", detail: `${file.name} is ${file.size.toLocaleString("en")} bytes; the playground reads at most ${MAX_TOOLS_BYTES.toLocaleString("en")}` });
    return;
  }
  $("#tools").value = await file.text();
  $("#tools").dataset.sample = "";
}

function showBuildError(err) {
  const box = $("#build-error");
  box.textContent = errorText(err);
  box.hidden = false;
  window.__toolsift.buildError = { category: err?.category ?? null, reason: err?.reason ?? null, text: box.textContent };
}

async function build() {
  if (state.building || !state.module) return;
  state.building = true;
  const source = $("#source").value;
  const controls = ["#build", "#search", "#query", "#source", "#format", "#file", "#tools"];
  const was = controls.map((id) => $(id).disabled);
  for (const id of controls) $(id).disabled = true;
  $("#build-error").hidden = true;
  $("#progress").hidden = false;
  document.body.dataset.building = "1";
  window.__toolsift.phases = [];
  const start = performance.now();
  try {
    await phase("reading", 0);
    let snapshot, list = null, format = "dws";
    if (source === "dws") {
      snapshot = await fetchBytes("../dws.snap");
      await phase("opening", 2);
    } else {
      if (sampleLoad) await sampleLoad;
      format = $("#format").value;
      const text = $("#tools").value;
      if (text.length > MAX_TOOLS_BYTES) {
        throw { category: "validation", reason: "catalog_too_large", detail: `the list is longer than ${MAX_TOOLS_BYTES.toLocaleString("en")} bytes` };
      }
      const bytes = new TextEncoder().encode(text);
      await phase("building", 1);
      list = await IMPORTERS[format](bytes, { wasm: state.module });
      snapshot = list.snapshot;
      await phase("opening", 2);
    }
    const engine = await open(snapshot, { wasm: state.module });
    await useEngine(engine, source === "dws" ? "dws" : format, list);
    await phase(null, 3);
    const ms = performance.now() - start;
    window.__toolsift.buildMs = ms;
    $("#catalog-meta").textContent += ` · ready in ${ms.toFixed(0)} ms`;
    $("#status").textContent = `Serving ${$("#catalog-meta").textContent}`;
    $("#query").placeholder = source === "dws" ? "例如：查询群消息已读状态" : "e.g. post a message to a channel";
    $("#products").placeholder = source === "dws" ? "chat, ding, …" : "namespaces (products) to keep";
  } catch (err) {
    $("#progress").hidden = true;
    showBuildError(err);
  } finally {
    controls.forEach((id, i) => { $(id).disabled = was[i]; });
    delete document.body.dataset.building;
    state.building = false;
  }
}
function request() {
  const req = { version: "tool-search.v1", query: $("#query").value };
  const limit = Number.parseInt($("#limit").value, 10);
  if (Number.isFinite(limit)) req.limit = limit;
  const products = $("#products").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (products.length) req.product_ids = products;
  const effects = [...document.querySelectorAll('input[name="effect"]:checked')].map((c) => c.value);
  if (effects.length) req.effects = effects;
  return req;
}

/** The same query as the search tool's arguments (products as namespaces). */
function searchArguments(req) {
  const args = { query: req.query };
  if (req.limit !== undefined) args.limit = req.limit;
  if (req.product_ids) args.namespaces = req.product_ids;
  if (req.effects) args.effects = req.effects;
  return args;
}

function budget() {
  const b = Number.parseInt($("#budget").value, 10);
  return Number.isFinite(b) ? b : 0;
}

/** One payload: the request shown, then the module's exact answer (or its typed error). */
function showPayload(kind, input, answer) {
  $(`#${kind}-call`).textContent = JSON.stringify(input);
  const out = $(`#${kind}-output`);
  let raw;
  try {
    raw = answer();
  } catch (err) {
    out.textContent = err.raw ?? errorText(err);
    out.classList.add("failed");
    $(`#${kind}-meta`).textContent = errorText(err);
    return;
  }
  out.classList.remove("failed");
  out.textContent = raw;
  const bytes = new TextEncoder().encode(raw).length;
  const parsed = JSON.parse(raw);
  const n = kind === "openai"
    ? parsed.tools.reduce((k, t) => k + (t.type === "namespace" ? t.tools.length : 1), 0)
    : parsed.content.filter((c) => c.type === "tool_reference").length;
  $(`#${kind}-meta`).textContent = kind === "openai"
    ? `${n} tool definition${n === 1 ? "" : "s"} loaded · ${bytes.toLocaleString("en")} bytes`
    : `${n} tool_reference block${n === 1 ? "" : "s"} · ${bytes.toLocaleString("en")} bytes`;
}

function showPayloads(req) {
  const args = searchArguments(req);
  const tokens = budget();
  const call = { type: "tool_search_call", call_id: CALL_ID, execution: "client", arguments: args };
  showPayload("openai", call, () => state.engine.providerRaw(ops.answerToolSearchCall(call, tokens)));
  const use = { type: "tool_use", id: TOOL_USE_ID, name: "tool_search", input: args };
  showPayload("anthropic", use, () => state.engine.providerRaw(ops.answerToolUse(use, tokens)));
  $("#payloads").hidden = false;
}

function showError(err) {
  const box = $("#error");
  box.hidden = false;
  box.textContent = errorText(err);
}

function runSearch(ev) {
  ev?.preventDefault();
  if (!state.engine) return;
  $("#error").hidden = true;
  const list = $("#results");
  list.replaceChildren();
  const req = request();
  const start = performance.now();
  let raw;
  try {
    raw = state.engine.searchRaw(req);
  } catch (err) {
    $("#raw").textContent = err.raw ?? "";
    $("#meta").textContent = "";
    showError(err);
    $("#payloads").hidden = true;
    return;
  }
  const ms = performance.now() - start;
  const res = JSON.parse(raw);
  state.catalog = res.catalog;
  $("#raw").textContent = raw;
  $("#meta").replaceChildren(
    el("span", { class: "pill" }, res.strategy),
    ` ${res.candidates.length} result${res.candidates.length === 1 ? "" : "s"} in `,
    el("strong", { id: "elapsed" }, `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`),
  );
  for (const c of res.candidates) {
    state.products.add(c.product_id);
    const item = el("li", { class: "result", "data-path": c.canonical_path, tabIndex: 0, role: "button" },
      el("div", { class: "result-head" },
        el("span", { class: "rank" }, String(c.rank)),
        el("span", { class: "title" }, c.title ?? c.canonical_path),
      ),
      c.title ? el("code", { class: "path" }, c.canonical_path) : null,
      c.primary_cli_path ? el("code", { class: "cli" }, c.primary_cli_path) : null,
      el("p", { class: "summary" }, c.agent_summary),
      el("div", { class: "badges" },
        c.effect ? badge("effect", c.effect) : null, c.risk ? badge("risk", c.risk) : null,
        c.confirmation && c.confirmation !== "not_required" ? badge("confirm", c.confirmation) : null,
        el("span", { class: "badge product" }, c.product_id)),
    );
    item.addEventListener("click", () => runInspect(c.canonical_path, item));
    item.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); runInspect(c.canonical_path, item); } });
    list.append(item);
  }
  if (!res.candidates.length) list.append(el("li", { class: "empty" }, "No tool matches."));
  $("#product-ids").replaceChildren(...[...state.products].sort().map((p) => el("option", { value: p })));
  if (window.__toolsift.firstResultMs === null && res.candidates.length) window.__toolsift.firstResultMs = performance.now() - t0;
  showPayloads(req);
}

function runInspect(path, item) {
  document.querySelectorAll(".result.selected").forEach((n) => n.classList.remove("selected"));
  item?.classList.add("selected");
  const panel = $("#inspect");
  const body = $("#inspect-body");
  panel.hidden = false;
  const req = { version: "schema-inspect.v1", canonical_path: path,
    expected_source_hash: state.catalog.source_hash, expected_surface_hash: state.catalog.surface_hash };
  let spec;
  const start = performance.now();
  try {
    spec = state.engine.inspect(req).tool_spec;
  } catch (err) {
    body.replaceChildren(el("p", { class: "error" }, `${err.category} · ${err.reason}: ${err.detail ?? err.message}`));
    return;
  }
  $("#inspect-meta").textContent = `${(performance.now() - start).toFixed(2)} ms`;
  const params = Object.entries(spec.parameters ?? {});
  const rows = params.map(([name, p]) => el("tr", { class: "param", "data-name": name },
    el("td", { class: "pname" }, el("code", {}, name)),
    el("td", {}, p.type ?? ""),
    el("td", { class: p.required ? "req yes" : "req" }, p.required ? "required" : "optional"),
    el("td", { class: "pdesc" }, p.description ?? ""),
  ));
  const list = (title, items) => items?.length
    ? el("div", { class: "notes" }, el("h4", {}, title), el("ul", {}, ...items.map((t) => el("li", {}, t)))) : null;
  body.replaceChildren(
    el("h3", { class: "spec-title" }, el("code", {}, spec.canonical_path ?? path)),
    spec.cli_path ? el("p", { class: "cli-line" }, el("code", {}, `dws ${spec.cli_path}`)) : null,
    el("p", { class: "desc" }, spec.description ?? spec.agent_summary ?? ""),
    el("div", { class: "badges" }, spec.effect ? badge("effect", spec.effect) : null, spec.risk ? badge("risk", spec.risk) : null,
      spec.confirmation ? badge("confirm", spec.confirmation) : null),
    list("Use when", spec.use_when),
    list("Avoid when", spec.avoid_when),
    el("h4", {}, `Parameters (${params.length})`),
    params.length
      ? el("div", { class: "table-wrap" }, el("table", { class: "params" },
          el("thead", {}, el("tr", {}, el("th", {}, "Name"), el("th", {}, "Type"), el("th", {}, "Required"), el("th", {}, "Description"))),
          el("tbody", {}, ...rows)))
      : el("p", { class: "meta" }, "No parameters."),
  );
  if (window.matchMedia("(max-width: 900px)").matches) panel.scrollIntoView({ behavior: "smooth", block: "start" });
}

$("#form").addEventListener("submit", runSearch);
$("#source").addEventListener("change", onSource);
$("#tools").addEventListener("input", onEdit);
$("#file").addEventListener("change", onFile);
$("#build").addEventListener("click", build);
load();
