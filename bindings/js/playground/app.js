// The playground: the same package code as in Node (../index.js), with the
// module and the DWS snapshot fetched from the package directory.
import { open } from "../index.js";

const t0 = performance.now();
const $ = (sel) => document.querySelector(sel);
const state = { engine: null, catalog: null, products: new Set() };
window.__toolsift = { ready: false, loadMs: null, firstResultMs: null };

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

async function load() {
  try {
    const [wasm, snapshot] = await Promise.all([
      fetch("../toolsearch.wasm").then((r) => { if (!r.ok) throw new Error(`toolsearch.wasm: HTTP ${r.status}`); return r.arrayBuffer(); }),
      fetch("../dws.snap").then((r) => { if (!r.ok) throw new Error(`dws.snap: HTTP ${r.status}`); return r.arrayBuffer(); }),
    ]);
    state.engine = await open(new Uint8Array(snapshot), { wasm: new Uint8Array(wasm) });
    const info = state.engine.info();
    const ms = performance.now() - t0;
    window.__toolsift.loadMs = ms;
    $("#status").textContent = `Ready in ${ms.toFixed(0)} ms · ${info.tool_count} tools in ${info.product_count} products · profile ${info.profile}`;
    $("#query").disabled = false;
    $("#search").disabled = false;
    document.body.dataset.ready = "1";
    window.__toolsift.ready = true;
    $("#query").focus();
  } catch (exc) {
    $("#status").textContent = `Could not load the engine: ${exc.message}`;
    $("#status").classList.add("error");
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

function showError(err) {
  const box = $("#error");
  box.hidden = false;
  box.textContent = err.category ? `${err.category} · ${err.reason}: ${err.detail}` : String(err.message ?? err);
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
        el("span", { class: "title" }, c.title),
      ),
      el("code", { class: "path" }, c.canonical_path),
      c.primary_cli_path ? el("code", { class: "cli" }, c.primary_cli_path) : null,
      el("p", { class: "summary" }, c.agent_summary),
      el("div", { class: "badges" },
        badge("effect", c.effect), badge("risk", c.risk),
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
    el("div", { class: "badges" }, badge("effect", spec.effect), badge("risk", spec.risk),
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
load();
