package openai_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/importer/internal/importtest"
	"github.com/toolsift/toolsift/core/importer/openai"
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
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, openai.Format, data) })
}
