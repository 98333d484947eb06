// Compiled by test/types.test.mjs with tsc --noEmit: the typed requests of
// index.d.ts. Each @ts-expect-error line must fail to type-check (tsc reports
// an unused one), the others must pass.
import { open, type SearchRequest, type InspectRequest } from "toolsift";

const engine = await open();

const ok: SearchRequest = { version: "tool-search.v1", query: "send a file", limit: 5, effects: ["read", "write"] };
engine.search(ok);
engine.searchRaw({ version: "tool-search.v1", query: "q", subqueries: ["a", "b"], candidate_limit: 20 }, { explain: true });
engine.search('{"version":"tool-search.v1","query":"q"}'); // raw text: the module validates it
engine.search(new TextEncoder().encode('{"version":"tool-search.v1","query":"q"}'));
const top = engine.search(ok).candidates[0]?.canonical_path ?? "";
const inspect: InspectRequest = { version: "schema-inspect.v1", canonical_path: top, expected_source_hash: "h1", expected_surface_hash: "h2" };
engine.inspect(inspect);

// @ts-expect-error misspelled fields
engine.search({ versoin: "tool-search.v1", qurey: "q" });
// @ts-expect-error one misspelled field beside the right ones
engine.search({ version: "tool-search.v1", query: "q", limt: 3 });
// @ts-expect-error the wrong version
engine.searchRaw({ version: "tool-search.v2", query: "q" });
// @ts-expect-error no query
engine.search({ version: "tool-search.v1" });
// @ts-expect-error a limit as a string
engine.search({ version: "tool-search.v1", query: "q", limit: "5" });
// @ts-expect-error an unknown effect
engine.search({ version: "tool-search.v1", query: "q", effects: ["delete"] });
// @ts-expect-error an inspect request to search
engine.search(inspect);
// @ts-expect-error a search request to inspect
engine.inspect(ok);
// @ts-expect-error inspect without the catalog hashes
engine.inspectRaw({ version: "schema-inspect.v1", canonical_path: top });
// @ts-expect-error a number is no request
engine.search(42);

// lint: a typed report; an expectation needs both members.
const report = engine.lint({ expect: [{ query: "发送消息", tool: "chat.send_message" }] });
const level: "info" | "warning" | "error" = report.findings[0].level;
const pairs: number = report.summary.confusable_pairs;
void level, pairs;
// @ts-expect-error an expectation without its tool
engine.lint({ expect: [{ query: "q" }] });
// @ts-expect-error the report has no such member
void report.summary.unreachable_tools;

engine.close();
