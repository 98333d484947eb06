package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/importer/internal/importtest"
	"github.com/toolsift/toolsift/core/importer/internal/mcp"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// FuzzImport feeds arbitrary bytes to the MCP importer and Build: an error
// or a catalog, never a panic; the engine builds on the catalog or refuses
// it with an error.
func FuzzImport(f *testing.F) {
	// The multi-server LiveMCPBench catalog, cut to three servers (short
	// seeds mutate faster; the whole catalog is TestLiveMCPBenchServers' job).
	data, err := fixtures.GenericMCPCatalog()
	if err != nil {
		f.Fatal(err)
	}
	var all struct{ Servers map[string]json.RawMessage }
	if err := json.Unmarshal(data, &all); err != nil {
		f.Fatal(err)
	}
	few := map[string]json.RawMessage{}
	for _, name := range []string{"12306-mcp", "NPM Sentinel MCP", "OP.GG MCP Server"} {
		if all.Servers[name] == nil {
			f.Fatalf("server %q is not in the LiveMCPBench catalog", name)
		}
		few[name] = all.Servers[name]
	}
	seed, err := json.Marshal(map[string]any{"servers": few})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(listResult))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","annotations":{"readOnlyHint":false,"idempotentHint":true}}]}}`))
	f.Add([]byte(`{"servers":{"a.b":{"tools":[{"name":"x","inputSchema":{"properties":{"p":{"items":{"properties":{"q":{}}}}}}}]}}}`))
	f.Add([]byte(`{"tools":[{"name":"a","annotations":{"readOnlyHint":"yes"}}]}`))
	f.Add([]byte(`{"tools":[{"description":"no name"}]}`))
	f.Add([]byte(`{"tools":[`))
	// Lenient repairs: a parameter list as the schema, string booleans, a
	// $ref parameter, an enum object, a text that is a list, a deprecated
	// note, words in fields without a role.
	f.Add([]byte(`{"tools":[{"name":"a","description":["one","two"],"inputSchema":[{"$ref":"#/components/parameters/limit"},{"name":"q","required":"true"}],"deprecated":"use b"}]}`))
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"u":{"enum":{"c":"Celsius"}},"v":"text","w":7},"required":"u"},"outputSchema":{"properties":{"t":{"description":"temp"}}},"annotations":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, mcp.Format, data) })
}
