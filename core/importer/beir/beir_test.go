package beir_test

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
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
)

// samples are the committed corpus samples of testdata/bench.
var samples = []string{"acebench_normal_en", "acebench_normal_zh", "bfcl_v4", "livemcpbench", "metatool", "stabletoolbench"}

func readSample(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "bench", name, "sample.jsonl"))
	require.NoError(t, err)
	return data
}

func importAndBuild(data string) (*catalog.Catalog, error) {
	doc, err := beir.Import([]byte(data))
	if err != nil {
		return nil, err
	}
	return native.Build(doc, beir.Format)
}

// TestSamples imports each committed sample as a user's catalog would be:
// one tool per line, every corpus id found again by its canonical path.
func TestSamples(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			data := readSample(t, name)
			cat, p, err := importer.Import(beir.Format, data)
			require.NoError(t, err)
			require.Equal(t, profile.GenericV3, p)
			require.Equal(t, beir.Format, cat.Format)

			lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
			require.GreaterOrEqual(t, len(lines), 20)
			require.Equal(t, len(lines), cat.ToolCount())

			e, err := engine.New(cat, p)
			require.NoError(t, err)
			version := e.Version()
			for _, line := range lines {
				var record struct{ ID, Name, Description string }
				require.NoError(t, json.Unmarshal(line, &record))
				path := beir.CanonicalPath(record.ID)

				// Inspect resolves the canonical path to this tool…
				spec, werr := e.Inspect(wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: path,
					ExpectedSourceHash: version.SourceHash, ExpectedSurfaceHash: version.SurfaceHash})
				require.Nil(t, werr, "%s: %v", path, werr)
				var inspected struct {
					ToolSpec struct {
						CanonicalPath string `json:"canonical_path"`
						Description   string `json:"description"`
					} `json:"tool_spec"`
				}
				require.NoError(t, json.Unmarshal(spec, &inspected))
				require.Equal(t, path, inspected.ToolSpec.CanonicalPath)
				require.Equal(t, record.Description, inspected.ToolSpec.Description)

				// …and a search for it is answered by the exact guard.
				response, werr := e.Search(wire.SearchRequest{Version: wire.SearchVersion, Query: path})
				require.Nil(t, werr, "%s: %v", path, werr)
				require.Equal(t, wire.StrategyExactGuard, response.Strategy, path)
				require.Len(t, response.Candidates, 1)
				require.Equal(t, path, response.Candidates[0].CanonicalPath)
			}
		})
	}
}

func TestSampleProducts(t *testing.T) {
	for name, want := range map[string]int{"acebench_normal_en": 1, "bfcl_v4": 1, "metatool": 1} {
		cat, _, err := importer.Import(beir.Format, readSample(t, name))
		require.NoError(t, err)
		require.Len(t, cat.Products, want, name)
		require.Equal(t, native.DefaultProduct, cat.Products[0].ID)
	}
	// Server-qualified ids: one product per server, the id with "." replaced.
	cat, _, err := importer.Import(beir.Format, readSample(t, "livemcpbench"))
	require.NoError(t, err)
	byID := map[string]*catalog.Product{}
	for i := range cat.Products {
		byID[cat.Products[i].ID] = &cat.Products[i]
	}
	opgg := byID["OP_GG MCP Server"]
	require.NotNil(t, opgg)
	require.Equal(t, "OP.GG MCP Server", opgg.Name)
	for _, tool := range opgg.Tools {
		require.Equal(t, catalog.ModeMCP, tool.Interface.Mode, "an inputSchema makes an MCP tool")
		require.Equal(t, &catalog.InterfaceRef{ProductID: "OP_GG MCP Server", RPCName: tool.Identity.Name}, tool.Interface.Ref)
	}
	npm := byID["NPM Sentinel MCP"]
	require.NotNil(t, npm)
	require.Equal(t, "read", npm.Tools[0].Safety.Effect, "annotations map to safety")
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ id, product, name, tool, path string }{
		{"get_weather", "tools", "", "get_weather", "tools.get_weather"},
		{"math.factorial", "tools", "", "math.factorial", "tools.math.factorial"},
		{"github::create_issue", "github", "github", "create_issue", "github.create_issue"},
		{"OP.GG MCP Server::lol-summoner-search", "OP_GG MCP Server", "OP.GG MCP Server", "lol-summoner-search", "OP_GG MCP Server.lol-summoner-search"},
		{"TheClique::Songkick concert", "TheClique", "TheClique", "Songkick concert", "TheClique.Songkick concert"},
		{"a::b::c", "a", "a", "b::c", "a.b::c"},
		{" srv ::t", "srv", " srv ", "t", "srv.t"},
	} {
		product, name, tool := beir.Split(c.id)
		require.Equal(t, []string{c.product, c.name, c.tool}, []string{product, name, tool}, c.id)
		require.Equal(t, c.path, beir.CanonicalPath(c.id), c.id)
	}
}

