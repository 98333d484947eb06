// Type declarations for toolsift (written by hand).

/** Bytes accepted wherever the package takes binary input. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/** An effect a tool may have; the effects filter keeps only these. */
export type Effect = "read" | "write" | "destructive";

/** A tool-search.v1 request object (docs/ABI.md of the project); the module
 * refuses unknown fields, so a misspelled one does not type-check either. */
export interface SearchRequest {
  version: "tool-search.v1";
  /** The task in natural language, or a canonical / CLI path. */
  query: string;
  /** A decomposed workflow: one query per step, answered round-robin. */
  subqueries?: string[];
  /** References to return (1-20; 0 or absent means 5). */
  limit?: number;
  /** Candidates retrieved before the cut (1-100; 0 or absent means 20). */
  candidate_limit?: number;
  /** Only tools of these products (a hard filter). */
  product_ids?: string[];
  /** Only tools with these effects (a hard filter). */
  effects?: Effect[];
  /** Never these canonical paths. */
  exclude_canonical?: string[];
  /** The universe of this request (an extension: the DWS reference has no
   * such field): a tool outside it does not exist for the request, so it is
   * never a candidate nor named in any field, not even when the query names it
   * exactly. The filters above apply inside it. For a host serving several
   * clients from one catalog (docs/CONFORMANCE.md, difference 10). */
  scope?: SearchScope;
  /** Pattern mode instead of a query (query must then be ""): an RE2 regular
   * expression, case-insensitive, over tool names, descriptions and parameter
   * names and descriptions (docs/INTEGRATIONS.md). One whose compiled program
   * or work over the catalog is too large is refused as `pattern_too_complex`. */
  pattern?: string;
}

/** A request's scope: tools of these products (all, if absent or empty),
 * with these effects (all, if absent or empty), except these canonical paths. */
export interface SearchScope {
  product_ids?: string[];
  effects?: Effect[];
  exclude_canonical?: string[];
}

/** A schema-inspect.v1 request: both hashes come from the search response's `catalog`. */
export interface InspectRequest {
  version: "schema-inspect.v1";
  /** A canonical path, tool path, CLI path or alias, product ID or command group. */
  canonical_path: string;
  expected_source_hash: string;
  expected_surface_hash: string;
}

/** Raw request bytes or JSON text, passed to the module as they are (it
 * validates them); the typed object forms are SearchRequest and InspectRequest. */
export type RawRequest = string | Bytes;

/** Any request a method takes. */
export type Request = SearchRequest | InspectRequest | RawRequest;

export interface OpenOptions {
  /** The module to run instead of the packaged toolsearch.wasm (bytes or a compiled module). */
  wasm?: Uint8Array | ArrayBuffer | WebAssembly.Module;
}

export interface SearchOptions {
  /** Set flags bit 0: attach score_breakdown to each candidate (for tuning, never for agents). */
  explain?: boolean;
}

export interface CatalogVersion {
  source_hash: string;
  surface_hash: string;
}

