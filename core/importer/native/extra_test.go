package native_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
)

func TestNotLanguage(t *testing.T) {
	for s, want := range map[string]bool{
		"":                                     true,
		"17":                                   true,
		"4.5":                                  true,
		"2024-01-01":                           true,
		"https://api.example.com/v1/pets":      true,
		"mailto:ops@example.com":               true,
		"#/components/parameters/limit":        true,
		"123e4567-e89b-12d3-a456-426614174000": true,
		"d41d8cd98f00b204e9800998ecf8427e":     true,
		"aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=": true,
		"sk4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c":   true,
		"get_user_by_id":                       false,
		"v2":                                   false,
		"OAuth2":                               false,
		"Returns the weather":                  false,
		"天气预报":                                 false,
		"listAllRepositoriesForAuthenticatedUser": false, // a long identifier is words
		"see https://example.com for details":     false, // prose that holds a URL
	} {
		require.Equal(t, want, native.NotLanguage(s), "%q", s)
	}
}

func TestMarkedDeprecated(t *testing.T) {
	for s, want := range map[string]bool{
		"DEPRECATED: use read_text_file":              true,
		"Read a file. DEPRECATED, see read_text_file": true,
		"Deprecated: use v2":                          true,
		"[Deprecated] Old search":                     true,
		"deprecated - use v2":                         true,
		"Get user (Deprecated)":                       true,
		"Get user (deprecated).":                      true,
		"获取钉盘空间列表 (deprecated → dws wiki space list)": true,
		"Old search [deprecated, see search_v2]":      true,
		"Replaces the deprecated v1 endpoint":         false,
		"Lists (deprecatedness scores)":               false,
		"Lists deprecated APIs":                       false,
		"Deprecatedness score":                        false,
		"":                                            false,
		"Read a file":                                 false,
	} {
		require.Equal(t, want, native.MarkedDeprecated(s), "%q", s)
	}
}

func TestDeprecatedValue(t *testing.T) {
	for _, c := range []struct {
		value      any
		deprecated bool
		note       string
		ok         bool
	}{
		{true, true, "", true}, {false, false, "", true}, {"true", true, "", true}, {"False", false, "", true},
		{"use v2 instead", true, "use v2 instead", true}, {nil, false, "", true}, {map[string]any{}, false, "", false},
	} {
		d, note, ok := native.DeprecatedValue(c.value)
		require.Equal(t, []any{c.deprecated, c.note, c.ok}, []any{d, note, ok}, "%v", c.value)
	}
}

// TestExtraWalk: every string of a value, property names included,
// structural keywords, references and non-language values left out, each
// text once.
func TestExtraWalk(t *testing.T) {
	value, err := jsonread.Decode([]byte(`{"type":"object","properties":{"temperature":{"type":"number","description":"Degrees C"},` +
		`"link":{"type":"string","format":"uri","example":"https://x.example/1"}},"$ref":"#/definitions/Weather","note":"Degrees C","id":"d41d8cd98f00b204e9800998ecf8427e"}`))
	require.NoError(t, err)
	var e native.Extra
	require.True(t, e.Walk(value))
	text, cut := e.String()
	require.False(t, cut)
	require.Equal(t, "id note Degrees C link temperature", text)
}

// TestLenientParameters: each malformed detail the issue names is repaired
// with the parameters kept and counted; a strict read refuses each.
func TestLenientParameters(t *testing.T) {
	for _, c := range []struct {
		name, input, field string
		want               []native.Parameter
	}{
		{"string required", `[{"name":"q","in":"query","required":"true","schema":{"type":"string"}}]`, "parameters.required",
			[]native.Parameter{{Name: "q", Type: "string", Required: true}}},
		{"$ref parameter", `[{"$ref":"#/components/parameters/limit"},{"name":"q"}]`, "parameters.$ref",
			[]native.Parameter{{Name: "limit"}, {Name: "q"}}},
		{"enum object", `{"type":"object","properties":{"unit":{"type":"string","enum":{"c":"Celsius","f":"Fahrenheit"}}}}`, "parameters.enum",
			[]native.Parameter{{Name: "unit", Type: "string", Enum: []string{"c", "f"}}}},
		{"properties a list", `{"type":"object","properties":[{"name":"city","description":"City"}]}`, "parameters.properties",
			[]native.Parameter{{Name: "city", Description: "City"}}},
		{"required a string", `{"type":"object","properties":{"city":{"type":"string"}},"required":"city"}`, "parameters.required",
			[]native.Parameter{{Name: "city", Type: "string", Required: true}}},
		{"property a string", `{"type":"object","properties":{"city":"the city"}}`, "parameters.properties",
			[]native.Parameter{{Name: "city", Description: "the city"}}},
		{"not a schema", `"a city name"`, "parameters", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			value, err := jsonread.Decode([]byte(c.input))
			require.NoError(t, err)
			tl := tally.New(false)
			tool := native.Tool{Name: "t"}
			f := jsonread.Fields{Object: map[string]any{"parameters": value}}
			r := &native.Reader{T: tl, Name: "t"}
			native.ReadSchemaFieldWith(&tool, &f, "parameters", r)
			require.NoError(t, f.Err)
			doc := &native.Document{Products: []native.Product{{ID: "p", Tools: []native.Tool{tool}}}}
			cat, err := native.BuildWith(doc, "test", tl)
			require.NoError(t, err)
			var got []native.Parameter
			for _, p := range cat.Products[0].Tools[0].Params() {
				got = append(got, native.Parameter{Name: p.Name, Type: p.Type, Description: p.Description, Required: p.Required, Enum: p.Enum})
			}
			require.Equal(t, c.want, got)
			require.True(t, slices.ContainsFunc(tl.Repairs(), func(r tally.Repair) bool { return r.Field == c.field }), "%+v", tl.Repairs())

			strict := native.Tool{Name: "t"}
			f = jsonread.Fields{Object: map[string]any{"parameters": value}}
			native.ReadSchemaFieldWith(&strict, &f, "parameters", &native.Reader{T: tally.New(true)})
			err = f.Err
			if err == nil {
				doc := &native.Document{Products: []native.Product{{ID: "p", Tools: []native.Tool{strict}}}}
				_, err = native.BuildWith(doc, "test", tally.New(true))
			}
			require.Error(t, err, "strict refuses it")
		})
	}
}
