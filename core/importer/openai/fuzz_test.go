package openai_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/openai"
	"github.com/toolsift/toolsift/core/profile"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, p, err := importer.Import(openai.Format, data)
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
