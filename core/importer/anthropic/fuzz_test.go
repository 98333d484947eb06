package anthropic_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/importer/anthropic"
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
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, anthropic.Format, data) })
}
