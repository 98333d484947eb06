// The Vercel AI SDK's toolSearch({ search }) hook, answered by toolsift:
//
//   import { toolSearch } from "ai";
//   import { aiSDKToolSearch } from "toolsift";
//   const search = toolSearch({ search: aiSDKToolSearch() });
//
// The SDK passes the deferred tools' names and descriptions with each query;
// their snapshot is built once per distinct set, and the engine's ranking is
// returned as those names. Or pass an engine built from the full definitions
// (e.g. with fromAnthropicTools or fromMCPTools, to index parameters too):
// its ranking is returned as the names it shows Anthropic (engine.names,
// the names of definitions("anthropic"), which the SDK must have been given).

import { open } from "../index.js";
import { fromAnthropicTools } from "../index.js";

/**
 * @param {{engine?: import("../index.js").Engine, limit?: number}} [options]
 * @returns {(args: {query: string, tools: Array<{name: string, description?: string}>}) => Promise<string[]>}
 */
export function aiSDKToolSearch({ engine = null, limit = 0 } = {}) {
  let built = null; // { key, engine } for the last tool set seen
  let shown = null; // canonical path → the given engine's Anthropic name
  let byName = null; // and back, so that a search for a shown name finds its tool
  return async ({ query, tools }) => {
    let e = engine;
    if (e === null) {
      const key = JSON.stringify(tools.map((t) => [t.name, t.description ?? ""]));
      if (built === null || built.key !== key) {
        const list = tools.map((t) => ({ name: t.name, description: t.description ?? "", input_schema: { type: "object" } }));
        const { snapshot } = await fromAnthropicTools(list);
        built?.engine.close();
        built = { key, engine: await open(snapshot) };
      }
      e = built.engine;
    }
    const request = { version: "tool-search.v1", query };
    if (limit) request.limit = limit;
    if (e !== engine) {
      // Built from the SDK's names: a list without namespaces, whose
      // canonical paths are "tools.<name>".
      return e.search(request).candidates.map((c) => c.canonical_path.slice("tools.".length));
    }
    if (shown === null) {
      const names = engine.names("anthropic");
      shown = new Map(names.map((n) => [n.canonical_path, n.name]));
      byName = new Map(names.map((n) => [n.name, n.canonical_path]));
    }
    request.query = byName.get(query) ?? query;
    return e.search(request).candidates.map((c) => shown.get(c.canonical_path));
  };
}
