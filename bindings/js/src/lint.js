// Lint a catalog: which tools an agent will not find, will confuse, or
// should not trust. Computed inside the module (the "lint" op of
// toolsift_provider; core/lint in the project), so every host returns the
// same toolsift.lint.v1 bytes; docs/CATALOGS.md describes each check.

/**
 * The provider request of a lint: `expect` lists {query, tool} pairs (tool:
 * a canonical path or any name a query resolves exactly), each reported
 * with its rank. Only those two members are sent, so that a typo in a key
 * cannot silently drop an expectation.
 */
export function lintRequest(expect) {
  const request = { op: "lint" };
  if (expect === undefined || expect === null) return request;
  if (!Array.isArray(expect)) throw new TypeError("expect must be an array of {query, tool}");
  request.expect = expect.map((x, i) => {
    if (x === null || typeof x !== "object" || typeof x.query !== "string" || typeof x.tool !== "string") {
      throw new TypeError(`expect[${i}] must be {query: string, tool: string}`);
    }
    return { query: x.query, tool: x.tool };
  });
  return request;
}
