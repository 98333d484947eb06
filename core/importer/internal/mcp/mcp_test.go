package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/mcp"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

func importAndBuild(data []byte) (*catalog.Catalog, error) {
	doc, err := mcp.Import(data)
	if err != nil {
		return nil, err
	}
	return native.Build(doc, mcp.Format)
}

const listResult = `{"tools":[
 {"name":"get_weather","title":"Get weather","description":"Current weather for a city.",
  "inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]},
  "annotations":{"readOnlyHint":true,"openWorldHint":true}},
 {"name":"delete_file","description":"Deletes a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}
],"nextCursor":"abc"}`

func TestImportToolsListResult(t *testing.T) {
	cat, err := importAndBuild([]byte(listResult))
	require.NoError(t, err)
	require.Equal(t, mcp.Format, cat.Format)
	require.Len(t, cat.Products, 1)
	p := cat.Products[0]
	require.Equal(t, native.DefaultProduct, p.ID)
	require.Equal(t, native.DefaultProduct, p.Name)
	require.Len(t, p.Tools, 2)

	del, weather := p.Tools[0], p.Tools[1]
	require.Equal(t, "tools.delete_file", del.Identity.CanonicalPath)
	require.Equal(t, "tools.get_weather", weather.Identity.CanonicalPath)
	require.Equal(t, "Get weather", weather.Title)
	require.Equal(t, "Current weather for a city.", weather.Description)
	require.Equal(t, catalog.Interface{Mode: catalog.ModeMCP, Availability: catalog.Available,
		Ref: &catalog.InterfaceRef{ProductID: "tools", RPCName: "get_weather"}}, weather.Interface)
	require.True(t, weather.Interface.AgentExecutable())
	require.Equal(t, []catalog.Parameter{{Name: "city", Property: "city", Type: "string", Description: "City name", Required: true}}, weather.Parameters)
	require.Equal(t, `{"properties":{"city":{"description":"City name","type":"string"}},"required":["city"],"type":"object"}`, string(weather.InputSchema))
	require.Equal(t, catalog.Safety{Effect: "read", Risk: "low", Confirmation: "not_required", Idempotency: "idempotent"}, weather.Safety)
	require.Equal(t, catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "non_idempotent"}, del.Safety,
		"a tool without annotations gets the specification's defaults")
}

