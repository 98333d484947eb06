// The Vercel AI SDK adapter in the SDK's own loop (generateText with its
// MockLanguageModelV4 playing recorded turns, no network): the model searches,
// the SDK loads what toolsift ranked, and the next turn calls that tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { generateText, tool, toolSearch, jsonSchema, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { aiSDKToolSearch, open, fromAnthropicTools, fromMCPTools } from "../index.js";
import { PKG, REPO } from "./helpers.mjs";

const built = readFileSync(path.join(PKG, "toolsearch.wasm")).includes("toolsift_provider");
const skip = built ? false : "the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const turn = (content, unified) => ({ content, finishReason: { unified, raw: unified }, usage, warnings: [] });

test("AI SDK toolSearch({ search: aiSDKToolSearch() }) loads the engine's best tools", { skip }, async () => {
  const { tools: defs } = JSON.parse(readFileSync(path.join(REPO, "testdata", "provider", "anthropic-tools.json"), "utf8"));
  const calls = [];
  const tools = { search: toolSearch({ search: aiSDKToolSearch({ limit: 2 }) }) };
  for (const d of defs.filter((d) => d.defer_loading)) {
    tools[d.name] = tool({ deferLoading: true, description: d.description, inputSchema: jsonSchema(d.input_schema), execute: async (input) => { calls.push([d.name, input]); return { ok: true }; } });
  }
  const offered = [];
  const turns = [
    turn([{ type: "tool-call", toolCallId: "c1", toolName: "search", input: JSON.stringify({ query: "post a message to a slack channel" }) }], "tool-calls"),
    turn([{ type: "tool-call", toolCallId: "c2", toolName: "slack_post_message", input: JSON.stringify({ channel: "#release", text: "v1.2 is out" }) }], "tool-calls"),
    turn([{ type: "text", text: "Posted." }], "stop"),
  ];
  const model = new MockLanguageModelV4({ doGenerate: async (options) => { offered.push((options.tools ?? []).map((t) => t.name)); return turns.shift(); } });
  const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: "Tell #release that v1.2 is out." });

  // What the engine ranks for the query, over the same names and descriptions.
  const { snapshot } = await fromAnthropicTools(defs.filter((d) => d.defer_loading).map((d) => ({ name: d.name, description: d.description, input_schema: { type: "object" } })));
  const engine = await open(snapshot);
  const ranked = engine.search({ version: "tool-search.v1", query: "post a message to a slack channel", limit: 2 }).candidates.map((c) => c.canonical_path.slice(6));
  engine.close();

  assert.deepEqual(offered[0], ["search"], "only the search tool at first");
  assert.deepEqual(offered[1].filter((n) => n !== "search").sort(), [...ranked].sort(), "then what toolsift ranked");
  assert.deepEqual(calls, [["slack_post_message", { channel: "#release", text: "v1.2 is out" }]]);
  assert.equal(result.text, "Posted.");
});

// An engine given to the adapter answers the names it shows Anthropic (those
// of definitions("anthropic")): server a's tool b__c and server a__b's tool
// c are two names, and a tool named "files.read" one the API takes.
test("aiSDKToolSearch({ engine }) answers the engine's Anthropic names", { skip }, async () => {
  const list = await fromMCPTools(readFileSync(path.join(REPO, "testdata", "provider", "mcp-names.json")));
  const engine = await open(list.snapshot);
  try {
    const shown = engine.definitions("anthropic").map((d) => d.name);
    const search = aiSDKToolSearch({ engine, limit: 3 });
    const found = await search({ query: "read a file from the workspace", tools: [] });
    assert.ok(found.length > 0);
    for (const name of found) {
      assert.ok(shown.includes(name), `${name} is a name definitions("anthropic") shows`);
      assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
    }
    assert.deepEqual(await search({ query: "a__b__c_57a76311", tools: [] }), ["a__b__c_57a76311"]);
  } finally {
    engine.close();
  }
});
