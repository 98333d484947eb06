// The Vercel AI SDK's toolSearch({ search }) hook, answered by toolsift:
//
//   import { toolSearch } from "ai";
//   import { aiSDKToolSearch } from "toolsift";
//   const search = toolSearch({ search: aiSDKToolSearch() });
//
// The SDK passes the deferred tools' names and descriptions with each query;
// their snapshot is built once per distinct set (or pass an engine built from
// the full definitions, e.g. with fromAnthropicTools, to index parameters
// too) and the engine's ranking is returned as names.

import { open } from "../index.js";
import { fromAnthropicTools } from "../index.js";

/**
 * @param {{engine?: import("../index.js").Engine, limit?: number}} [options]
 * @returns {(args: {query: string, tools: Array<{name: string, description?: string}>}) => Promise<string[]>}
 */
export function aiSDKToolSearch({ engine = null, limit = 0 } = {}) {
  let built = null; // { key, engine } for the last tool set seen
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
    // Canonical paths are "tools.<name>" for a list without namespaces, and
    // "<product>.<name>" otherwise, which the SDK knows as "<product>__<name>"
    // only if it was given the names definitions("anthropic") uses.
    return e.search(request).candidates.map((c) =>
      c.product_id === "tools" ? c.canonical_path.slice("tools.".length) : `${c.product_id}__${c.canonical_path.slice(c.product_id.length + 1)}`,
    );
  };
}
