package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/importtest"
	"github.com/toolsift/toolsift/core/importer/internal/openai"
)

// FuzzImport feeds arbitrary bytes to the OpenAI importer and Build: an
// error or a catalog, never a panic; the engine builds on the catalog or
// refuses it with an error.
func FuzzImport(f *testing.F) {
	f.Add([]byte(chatTools))
	f.Add([]byte(responsesTools))
	f.Add([]byte(`{"tools":[{"type":"namespace","name":"crm","description":"d","tools":[{"type":"custom","name":"q"},{"type":"function","function":{"name":"f","parameters":{"properties":{"a":{"anyOf":[{"type":"string"}]}}}}}]}]}`))
	f.Add([]byte(`[{"type":"web_search"}]`))
	f.Add([]byte(`[{"type":"function"}]`))
	f.Add([]byte(`[{"type":"function","name":"a"`))
	// Lenient repairs (string booleans, $ref parameters, parameter lists,
	// wrong-typed texts, arrays of functions) and words without a role.
	f.Add([]byte(`[{"type":"function","function":{"name":"a","parameters":[{"name":"city","in":"query","required":"true","schema":{"type":"string"}},{"$ref":"#/components/parameters/units"}],"returns":"forecast"}}]`))
	f.Add([]byte(`[{"type":"function","name":"a","description":7,"parameters":"a city","deprecated":true,"x-tags":["weather"]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, openai.Format, data) })
}

// FuzzImportForToolSearch: the tool-search import of arbitrary bytes is an
// error or a catalog whose every tool keeps its definition as one JSON
// object, never a panic.
func FuzzImportForToolSearch(f *testing.F) {
	f.Add([]byte(`[{"type":"function","name":"a","description":"x","defer_loading":true},{"type":"function","name":"b"}]`))
	f.Add([]byte(`{"tools":[{"name":"a","input_schema":{"type":"object"},"defer_loading":true},{"type":"web_search_20250305","name":"w"}]}`))
	f.Add([]byte(`[{"type":"namespace","name":"n","description":"d","tools":[{"type":"function","function":{"name":"f"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, _, _, err := importer.ImportWith(openai.Format, data, importer.Options{ToolSearch: true})
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