func TestToolBenchParameters(t *testing.T) {
	cat, _, err := importer.Import(beir.Format, readSample(t, "stabletoolbench"))
	require.NoError(t, err)
	var user *catalog.Tool
	for i := range cat.Products {
		for j := range cat.Products[i].Tools {
			if cat.Products[i].Tools[j].Identity.CanonicalPath == "Reqres - dont change!.User by id" {
				user = &cat.Products[i].Tools[j]
			}
		}
	}
	require.NotNil(t, user, "the sample keeps the entry with a repeated array[] parameter")
	require.Equal(t, []catalog.Parameter{
		{Name: "array[]", Property: "array[]", Type: "ARRAY", Default: catalog.RawJSON(`"[\"asd\", \"dsa\"]"`)},
		{Name: "id", Property: "id", Type: "string", Required: true, Default: catalog.RawJSON(`"1"`)},
	}, user.Parameters, "the repeated array[] is one parameter, described by its first entry")

	cat, err = importAndBuild(`{"id":"api::search","name":"search","description":"Search","doc":{"tool_name":"api","api_name":"search",` +
		`"required_parameters":[{"name":"q","type":"STRING","description":"Query"},{"name":"q","type":"NUMBER","description":"again"}],` +
		`"optional_parameters":[{"name":"limit","type":"NUMBER","default":10},{"name":"q","type":"STRING"}]}}` + "\n" +
		`{"id":"api::ping","description":"Ping","doc":{"required_parameters":[],"optional_parameters":[]}}`)
	require.NoError(t, err)
	ping, search := cat.Products[0].Tools[0], cat.Products[0].Tools[1]
	require.Equal(t, []catalog.Parameter{
		{Name: "limit", Property: "limit", Type: "NUMBER", Default: catalog.RawJSON(`10`)},
		{Name: "q", Property: "q", Type: "STRING", Description: "Query", Required: true},
	}, search.Parameters)
	require.Empty(t, ping.Parameters)
	require.Equal(t, "", search.Title, "a name equal to the tool's is no title")
}

func TestDefinitions(t *testing.T) {
	cat, err := importAndBuild(strings.Join([]string{
		`{"id":"get_weather","name":"Get weather","description":"Weather now","doc":{"name":"get_weather","parameters":{"type":"dict","properties":{"city":{"type":"string"}},"required":["city"]}}}`,
		``,
		`{"id":"srv::read_file","description":"Read a file","doc":{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"annotations":{"readOnlyHint":true},"server":"srv"}}`,
		`{"id":"srv::rm","description":"Remove a file","doc":{"inputSchema":{"type":"object"},"annotations":null}}`,
		`{"id":"claude_tool","description":"Anthropic shape","doc":{"name":"claude_tool","input_schema":{"type":"object","properties":{"n":{"type":"integer"}}}}}`,
		`{"id":"plugin","description":"No definition"}`,
	}, "\r\n"))
	require.NoError(t, err)
	tools := map[string]catalog.Tool{}
	for _, p := range cat.Products {
		for _, tool := range p.Tools {
			tools[tool.Identity.CanonicalPath] = tool
		}
	}
	require.Len(t, tools, 5)
	weather := tools["tools.get_weather"]
	require.Equal(t, "Get weather", weather.Title, "a name other than the tool's is its title")
	require.Equal(t, []catalog.Parameter{{Name: "city", Property: "city", Type: "string", Required: true}}, weather.Parameters)
	require.Equal(t, catalog.ModeFunction, weather.Interface.Mode)

	read := tools["srv.read_file"]
	require.Equal(t, catalog.ModeMCP, read.Interface.Mode)
	require.Equal(t, &catalog.InterfaceRef{ProductID: "srv", RPCName: "read_file"}, read.Interface.Ref)
	require.Equal(t, "read", read.Safety.Effect)
	require.Equal(t, "destructive", tools["srv.rm"].Safety.Effect, "an MCP tool without annotations may destroy")

	require.Equal(t, "integer", tools["tools.claude_tool"].Parameters[0].Type)
	require.Nil(t, tools["tools.plugin"].InputSchema)
	require.Equal(t, catalog.Safety{}, tools["tools.plugin"].Safety)
}