export interface Candidate {
  canonical_path: string;
  primary_cli_path?: string;
  product_id: string;
  title: string;
  agent_summary: string;
  effect: "read" | "write" | "destructive" | string;
  risk: "low" | "medium" | "high" | string;
  confirmation: string;
  idempotency: string;
  rank: number;
  matched_fields?: string[];
  rank_sources?: string[];
  requires_inspect: boolean;
  score_breakdown?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A parsed tool-search.v1 response. */
export interface SearchResponse {
  version: "tool-search.v1";
  catalog: CatalogVersion;
  query: string;
  strategy: string;
  candidates: Candidate[];
  [key: string]: unknown;
}

export interface ParameterSpec {
  type?: string;
  required?: boolean;
  cli_required?: boolean;
  description?: string;
  [key: string]: unknown;
}

/** A parsed schema-inspect.v1 response. */
export interface InspectResponse {
  version: "schema-inspect.v1";
  catalog: CatalogVersion;
  tool_spec: {
    canonical_path: string;
    cli_path?: string;
    agent_summary?: string;
    description?: string;
    effect?: string;
    risk?: string;
    confirmation?: string;
    idempotency?: string;
    parameters?: Record<string, ParameterSpec>;
    use_when?: string[];
    avoid_when?: string[];
    examples?: string[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** What an engine serves (toolsift_info). */
export interface EngineInfo {
  profile: string;
  format: string;
  source_hash: string;
  surface_hash: string;
  tool_count: number;
  product_count: number;
  snapshot_bytes: number;
}

/** toolsift_version. */
export interface ModuleVersion {
  abi: number;
  module: string;
  snapshot_format: number;
  profiles: string[];
  formats: string[];
}

/**
 * One module instance serving one snapshot. Calls are synchronous and
 * single-threaded; for parallel searches run one Engine per Worker.
 * Construct with {@link open}.
 */
export declare class Engine {
  private constructor();
  /** The parsed tool-search.v1 response. */
  search(request: SearchRequest | RawRequest, options?: SearchOptions): SearchResponse;
  /**
   * The module's exact compact tool-search.v1 response (no newline), unparsed:
   * its UTF-8 bytes decoded to a string (`new TextEncoder().encode()` gives the
   * bytes back exactly). Python's `search_raw` returns the bytes themselves.
   */
  searchRaw(request: SearchRequest | RawRequest, options?: SearchOptions): string;
  /** The parsed schema-inspect.v1 response. */
  inspect(request: InspectRequest | RawRequest): InspectResponse;
  /** The module's exact pretty schema-inspect.v1 response (no newline), as searchRaw: a string. */
  inspectRaw(request: InspectRequest | RawRequest): string;
  info(): EngineInfo;

  // -- provider tool search (docs/INTEGRATIONS.md) --------------------

  /** The Responses `tool_search` tool to send beside the always-loaded tools (execution "client"). */
  openAIToolSearchTool(): OpenAIToolSearchTool;
  /**
   * The `tool_search_output` item answering a client-executed `tool_search_call`
   * item (an object or its JSON): call_id echoed, the found tools' full
   * definitions in rank order, within `budgetTokens` (default 8192; bytes/4).
   * Throws ValidationError (invalid_item, invalid_arguments, the search's reasons).
   */
  answerToolSearchCall(item: OpenAIToolSearchCall | string, options?: BudgetOptions): OpenAIToolSearchOutput;
  /** A Messages client-side search tool named `name` (default "tool_search"). */
  anthropicSearchTool(options?: { name?: string }): AnthropicSearchTool;
  /** The `tool_result` block of `tool_reference` blocks answering the search tool's `tool_use` block. */
  answerToolUse(block: AnthropicToolUse | string, options?: BudgetOptions): AnthropicToolResult;
  /** Every indexed tool's definition, in the provider's shape (for Anthropic: the deferred tools the request must list). */
  definitions(provider: "openai"): Array<OpenAIToolDefinition | OpenAINamespaceDefinition>;
  definitions(provider: "anthropic"): AnthropicToolDefinition[];
  /**
   * The name each indexed tool is shown under by the provider, in catalog
   * order (`namespace` for an OpenAI function inside one). A tool keeps its
   * own name where the provider takes it (1 to 64 of a-z A-Z 0-9 _ -) and no
   * other tool would share it; otherwise it is renamed with 8 hex digits of
   * its canonical path's SHA-256.
   */
  names(provider: "openai" | "anthropic"): ProviderName[];
  /**
   * The tool a provider showed as `name` (a tool_use's name; a function
   * call's name and namespace). Throws ValidationError (unknown_name).
   */
  resolveName(provider: "openai" | "anthropic", name: string, options?: { namespace?: string }): ResolvedName;
  /** The module's exact JSON answer to one provider request ({op, …}; wasm/ABI.md). */
  providerRaw(request: object | string | Bytes): string;
  /**
   * The catalog's toolsift.lint.v1 report (docs/CATALOGS.md): unreachable
   * tools, confusable pairs, thin descriptions, safety hints, and the rank
   * of each expectation. Throws ValidationError (unknown_tool,
   * invalid_expectation) for a bad expectation.
   */
  lint(options?: { expect?: LintExpectation[] }): LintReport;
  /** The module's exact toolsift.lint.v1 JSON. */
  lintRaw(options?: { expect?: LintExpectation[] }): string;

  /** Release the instance; later calls throw EngineClosedError. Idempotent. */
  close(): void;
  readonly closed: boolean;
  /** A trap made the instance unusable: open a new Engine. */
  readonly broken: boolean;
}

/**
 * Open snapshot bytes. Without a snapshot: in Node the bundled DWS snapshot
 * (dws.snap); in a browser it is fetched next to the package's index.js.
 * Rejects with ValidationError (invalid_snapshot, unsupported_snapshot_version)
 * for a bad snapshot.
 */
export declare function open(snapshot?: Uint8Array | ArrayBuffer | null, options?: OpenOptions): Promise<Engine>;

/**
 * Build snapshot bytes from a catalog, in a fresh instance; the bytes equal `wasmhost snapshot build`.
 * Formats: "dws" (a gzip'd tar or the JSON bundle of the DWS dump), "toolsift" (toolsift-catalog.v1 JSON),
 * "mcp" (tools/list results, or {"servers": {...}}), "openai", "anthropic" (tool definition arrays),
 * "beir" (a benchmark's corpus.jsonl), "openapi" (an OpenAPI 3.0/3.1 or Swagger 2.0 description, JSON or YAML).
 * See docs/CATALOGS.md.
 */
export declare function buildSnapshot(format: string, catalog: Uint8Array | ArrayBuffer | string | object, options?: OpenOptions): Promise<Uint8Array>;

/** toolsift_version of the packaged (or given) module. */
export declare function moduleVersion(options?: OpenOptions): Promise<ModuleVersion>;

/** toolsift_limits of the packaged (or given) module (wasm/ABI.md): its budgets and the errors a host gives in its place. */
export interface ModuleLimits {
  /** The largest search, Inspect or provider request, in bytes (65536). */
  readonly maxRequestBytes: number;
  /** Every budget the module reports, by its wire name (max_request_bytes, max_limit, max_query_runes, …). */
  readonly values: Readonly<Record<string, number>>;
  /** The module's own error for errors[key]: "search_request_too_large", "inspect_request_too_large",
   * "provider_request_too_large" or "request_too_large" (a CLI's input line). */
  refusal(key: string): ToolsiftError;
}
export declare function moduleLimits(options?: OpenOptions): Promise<ModuleLimits>;

export declare const VERSION: string;

/** A typed failure answered by the module (or by the host, for a trap). */
export declare class ToolsiftError extends Error {
  constructor(category: string, code: number, reason: string, message: string, raw?: string);
  /** "validation" | "discovery" | "internal" */
  readonly category: string;
  /** The wire's exit code: 3 validation, 6 discovery, 5 internal. */
  readonly code: number;
  /** The stable reason code, e.g. "invalid_limit", "catalog_changed", "invalid_snapshot" ("" when none). */
  readonly reason: string;
  /** The module's message (Error#message is "category (reason): detail"). */
  readonly detail: string;
  /** The compact error object {"error":{...}} exactly as the module returned it. */
  readonly raw: string;
  toJSON(): { error: { category: string; code: number; message: string; reason?: string } };
}
/** Category "validation" (code 3): a bad request, snapshot or catalog. */
export declare class ValidationError extends ToolsiftError {}
/** Category "discovery" (code 6): the catalog is not what the caller expected. */
export declare class DiscoveryError extends ToolsiftError {}
/** Category "internal" (code 5): a module bug, or a host trap (reason "host_failure"). */
export declare class InternalError extends ToolsiftError {}
/** A call on an Engine after close(). */
export declare class EngineClosedError extends Error {}

// -- provider tool search ----------------------------------------------

export interface BudgetOptions {
  /**
   * Cap on the loaded definitions, in tokens counted as bytes/4 (1-1048576;
   * 0 or absent: the default 8192). NaN and ±Infinity throw ValidationError
   * (invalid_budget), as an integer out of range does.
   */
  budgetTokens?: number;
}

/** What an import read, used and left out; `always_loaded` names the tools that stay in the request. */
export interface ImportReport {
  format: string;
  tools_read: number;
  tools_imported: number;
  tools_skipped: number;
  skipped?: Array<{ tool: string; reason: string }>;
  fields?: Array<{ name: string; used: number; ignored: number }>;
  always_loaded?: string[];
}

/** The result of fromOpenAITools, fromAnthropicTools, fromMCPTools. */
export interface ToolList {
  /** The deferred tools' snapshot, each with its definition: pass it to open(). */
  snapshot: Uint8Array;
  report: ImportReport;
  /** The report's exact JSON as the module wrote it. */
  reportText: string;
  /** Tools left out of the index (not deferred while others are, or built-in), in input order. */
  alwaysLoaded: string[];
}

/** The search tool's arguments (its parameter schema). */
export interface ToolSearchArguments {
  query: string;
  subqueries?: string[];
  limit?: number;
  namespaces?: string[];
  effects?: Effect[];
}

export interface OpenAIToolSearchTool {
  type: "tool_search";
  execution: "client";
  description: string;
  parameters: { [key: string]: unknown };
}

/** A Responses `tool_search_call` output item (the SDK's ResponseToolSearchCall fits). */
export interface OpenAIToolSearchCall {
  type: "tool_search_call";
  call_id?: string | null;
  id?: string;
  execution?: "server" | "client";
  status?: string;
  arguments: unknown;
}

/** A function tool as a tool_search_output loads it. */
export interface OpenAIFunctionDefinition {
  type: "function";
  name: string;
  description?: string | null;
  parameters: { [key: string]: unknown } | null;
  strict: boolean | null;
  defer_loading?: boolean;
}

export interface OpenAICustomDefinition {
  type: "custom";
  name: string;
  description?: string;
  defer_loading?: boolean;
}

export type OpenAIToolDefinition = OpenAIFunctionDefinition | OpenAICustomDefinition;

export interface OpenAINamespaceDefinition {
  type: "namespace";
  name: string;
  description: string;
  tools: OpenAIToolDefinition[];
}

export interface OpenAIToolSearchOutput {
  type: "tool_search_output";
  call_id: string;
  execution: "client";
  status: "completed";
  tools: Array<OpenAIToolDefinition | OpenAINamespaceDefinition>;
}

export interface AnthropicSearchTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

/** A Messages `tool_use` content block (the SDK's ToolUseBlock fits). */
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** One tool's name as a provider shows it (ProviderEngine.names). */
export interface ProviderName {
  canonical_path: string;
  /** The OpenAI namespace the function is in; absent for a top-level function and for Anthropic. */
  namespace?: string;
  name: string;
}

/** The tool behind a shown name (ProviderEngine.resolveName). */
export interface ResolvedName {
  canonical_path: string;
  product_id: string;
  /** The tool's own name in its catalog. */
  name: string;
}

export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: Array<{ type: "tool_reference"; tool_name: string } | { type: "text"; text: string }>;
}

export interface AnthropicToolDefinition {
  name: string;
  description?: string;
  input_schema: { type: "object"; [key: string]: unknown };
  defer_loading?: boolean;
}

/**
 * Import the tools a Responses or Chat Completions request passes (an array,
 * {tools: [...]}, JSON text or bytes) for client-executed tool search, in a
 * fresh instance: each tool keeps its definition, and when any tool or
 * namespace is marked defer_loading only the deferred ones are indexed.
 * Rejects with ValidationError (invalid_catalog).
 */
export declare function fromOpenAITools(tools: unknown, options?: OpenOptions): Promise<ToolList>;
/** fromOpenAITools for an Anthropic Messages tools list. */
export declare function fromAnthropicTools(tools: unknown, options?: OpenOptions): Promise<ToolList>;
/** fromOpenAITools for an MCP tools/list result or {servers: {...}}; every tool is indexed. */
export declare function fromMCPTools(tools: unknown, options?: OpenOptions): Promise<ToolList>;

/**
 * Which tools one conversation has loaded, under which catalog generation:
 * each answer loads only tools not loaded yet, within caps on the loaded set
 * (defaults 64 tools, 128 KiB of definitions), and says when the catalog
 * changed under the conversation (the loaded set then starts again).
 */
export declare class ToolSession {
  constructor(options?: { maxTools?: number; maxBytes?: number; state?: ToolSessionState | null });
  /** The state to store with the conversation (pass it back as options.state). */
  state: ToolSessionState;
  /** Whether the last answer found the catalog changed. */
  catalogChanged: boolean;
  /** The last answer's found tools left out: loaded before, or beyond the caps. */
  alreadyLoaded: string[];
  overCap: string[];
  /** Canonical paths loaded so far, in load order. */
  readonly loaded: string[];
  answerToolSearchCall(engine: Engine, item: OpenAIToolSearchCall | string, options?: BudgetOptions): OpenAIToolSearchOutput;
  answerToolUse(engine: Engine, block: AnthropicToolUse | string, options?: BudgetOptions): AnthropicToolResult;
}

export interface ToolSessionState {
  source_hash?: string;
  surface_hash?: string;
  max_tools?: number;
  max_bytes?: number;
  loaded?: Array<{ path: string; bytes: number }>;
}

/**
 * A search callback for the Vercel AI SDK's `toolSearch({ search })`: the
 * engine's ranking of the deferred tools, as names. Without `engine` it
 * indexes the names and descriptions the SDK passes (once per distinct set).
 */
export declare function aiSDKToolSearch(options?: { engine?: Engine; limit?: number }): (args: {
  query: string;
  tools: Array<{ name: string; description?: string }>;
}) => Promise<string[]>;

/** Options for the OpenAI Agents SDK's `toolSearchTool`: client execution
 * answered by the engine (our description and parameters, an `execute` hook
 * returning the agent's tools the engine loads, in rank order). */
export declare function agentsToolSearch(engine: Engine, options?: BudgetOptions): {
  execution: "client";
  description: string;
  parameters: { [key: string]: unknown };
  execute: (args: { availableTools: Array<{ name?: string }>; toolCall: { call_id?: string | null; callId?: string | null; id?: string; arguments?: unknown } }) => any[];
};
/** The OpenAI function definitions of an agent's function tools (name, description, parameters, strict, defer_loading), for fromOpenAITools. */
export declare function agentsToolDefinitions(tools: ReadonlyArray<{ type: string; name?: string; description?: string; parameters?: unknown; strict?: boolean; deferLoading?: boolean }>): OpenAIFunctionDefinition[];

/** A query and the tool (canonical path, or any name a query resolves exactly) it should find. */
export interface LintExpectation {
  query: string;
  tool: string;
}

/** A tool ranked above the one a query is about, with the query terms its indexed text has. */
export interface LintWinner {
  tool: string;
  shared_terms: string[];
}

/** A search behind a finding: whose self-query (`of`), its kind, the rank of the tool it is about (0: not in the first 20). */
export interface LintQuery {
  of: string;
  kind: "summary" | "title" | "first_sentence" | "name_words" | "expectation";
  query: string;
  rank: number;
  winners?: LintWinner[];
}

export type LintLevel = "info" | "warning" | "error";

export interface LintFinding {
  level: LintLevel;
  check: string;
  tool: string;
  other?: string;
  message: string;
  queries?: LintQuery[];
  similarity_permille?: number;
  shared_terms?: string[];
  only_tool?: string[];
  only_other?: string[];
  items?: string[];
}

/** toolsift.lint.v1: deterministic (sorted, integer scores), the same bytes in every host. */
export interface LintReport {
  schema: "toolsift.lint.v1";
  catalog: { format: string; profile: string; source_hash: string; tools: number };
  thresholds: { top_k: number; rank_limit: number; near_duplicate_permille: number; min_description_units: number };
  summary: {
    errors: number;
    warnings: number;
    infos: number;
    self_queries: number;
    unreachable: number;
    confusable_pairs: number;
    expectations_met: number;
  };
  findings: LintFinding[];
  expectations: Array<{ query: string; tool: string; rank: number; winners?: LintWinner[] }>;
}