func TestImportJSONRPCResponse(t *testing.T) {
	want, err := importAndBuild([]byte(listResult))
	require.NoError(t, err)
	got, err := importAndBuild([]byte(`{"jsonrpc":"2.0","id":7,"result":` + listResult + `}`))
	require.NoError(t, err)
	require.Equal(t, want, got)

	_, err = importAndBuild([]byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`))
	require.ErrorContains(t, err, `missing field "tools"`)
}

func TestImportServers(t *testing.T) {
	cat, err := importAndBuild([]byte(`{"servers":{
	  " OP.GG MCP Server ":{"tools":[{"name":"lol-summoner-search","description":"Search a summoner."}]},
	  "Data.gov":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"package_search"},{"name":"tag_list"}]}},
	  "github":{"tools":[{"name":"create_issue","annotations":{"title":"Create issue","readOnlyHint":false,"destructiveHint":false}}]}
	}}`))
	require.NoError(t, err)
	var products, paths, refs []string
	for _, p := range cat.Products {
		products = append(products, p.ID+"="+p.Name)
		for _, tool := range p.Tools {
			paths = append(paths, tool.Identity.CanonicalPath)
			refs = append(refs, tool.Interface.Ref.ProductID+"/"+tool.Interface.Ref.RPCName)
		}
	}
	require.Equal(t, []string{"Data_gov=Data.gov", "OP_GG MCP Server= OP.GG MCP Server ", "github=github"}, products)
	require.Equal(t, []string{"Data_gov.package_search", "Data_gov.tag_list", "OP_GG MCP Server.lol-summoner-search", "github.create_issue"}, paths)
	require.Equal(t, []string{"Data_gov/package_search", "Data_gov/tag_list", "OP_GG MCP Server/lol-summoner-search", "github/create_issue"}, refs)
	issue := cat.Products[2].Tools[0]
	require.Equal(t, "Create issue", issue.Title, "annotations.title stands in for a missing title")
	require.Equal(t, "write", issue.Safety.Effect)

	e, err := engine.New(cat, profile.GenericV1)
	require.NoError(t, err)
	require.Equal(t, 4, e.ToolCount())
}

func TestImportServerNamesThatCollide(t *testing.T) {
	_, err := importAndBuild([]byte(`{"servers":{"a.b":{"tools":[{"name":"x"}]},"a_b":{"tools":[{"name":"y"}]}}}`))
	require.ErrorContains(t, err, `product "a_b" appears twice`)
	_, err = importAndBuild([]byte(`{"servers":{" ":{"tools":[{"name":"x"}]}}}`))
	require.ErrorContains(t, err, `field "id": empty`)
}

func TestTitle(t *testing.T) {
	for _, c := range []struct{ tool, want string }{
		{`{"name":"a","title":"Top","annotations":{"title":"Annotated"}}`, "Top"},
		{`{"name":"a","annotations":{"title":"Annotated"}}`, "Annotated"},
		{`{"name":"a","annotations":{"title":null}}`, ""},
		{`{"name":"a","title":"","annotations":{"title":"Annotated"}}`, "Annotated"},
		{`{"name":"a"}`, ""},
	} {
		cat, err := importAndBuild([]byte(`{"tools":[` + c.tool + `]}`))
		require.NoError(t, err, c.tool)
		require.Equal(t, c.want, cat.Products[0].Tools[0].Title, c.tool)
	}
}

func TestSafetyFromAnnotations(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name                              string
		readOnly, destructive, idempotent *bool
		annotations                       string
		want                              catalog.Safety
	}{
		{"no hints", nil, nil, nil, `{}`, catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "non_idempotent"}},
		{"read-only", &yes, nil, nil, `{"readOnlyHint":true}`, catalog.Safety{Effect: "read", Risk: "low", Confirmation: "not_required", Idempotency: "idempotent"}},
		{"read-only wins over destructive", &yes, &yes, &no, `{"readOnlyHint":true,"destructiveHint":true,"idempotentHint":false}`,
			catalog.Safety{Effect: "read", Risk: "low", Confirmation: "not_required", Idempotency: "idempotent"}},
		{"not read-only, destructive by default", &no, nil, nil, `{"readOnlyHint":false}`,
			catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "non_idempotent"}},
		{"additive", nil, &no, nil, `{"destructiveHint":false}`, catalog.Safety{Effect: "write", Risk: "medium", Confirmation: "not_required", Idempotency: "non_idempotent"}},
		{"additive idempotent", &no, &no, &yes, `{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}`,
			catalog.Safety{Effect: "write", Risk: "medium", Confirmation: "not_required", Idempotency: "idempotent"}},
		{"destructive idempotent", nil, &yes, &yes, `{"destructiveHint":true,"idempotentHint":true}`,
			catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "idempotent"}},
		{"null hints are absent", nil, nil, nil, `{"readOnlyHint":null,"destructiveHint":null,"idempotentHint":null,"title":null}`,
			catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "non_idempotent"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, mcp.Safety(c.readOnly, c.destructive, c.idempotent))
			cat, err := importAndBuild([]byte(`{"tools":[{"name":"x","annotations":` + c.annotations + `}]}`))
			require.NoError(t, err)
			require.Equal(t, c.want, cat.Products[0].Tools[0].Safety)
		})
	}
	// annotations: null is no annotations.
	cat, err := importAndBuild([]byte(`{"tools":[{"name":"x","annotations":null}]}`))
	require.NoError(t, err)
	require.Equal(t, "destructive", cat.Products[0].Tools[0].Safety.Effect)
}

func TestImportRefuses(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"truncated", listResult[:len(listResult)/2], "not valid JSON"},
		{"empty", ``, "not valid JSON"},
		{"trailing value", `{"tools":[{"name":"a"}]} {}`, "trailing data"},
		{"root array", `[{"name":"a"}]`, `want a tools/list result ({"tools": […]}) or {"servers": {…}}, got an array`},
		{"no tools", `{"nextCursor":"x"}`, `missing field "tools"`},
		{"tools an object", `{"tools":{"a":{}}}`, `field "tools": want an array, got an object`},
		{"tool a string", `{"tools":["a"]}`, `tools[0]: want a tool object, got a string`},
		{"missing name", `{"tools":[{"name":"a"},{"description":"no name"}]}`, `tools[1]: field "name": missing or empty`},
		{"empty name", `{"tools":[{"name":""}]}`, `tools[0] (name ""): field "name": missing or empty`},
		{"name a number", `{"tools":[{"name":5}]}`, `tools[0]: field "name": want a string, got a number`},
		{"description an object", `{"tools":[{"name":"a","description":{}}]}`, `tools[0] (name "a"): field "description": want a string, got an object`},
		{"inputSchema a string", `{"tools":[{"name":"a","inputSchema":"{}"}]}`, `tools[0] (name "a"): field "inputSchema": want an object, got a string`},
		{"annotations an array", `{"tools":[{"name":"a","annotations":[]}]}`, `tools[0] (name "a"): field "annotations": want an object, got an array`},
		{"hint a string", `{"tools":[{"name":"a","annotations":{"readOnlyHint":"true"}}]}`, `tools[0] (name "a"): annotations: field "readOnlyHint": want a boolean, got a string`},
		{"annotated title a number", `{"tools":[{"name":"a","annotations":{"title":1}}]}`, `field "annotations.title": want a string, got a number`},
		{"servers an array", `{"servers":[]}`, `field "servers": want an object of server name → tools/list result, got an array`},
		{"servers beside tools", `{"servers":{},"tools":[]}`, `a {"servers": …} catalog must have no other top-level field`},
		{"server a list", `{"servers":{"s":[{"name":"a"}]}}`, `servers["s"]: want a tools/list result object, got an array`},
		{"server without a name", `{"servers":{"s":{"tools":[{"name":"a"}]},"t":{"tools":[{"title":"x"}]}}}`, `servers["t"]: tools[0]: field "name": missing or empty`},
		{"no servers", `{"servers":{}}`, "the catalog has no tools"},
		{"only servers without tools", `{"servers":{"s":{"tools":[]}}}`, "the catalog has no tools"},
		{"name with a bidi override", `{"tools":[{"name":"a\u202eb"}]}`, `contains a control or invisible character`},
		{"duplicate name", `{"tools":[{"name":"a"},{"name":"a"}]}`, `tool name "a" appears twice`},
		{"10 MB description", `{"tools":[{"name":"a","description":"` + strings.Repeat("d", 10<<20) + `"}]}`, `tool "tools.a": field "description": 10485760 bytes; the limit is 65536`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := importAndBuild([]byte(c.input))
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
}

const samplePath = "../../../../testdata/bench/livemcpbench/sample.jsonl"

// TestLiveMCPBenchServers imports the multi-server MCP catalog made from
// every LiveMCPBench tool definition (testdata/generic, shared with the
// cross-host tests): every tool appears once, and every definition of the
// committed corpus sample appears as <server id>.<name>.
func TestLiveMCPBenchServers(t *testing.T) {
	catalogJSON, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	cat, err := importAndBuild(catalogJSON)
	require.NoError(t, err)
	require.Equal(t, 527, cat.ToolCount())
	seen := map[string]int{}
	for _, p := range cat.Products {
		require.Equal(t, native.ProductID(p.Name), p.ID, "display name %q is the server name", p.Name)
		for _, tool := range p.Tools {
			seen[tool.Identity.CanonicalPath]++
		}
	}
	for path, n := range seen {
		require.Equal(t, 1, n, path)
	}

	sample, err := os.ReadFile(filepath.FromSlash(samplePath))
	require.NoError(t, err)
	for _, line := range bytes.Split(bytes.TrimSpace(sample), []byte("\n")) {
		var record struct {
			Doc struct{ Name, Server string } `json:"doc"`
		}
		require.NoError(t, json.Unmarshal(line, &record))
		path := native.ProductID(record.Doc.Server) + "." + record.Doc.Name
		require.Equal(t, 1, seen[path], path)
	}
	require.Contains(t, seen, "OP_GG MCP Server.esports-lol-team-standings")

	e, err := engine.New(cat, profile.GenericV1)
	require.NoError(t, err)
	require.Equal(t, 527, e.ToolCount())
}

// TestServerWithoutToolsIsLeftOut: a server may offer only prompts or
// resources; it contributes no product, and the others still import.
func TestServerWithoutToolsIsLeftOut(t *testing.T) {
	cat, err := importAndBuild([]byte(`{"servers":{"s":{"tools":[]},"t":{"tools":[{"name":"a"}]}}}`))
	require.NoError(t, err)
	require.Len(t, cat.Products, 1)
	require.Equal(t, "t.a", cat.Products[0].Tools[0].Identity.CanonicalPath)
}

// TestServerAsAListOfTools: a server given as its tools, without the
// tools/list result around them, is read as them (a repair; strict refuses).
func TestServerAsAListOfTools(t *testing.T) {
	input := []byte(`{"servers":{"fs":[{"name":"read_file","inputSchema":{"type":"object"}}]}}`)
	cat, _, report, err := importer.ImportWith(mcp.Format, input, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, "fs.read_file", cat.Products[0].Tools[0].Identity.CanonicalPath)
	require.Len(t, report.Warnings, 1)
	_, _, _, err = importer.ImportWith(mcp.Format, input, importer.Options{Strict: true})
	require.Error(t, err)
}
