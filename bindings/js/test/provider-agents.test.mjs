// The OpenAI Agents SDK adapter inside the SDK's own runner (run() with a
// Model that plays recorded Responses items, no network): the model's
// client-executed tool_search_call is answered by toolsift, the runner loads
// those tools, and the next turn's call of one of them runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Agent, run, tool, toolSearchTool, setTracingDisabled, Usage } from "@openai/agents";
import { agentsToolSearch, agentsToolDefinitions, fromOpenAITools, open } from "../index.js";
import { PKG } from "./helpers.mjs";

const built = readFileSync(path.join(PKG, "toolsearch.wasm")).includes("toolsift_provider");
const skip = built ? false : "the packaged toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh";

test("Agents SDK toolSearchTool(agentsToolSearch(engine)) loads the engine's ranking", { skip }, async () => {
  setTracingDisabled(true);
  const ran = [];
  const params = (props) => ({ type: "object", properties: props, required: Object.keys(props), additionalProperties: false });
  const mk = (name, description, props) => tool({ name, description, deferLoading: true, strict: true, parameters: params(props), execute: async (input) => { ran.push([name, input]); return "ok"; } });
  const tools = [
    mk("update_customer_email", "Change the email address on a customer's account.", { customer_id: { type: "string" }, email: { type: "string" } }),
    mk("get_customer_profile", "Fetch a customer's profile by customer ID.", { customer_id: { type: "string" } }),
    mk("search_flights", "Search flights between two airports on a date.", { origin: { type: "string" }, destination: { type: "string" }, date: { type: "string" } }),
  ];
  const { snapshot } = await fromOpenAITools(agentsToolDefinitions(tools));
  const engine = await open(snapshot);
  const turns = [
    [{ type: "tool_search_call", id: "ts_1", callId: "call_ts_1", execution: "client", status: "completed", arguments: { query: "change a customer's email address", limit: 2 } }],
    [{ type: "function_call", id: "fc_1", callId: "call_fn_1", name: "update_customer_email", arguments: JSON.stringify({ customer_id: "c_42", email: "new@example.com" }), status: "completed" }],
    [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done." }] }],
  ];
  const requests = [];
  const model = {
    async getResponse(request) { requests.push(request); return { usage: new Usage(), output: turns.shift(), responseId: `resp_${requests.length}` }; },
    async *getStreamedResponse() { throw new Error("not streamed"); },
  };
  const options = agentsToolSearch(engine);
  let loaded = null;
  const execute = options.execute;
  options.execute = (args) => (loaded = execute(args));
  const agent = new Agent({ name: "support", instructions: "Help.", model, tools: [toolSearchTool(options), ...tools] });
  const result = await run(agent, "Please change the email of customer c_42 to new@example.com.");

  const ranked = engine.search({ version: "tool-search.v1", query: "change a customer's email address", limit: 2 }).candidates.map((c) => c.canonical_path.slice(6));
  assert.deepEqual(loaded.map((t) => t.name), ranked, "the runner got the engine's ranking");
  const searchTool = requests[0].tools.find((t) => t.type === "hosted_tool" || t.name === "tool_search");
  assert.ok(searchTool, "the search tool was sent");
  assert.deepEqual(searchTool.providerData?.parameters ?? searchTool.parameters, engine.openAIToolSearchTool().parameters, "with our parameter schema");
  assert.deepEqual(ran, [["update_customer_email", { customer_id: "c_42", email: "new@example.com" }]]);
  assert.equal(result.finalOutput, "Done.");
  engine.close();
});
