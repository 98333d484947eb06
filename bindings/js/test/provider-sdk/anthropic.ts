// Type-checked (tsc --strict) against @anthropic-ai/sdk's own types.
import type Anthropic from "@anthropic-ai/sdk";
import { open, fromAnthropicTools } from "../../index.js";

export async function client(tools: Anthropic.Tool[], message: Anthropic.Message) {
  const { snapshot } = await fromAnthropicTools(tools);
  const engine = await open(snapshot);
  const searchTool: Anthropic.Tool = engine.anthropicSearchTool();
  const deferred: Anthropic.Tool[] = engine.definitions("anthropic");
  const results: Anthropic.ToolResultBlockParam[] = [];
  const calls: string[] = [];
  for (const block of message.content) {
    if (block.type === "tool_use" && block.name === searchTool.name) results.push(engine.answerToolUse(block));
    else if (block.type === "tool_use") calls.push(engine.resolveName("anthropic", block.name).canonical_path);
  }
  const next: Anthropic.MessageParam = { role: "user", content: results };
  const params: Anthropic.MessageCreateParamsNonStreaming = { model: "claude-sonnet-4-5", max_tokens: 1024, tools: [searchTool, ...deferred], messages: [next] };
  return { params, calls };
}