func TestBadLinesNameTheLine(t *testing.T) {
	good := `{"id":"a","description":"A"}`
	for _, c := range []struct{ name, input, want string }{
		{"truncated", good + "\n" + good[:10], "line 2: not valid JSON"},
		{"two values on a line", good + "\n\n" + good + " " + good, "line 3: trailing data after the JSON value"},
		{"an array", `[1]`, "line 1: want a JSON object, got an array"},
		{"missing id", good + "\n" + `{"name":"b","description":"B"}`, `line 2: field "_id" (or "id"): missing or empty`},
		{"id a number", `{"id":5}`, `field "id": want a string, got a number`},
		{"description a number", good + "\n" + `{"id":"b","description":7}`, `line 2 (id "b"): field "description": want a string, got a number`},
		{"name an array", `{"id":"b","name":[]}`, `line 1 (id "b"): field "name": want a string, got an array`},
		{"doc a string", `{"id":"b","doc":"get b"}`, `line 1 (id "b"): field "doc": want an object, got a string`},
		{"doc JSON text that is not JSON", `{"id":"b","doc":"{get b"}`, `line 1 (id "b"): field "doc": not valid JSON`},
		{"parameters a number", `{"id":"b","doc":{"parameters":3}}`, `line 1 (id "b"): field "doc.parameters": want a JSON Schema object, a list of parameters or a map of name → parameter, got a number`},
		{"bad property in a JSON Schema", `{"_id":"b","doc":{"parameters":{"type":"object","properties":{"a":7}}}}`, `line 1 (_id "b"): field "doc.parameters": property "a": want a schema object, got a number`},
		{"OpenAPI parameter without a name", `{"id":"b","arguments":[{"in":"query"}]}`, `line 1 (id "b"): parameter "": the name must have 1 to 256 bytes`},
		{"function a string", `{"id":"b","doc":{"function":"f"}}`, `line 1 (id "b"): field "doc.function": want an object, got a string`},
		{"description alias a number", `{"id":"b","doc":{"api_description":1}}`, `line 1 (id "b"): field "doc.api_description": want a string, got a number`},
		{"metadata an array", `{"_id":"b","metadata":[]}`, `line 1 (_id "b"): field "metadata": want an object, got an array`},
		{"inputSchema a string", `{"id":"b","doc":{"inputSchema":"x"}}`, `line 1 (id "b"): field "doc.inputSchema": want a JSON Schema object, a list of parameters or a map of name → parameter, got a string`},
		{"annotations a list", `{"id":"b","doc":{"inputSchema":{},"annotations":[]}}`, `line 1 (id "b"): field "doc.annotations": want an object, got an array`},
		{"hint a string", `{"id":"b","doc":{"inputSchema":{},"annotations":{"readOnlyHint":"no"}}}`, `line 1 (id "b"): field "doc.annotations": field "readOnlyHint": want a boolean`},
		{"ToolBench list an object", `{"id":"b","doc":{"required_parameters":{}}}`, `line 1 (id "b"): field "doc.required_parameters": want an array, got an object`},
		{"ToolBench parameter a string", `{"id":"b","doc":{"optional_parameters":["q"]}}`, `line 1 (id "b"): field "doc.optional_parameters[0]": want an object, got a string`},
		{"ToolBench parameter type a number", `{"id":"b","doc":{"required_parameters":[{"name":"q","type":1}]}}`, `line 1 (id "b"): field "doc.required_parameters[0]": field "doc.required_parameters.type": want a string, got a number`},
		{"empty file", "\n\n", "the catalog has no tools"},
		{"empty tool after ::", `{"id":"srv::"}`, `line 1 (id "srv::"): field "name": empty`},
		{"empty server", `{"id":"::t"}`, `product "": field "id": empty`},
		{"duplicate id", good + "\n" + good, `tool name "a" appears twice`},
		{"unnamed ToolBench parameter", `{"id":"b","doc":{"required_parameters":[{"type":"STRING"}]}}`, `parameter "": the name must have 1 to 256 bytes`},
		{"10 MB description", `{"id":"b","description":"` + strings.Repeat("d", 10<<20) + `"}`, `line 1 (id "b"): field "description": 10485760 bytes; the limit is 65536`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := importAndBuild(c.input)
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
}
