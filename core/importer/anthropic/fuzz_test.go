package anthropic_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/anthropic"
	"github.com/toolsift/toolsift/core/profile"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, p, err := importer.Import(anthropic.Format, data)
		if err != nil {
			return
		}
		if cat == nil || p != profile.GenericV1 || cat.ToolCount() == 0 {
			t.Fatalf("no error, but catalog %v and profile %v", cat, p)
		}
		if _, err := engine.New(cat, p); err != nil {
			t.Logf("engine refuses the catalog: %v", err)
		}
	})
}
