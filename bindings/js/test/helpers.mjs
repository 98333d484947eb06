// Shared test helpers: the repository root is two levels above bindings/js.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const PKG = fileURLToPath(new URL("..", import.meta.url));
export const REPO = path.resolve(PKG, "..", "..");
export const GOLDEN = path.join(REPO, "testdata", "dws", "golden");

export const CHINESE_QUERY = { version: "tool-search.v1", query: "给群里发文件并确认消息已读", limit: 5, candidate_limit: 20 };

/** Parsed lines of a gzip'd JSONL golden file. */
export function goldenLines(name) {
  const text = gunzipSync(readFileSync(path.join(GOLDEN, name))).toString("utf8");
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}
