package beir_test

import (
	"bytes"
	"testing"

	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/importer/internal/importtest"
)

// FuzzImport feeds arbitrary bytes to the BEIR importer and Build: an error
// or a catalog, never a panic; the engine builds on the catalog or refuses
// it with an error. The seeds are the first lines of every committed sample
// (short seeds mutate faster) and hand-written edge cases.
func FuzzImport(f *testing.F) {
	for _, name := range samples {
		lines := bytes.SplitAfter(readSample(f, name), []byte("\n"))
		f.Add(bytes.Join(lines[:2], nil))
	}
	f.Add([]byte(`{"id":"api::search","doc":{"required_parameters":[{"name":"q","type":"STRING","default":null}],"optional_parameters":[{"name":"q"}]}}`))
	f.Add([]byte(`{"id":"srv::t","name":"T","doc":{"inputSchema":{"properties":{"a":{"type":"object","properties":{"b":{}}}}},"annotations":{"idempotentHint":true}}}`))
	f.Add([]byte("{\"id\":\"a\"}\r\n\n{\"id\":\"a::b::c\"}"))
	f.Add([]byte(`{"id":"::"}`))
	f.Add([]byte(`{"id":"a","doc":{"parameters":[]}}`))
	// BEIR's own layout and the parameter shapes ReadParameters tells apart.
	f.Add([]byte(`{"_id":"17","title":"get_weather","text":"Weather","metadata":{"tags":["sky"],"n":1}}`))
	f.Add([]byte(`{"_id":"p","params":{"properties":{"type":"string","default":"x"}},"arguments":[{"name":"q","in":"query","schema":{"type":"string"}}]}`))
	f.Add([]byte(`{"id":"f","doc":"{"function":{"name":"f","parameters":{"a":"string"}},"tags":"t"}"}`))
	// Lenient repairs (string booleans, $ref parameters, parameter lists,
	// wrong-typed texts, arrays of functions) and words without a role.
	f.Add([]byte(`{"_id":17,"title":"weather","text":"Weather now\nreturns the temperature","doc":[{"name":"now","parameters":{"city":{"type":"string","required":"true"}}},{"name":"later","description":"Forecast"}]}`))
	f.Add([]byte(`{"id":"s::t","doc":"not JSON","metadata":[1],"results":"the temperature","required_parameters":{"q":"query"}}`))
	f.Fuzz(func(t *testing.T, data []byte) { importtest.CheckImport(t, beir.Format, data) })
}
