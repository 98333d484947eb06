package native

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// FuzzDerivedParametersAreThoseOfTheSchema: the parameters ReadSchemaField
// derives from the schema it decoded are exactly, error included, what
// ParametersFromSchema derives from the schema it stores, so Build answers
// the same whichever it takes.
func FuzzDerivedParametersAreThoseOfTheSchema(f *testing.F) {
	for _, schema := range []string{
		`{"type":"object","properties":{"b":{"type":"integer","description":"B"},"a":{"type":"string"}},"required":["b"]}`,
		`{"properties":{"filter":{"type":"object","properties":{"state":{"type":"string"}},"required":["state"]}},"required":["filter"]}`,
		`{"properties":{"a":{"items":{"properties":{"b":{"items":{"properties":{"c":{"items":{"properties":{"d":{}}}}}}}}}}}}`,
		`{"properties":{"a":{"enum":["x",1,2.50,true,null,{"b":1,"a":[2]}],"default":{"z":1,"y":"<&>\u00e9\ud83d\ude00"}}}}`,
		`{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":true,"c":{"oneOf":[{"type":["number","null"]}]}}}`,
		`{"properties":{"a":"string"}}`,
		`{"properties":{},"required":"a"}`,
		`{"properties":{"a":{"properties":{"b":1}}}}`,
		`{"$schema":"x","additionalProperties":false}`,
		`{"properties":{"dup":{"type":"string"},"dup":{"type":"integer"}}}`,
	} {
		f.Add([]byte(schema))
	}
	catalog, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "mcp", "github-slack.json"))
	require.NoError(f, err)
	servers, err := jsonread.Decode(catalog)
	require.NoError(f, err)
	for _, server := range servers.(map[string]any)["servers"].(map[string]any) {
		for _, tool := range server.(map[string]any)["tools"].([]any) {
			schema, err := jsonw.AppendValue(nil, tool.(map[string]any)["inputSchema"], false)
			require.NoError(f, err)
			f.Add(schema)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		value, err := jsonread.Decode(data)
		if err != nil {
			return
		}
		var tool Tool
		fields := jsonread.Fields{Object: map[string]any{"inputSchema": value}}
		ReadSchemaField(&tool, &fields, "inputSchema")
		if fields.Err != nil || tool.InputSchema == nil {
			require.Nil(t, tool.fromSchema, "parameters derived without a schema")
			return
		}
		require.NotNil(t, tool.fromSchema, "a schema read without its parameters")
		parameters, err := ParametersFromSchema(tool.InputSchema)
		require.Equal(t, parameters, tool.fromSchema.parameters)
		if err == nil {
			require.NoError(t, tool.fromSchema.err)
		} else {
			require.EqualError(t, tool.fromSchema.err, err.Error())
		}
	})
}
