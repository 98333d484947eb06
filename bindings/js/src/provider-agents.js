// The OpenAI Agents SDK's client-executed tool search, answered by toolsift:
//
//   import { toolSearchTool } from "@openai/agents";
//   import { agentsToolSearch } from "toolsift";
//   const search = toolSearchTool(agentsToolSearch(engine));
//
// The options carry our search tool's description and parameter schema and
// an `execute` hook: the SDK hands it the model's tool_search_call and the
// agent's tools, and loads the tools it returns, here the ones the engine's
// tool_search_output holds, in rank order and within the budget.

/**
 * The own names of an answer's tools, in rank order: the answer shows each
 * under its provider name (a name OpenAI refuses, or one two tools would
 * share, is renamed), which the engine maps back to the tool.
 */
function loadedNames(engine, tools) {
  const own = (name, namespace) => engine.resolveName("openai", name, { namespace }).name;
  const names = [];
  for (const t of tools) {
    if (t.type === "namespace") for (const m of t.tools) names.push(own(m.name, t.name));
    else names.push(own(t.name, ""));
  }
  return names;
}

/**
 * Options for the Agents SDK's toolSearchTool({ execution: "client", … }).
 * @param {import("../index.js").Engine} engine built from the agent's deferred tools
 * @param {{budgetTokens?: number}} [options]
 */
export function agentsToolSearch(engine, { budgetTokens = 0 } = {}) {
  const definition = engine.openAIToolSearchTool();
  return {
    execution: "client",
    description: definition.description,
    parameters: definition.parameters,
    execute: ({ availableTools, toolCall }) => {
      const item = { type: "tool_search_call", call_id: toolCall.call_id ?? toolCall.callId ?? toolCall.id ?? "tool_search", arguments: toolCall.arguments };
      const names = loadedNames(engine, engine.answerToolSearchCall(item, { budgetTokens }).tools);
      const byName = new Map(availableTools.map((t) => [t.name, t]));
      return names.map((n) => byName.get(n)).filter(Boolean);
    },
  };
}

/** The OpenAI definitions of an agent's function tools, for fromOpenAITools. */
export function agentsToolDefinitions(tools) {
  return tools
    .filter((t) => t.type === "function")
    .map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: t.strict ?? null, defer_loading: Boolean(t.deferLoading) }));
}
