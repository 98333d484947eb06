package jsonread_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
)

func TestDecode(t *testing.T) {
	v, err := jsonread.Decode([]byte(` {"n": 1.50, "big": 12345678901234567890} `))
	require.NoError(t, err)
	m := v.(map[string]any)
	require.Equal(t, json.Number("1.50"), m["n"], "numbers keep their text")
	require.Equal(t, json.Number("12345678901234567890"), m["big"])

	for input, want := range map[string]string{
		``:          "not valid JSON",
		`{"a":`:     "not valid JSON",
		`{"a":1}{}`: "trailing data after the JSON value",
		`[] []`:     "trailing data after the JSON value",
		`1 2`:       "trailing data after the JSON value",
		`"a" "b"`:   "trailing data after the JSON value",
		`{} null`:   "trailing data after the JSON value",
	} {
		_, err := jsonread.Decode([]byte(input))
		require.ErrorContains(t, err, want, input)
	}
}

func TestDecodeRefusesTrailingGarbage(t *testing.T) {
	// decoder.Token() returns an error for bytes that start no JSON token;
	// Decode takes any error for "nothing follows" and accepts the input.
	for _, input := range []string{`{"a":1}}`, `{"a":1}]`, `{"a":1} xyz`, `[1],`, `{"a":1}:`} {
		_, err := jsonread.Decode([]byte(input))
		require.ErrorContains(t, err, "trailing data after the JSON value", input)
	}
}

func fields(t *testing.T, object string) *jsonread.Fields {
	v, err := jsonread.Decode([]byte(object))
	require.NoError(t, err)
	return &jsonread.Fields{Object: v.(map[string]any)}
}

func TestFieldsReadTypedValues(t *testing.T) {
	f := fields(t, `{"s":"x","b":true,"list":["a","b"],"o":{"k":1},"a":[1,"x"],"n":null,"raw":{"z":[1.0,"<&>"],"a":null}}`)
	require.Equal(t, "x", f.Str("s"))
	require.True(t, f.Bool("b"))
	require.Equal(t, []string{"a", "b"}, f.Strs("list"))
	require.Equal(t, map[string]any{"k": json.Number("1")}, f.Obj("o"))
	require.Equal(t, []any{json.Number("1"), "x"}, f.Arr("a"))
	require.Equal(t, `{"a":null,"z":[1.0,"<&>"]}`, string(f.Raw("raw")), "compact, keys sorted, no HTML escaping, numbers as written")
	require.Equal(t, `null`, string(f.Raw("n")), "a present null is null")
	require.Nil(t, f.Raw("missing"))

	// Missing keys and nulls read as zero values without an error.
	for _, key := range []string{"missing", "n"} {
		require.Equal(t, "", f.Str(key))
		require.False(t, f.Bool(key))
		require.Nil(t, f.OptBool(key))
		require.Nil(t, f.Strs(key))
		require.Nil(t, f.Obj(key))
		require.Nil(t, f.Arr(key))
		require.False(t, f.Has(key))
	}
	require.True(t, f.Has("s"))
	yes := f.OptBool("b")
	require.NotNil(t, yes)
	require.True(t, *yes)
	require.NoError(t, f.Err)
}

func TestFieldsWrongTypes(t *testing.T) {
	for _, c := range []struct {
		name string
		read func(f *jsonread.Fields)
		want string
	}{
		{"Str", func(f *jsonread.Fields) { f.Str("n") }, `field "n": want a string, got a number`},
		{"Bool", func(f *jsonread.Fields) { f.Bool("s") }, `field "s": want a boolean, got a string`},
		{"OptBool", func(f *jsonread.Fields) { f.OptBool("o") }, `field "o": want a boolean, got an object`},
		{"Strs of a string", func(f *jsonread.Fields) { f.Strs("s") }, `field "s": want an array of strings, got a string`},
		{"Strs with a number", func(f *jsonread.Fields) { f.Strs("mixed") }, `field "mixed": want an array of strings, got an array`},
		{"Obj", func(f *jsonread.Fields) { f.Obj("mixed") }, `field "mixed": want an object, got an array`},
		{"Arr", func(f *jsonread.Fields) { f.Arr("b") }, `field "b": want an array, got a boolean`},
		{"first error wins", func(f *jsonread.Fields) { f.Str("n"); f.Bool("s") }, `field "n": want a string, got a number`},
		{"Only", func(f *jsonread.Fields) { f.Only("s", "n") }, `unknown field "b" (known: s, n)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fields(t, `{"s":"x","n":1,"b":false,"o":{},"mixed":["a",1]}`)
			c.read(f)
			require.EqualError(t, f.Err, c.want)
		})
	}
	f := fields(t, `{"a":1}`)
	f.Only("a")
	require.NoError(t, f.Err)
	f.Fail(nil)
	require.NoError(t, f.Err)
}

func TestHelpers(t *testing.T) {
	for v, want := range map[any]string{nil: "null", "s": "a string", true: "a boolean", json.Number("1"): "a number", 1.5: "a number"} {
		require.Equal(t, want, jsonread.TypeName(v))
	}
	require.Equal(t, "an array", jsonread.TypeName([]any{}))
	require.Equal(t, "an object", jsonread.TypeName(map[string]any{}))
	require.Equal(t, ` (name "x")`, jsonread.Label(map[string]any{"name": "x"}, "name"))
	require.Equal(t, "", jsonread.Label(map[string]any{"name": 1}, "name"))
	require.Equal(t, "", jsonread.Label("x", "name"))
}

func TestToolList(t *testing.T) {
	list, err := jsonread.ToolList([]byte(`[{"name":"a"}]`))
	require.NoError(t, err)
	require.Len(t, list, 1)
	list, err = jsonread.ToolList([]byte(`{"model":"m","tools":[1,2]}`))
	require.NoError(t, err)
	require.Len(t, list, 2)
	for input, want := range map[string]string{
		`"x"`:            `want an array of tool definitions or an object with "tools", got a string`,
		`{}`:             `field "tools": want an array of tool definitions, got null`,
		`{"tools":{}}`:   `field "tools": want an array of tool definitions, got an object`,
		`[`:              "not valid JSON",
		`[] {"tools":1}`: "trailing data",
	} {
		_, err := jsonread.ToolList([]byte(input))
		require.ErrorContains(t, err, want, input)
	}
}
