package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/anthropic"
	"github.com/toolsift/toolsift/core/importer/internal/importtest"
)

// FuzzImport feeds arbitrary bytes to the Anthropic importer and Build: an
// error or a catalog, never a panic; the engine builds on the catalog or
// refuses it with an error.
func FuzzImport(f *testing.F) {
	f.Add([]byte(tools))
	f.Add([]byte(`{"tools":[{"name":"a","input_schema":{"properties":{"b":{"type":["string","null"],"default":1}},"required":["b"]}}]}`))
	f.Add([]byte(`[{"type":"web_search_20250305","name":"web_search"}]`))
	f.Add([]byte(`[{"name":"a"}]`))
	f.Add([]byte(`[{"name":"a","input_schema":{`))
	// Lenient repairs (string booleans, $ref parameters, parameter lists,
	// wrong-typed texts, arrays of functions) and words without a role.
	f.Add([]byte(`[{"name":"a","description":"DEPRECATED: use b"},{"name":"b","input_schema":{"type":"object","properties":[{"name":"q"}],"required":true},"returns":{"t":"temp"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, anthropic.Format, data) })
}

// FuzzImportForToolSearch: the tool-search import of arbitrary bytes is an
// error or a catalog whose every tool keeps its definition as one JSON
// object, never a panic.
func FuzzImportForToolSearch(f *testing.F) {
	f.Add([]byte(`[{"type":"function","name":"a","description":"x","defer_loading":true},{"type":"function","name":"b"}]`))
	f.Add([]byte(`{"tools":[{"name":"a","input_schema":{"type":"object"},"defer_loading":true},{"type":"web_search_20250305","name":"w"}]}`))
	f.Add([]byte(`[{"type":"namespace","name":"n","description":"d","tools":[{"type":"function","function":{"name":"f"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, _, _, err := importer.ImportWith(anthropic.Format, data, importer.Options{ToolSearch: true})
		if err != nil {
			return
		}
		for _, p := range cat.Products {
			for _, tool := range p.Tools {
				if len(tool.Original) == 0 || tool.Original[0] != '{' || !json.Valid(tool.Original) {
					t.Fatalf("%s: definition %q", tool.Identity.CanonicalPath, tool.Original)
				}
			}
		}
	})
}
