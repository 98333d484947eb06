package native_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/native"
)

func TestReadParameters(t *testing.T) {
	for _, c := range []struct {
		input      string
		schema     string // the input schema returned, "" for none
		parameters []native.Parameter
		err        string
	}{
		{input: `{"type":"object","properties":{"city":{"type":"string"}}}`, schema: `{"properties":{"city":{"type":"string"}},"type":"object"}`},
		{input: `{}`, schema: `{}`},
		{input: `{"$schema":"x","additionalProperties":false}`, schema: `{"$schema":"x","additionalProperties":false}`},
		{input: `{"properties":{"x":"string"}}`, schema: `{"properties":{"x":"string"}}`}, // a broken schema: Build says so
		{input: `{"properties":{"type":"string","default":"a"}}`, parameters: []native.Parameter{{Name: "properties", Type: "string", Default: []byte(`"a"`)}}},
		{input: `{"type":{"type":"string"},"items":{"description":"Items"}}`, parameters: []native.Parameter{{Name: "items", Description: "Items"}, {Name: "type", Type: "string"}}},
		{input: `{"filter":{"type":"object","properties":{"state":{"type":"string"}},"required":["state"]}}`,
			parameters: []native.Parameter{{Name: "filter", Type: "object"}, {Name: "filter.state", Type: "string"}}},
		{input: `[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}},"verbose",{"name":"id"}]`,
			parameters: []native.Parameter{{Name: "id", Type: "integer", Required: true}, {Name: "verbose"}}},
		{input: `[]`, parameters: []native.Parameter{}},
		{input: `"city"`, err: "want a JSON Schema object, a list of parameters or a map of name → parameter, got a string"},
		{input: `[7]`, err: "[0]: want a parameter object, got a number"},
		{input: `[{"name":"a","required":"yes"}]`, err: `[0] (name "a"): field "required": want a boolean, got a string`},
		{input: `{"a":{"type":"string"},"b":[1]}`, schema: `{"a":{"type":"string"},"b":[1]}`},
	} {
		t.Run(c.input, func(t *testing.T) {
			value, err := jsonread.Decode([]byte(c.input))
			require.NoError(t, err)
			schema, parameters, err := native.ReadParameters(value)
			if c.err != "" {
				require.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.schema, string(schema))
			require.Equal(t, c.parameters, parameters)
		})
	}
}
