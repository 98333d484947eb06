package gateway

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The upstream surface is data: three tools whose definitions never change,
// so that a client can cache the gateway's tools/list (testdata/surface.json
// is its golden copy; a change to it is a reviewed diff).

const instructions = `This server fronts several MCP servers through one searchable catalog. ` +
	`Find a tool with search_tools, read its input schema with inspect_tool (pass the canonical_path and both catalog hashes from the search), ` +
	`then run it with call_tool under the same hashes. A catalog_changed error means the servers' tools changed: search again.`

var searchToolsTool = &mcp.Tool{
	Name:  "search_tools",
	Title: "Search tools",
	Description: "Search the tools of every connected MCP server. Returns small references (canonical_path, summary, effect) " +
		"and the catalog hashes to pass to inspect_tool and call_tool. Never returns schemas: inspect the one you choose.",
	Annotations: readOnly("Search tools"),
	InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"What the tool should do, in plain words; or a tool's name or canonical path."},` +
		`"subqueries":{"type":"array","items":{"type":"string"},"maxItems":8,"description":"The steps of a multi-step task, each searched in turn (optional)."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"How many references to return (default 5)."},` +
		`"servers":{"type":"array","items":{"type":"string"},"description":"Only tools of these servers (their names in the gateway's config)."},` +
		`"effects":{"type":"array","items":{"type":"string","enum":["read","write","destructive"]},"description":"Only tools with these effects."},` +
		`"exclude":{"type":"array","items":{"type":"string"},"description":"Canonical paths to leave out."}` +
		`},"required":["query"],"additionalProperties":false}`),
}

var inspectToolTool = &mcp.Tool{
	Name:  "inspect_tool",
	Title: "Inspect a tool",
	Description: "The full spec of one tool found by search_tools: its input schema, parameters and safety. " +
		"Refused with catalog_changed when the tool changed since the search that gave the hashes.",
	Annotations: readOnly("Inspect a tool"),
	InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"The tool's canonical_path from search_tools."},` +
		`"source_hash":{"type":"string","description":"catalog.source_hash from search_tools."},` +
		`"surface_hash":{"type":"string","description":"catalog.surface_hash from search_tools."}` +
		`},"required":["path","source_hash","surface_hash"],"additionalProperties":false}`),
}

var callToolTool = &mcp.Tool{
	Name:  "call_tool",
	Title: "Call a tool",
	Description: "Run one tool on the server that owns it and return that server's result unchanged. " +
		"Needs the catalog hashes you inspected the tool under (catalog_changed otherwise). " +
		"A destructive tool runs only if the gateway's operator allowed it for its server.",
	Annotations: &mcp.ToolAnnotations{Title: "Call a tool", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"The tool's canonical_path."},` +
		`"arguments":{"type":"object","description":"The tool's arguments, as its input schema (inspect_tool) describes them."},` +
		`"source_hash":{"type":"string","description":"catalog.source_hash the tool was inspected under."},` +
		`"surface_hash":{"type":"string","description":"catalog.surface_hash the tool was inspected under."}` +
		`},"required":["path","source_hash","surface_hash"],"additionalProperties":false}`),
}

// Surface is the gateway's fixed tool surface, in the order tools/list
// gives it.
func Surface() []*mcp.Tool { return []*mcp.Tool{inspectToolTool, searchToolsTool, callToolTool} }

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
}

func ptr[T any](v T) *T { return &v }

// The arguments of each tool, decoded strictly (unknown fields refused).
type searchArgs struct {
	Query      string   `json:"query"`
	Subqueries []string `json:"subqueries"`
	Limit      int      `json:"limit"`
	Servers    []string `json:"servers"`
	Effects    []string `json:"effects"`
	Exclude    []string `json:"exclude"`
}

type inspectArgs struct {
	Path        string `json:"path"`
	SourceHash  string `json:"source_hash"`
	SurfaceHash string `json:"surface_hash"`
}

type callArgs struct {
	Path        string          `json:"path"`
	Arguments   json.RawMessage `json:"arguments"`
	SourceHash  string          `json:"source_hash"`
	SurfaceHash string          `json:"surface_hash"`
}
