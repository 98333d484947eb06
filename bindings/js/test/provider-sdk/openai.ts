// Type-checked (tsc --strict) against the openai SDK's own types: what
// toolsift returns goes into a Responses request without a cast.
import type OpenAI from "openai";
import { open, fromOpenAITools } from "../../index.js";

export async function client(tools: OpenAI.Responses.Tool[], response: OpenAI.Responses.Response) {
  const { snapshot, alwaysLoaded } = await fromOpenAITools(tools);
  const engine = await open(snapshot);
  const searchTool: OpenAI.Responses.ToolSearchTool = engine.openAIToolSearchTool();
  const sent: OpenAI.Responses.Tool[] = [searchTool, ...tools.filter((t) => "name" in t && alwaysLoaded.includes(t.name))];
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  const calls: string[] = [];
  for (const item of response.output) {
    if (item.type === "tool_search_call" && item.execution === "client") {
      const output: OpenAI.Responses.ResponseToolSearchOutputItemParam = engine.answerToolSearchCall(item, { budgetTokens: 4000 });
      input.push(item, output);
    }
    // A call of a loaded tool names it as shown; map it back to the tool.
    if (item.type === "function_call") calls.push(engine.resolveName("openai", item.name, { namespace: item.namespace ?? "" }).canonical_path);
  }
  const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: "gpt-5.4", tools: sent, input };
  return { params, calls };
}
