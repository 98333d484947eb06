package native_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
)

// The JSON Schema of the format (docs/catalog.schema.json) and the decoder
// must agree: the same property names at every level, the same required
// fields, the same enums, the same JSON types.

func readRepoFile(t *testing.T, path ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", "..", ".."}, path...)...))
	require.NoError(t, err)
	return data
}

type jsonSchema map[string]any

func loadSchema(t *testing.T) jsonSchema {
	var s jsonSchema
	require.NoError(t, json.Unmarshal(readRepoFile(t, "docs", "catalog.schema.json"), &s))
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	return s
}

// resolve follows a local "$ref" and the first "allOf" branch.
func (s jsonSchema) resolve(node map[string]any) map[string]any {
	for {
		if ref, ok := node["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			node = s["$defs"].(map[string]any)[name].(map[string]any)
			continue
		}
		if all, ok := node["allOf"].([]any); ok && node["type"] == nil {
			node = all[0].(map[string]any)
			continue
		}
		return node
	}
}

// levels are the objects of the format: their schema node and a minimal
// valid document with an extra field at that level (the "%s" placeholder).
func (s jsonSchema) levels() map[string]map[string]any {
	defs := s["$defs"].(map[string]any)
	tool := defs["tool"].(map[string]any)
	return map[string]map[string]any{
		"catalog":   s,
		"product":   defs["product"].(map[string]any),
		"tool":      tool,
		"safety":    s.resolve(tool["properties"].(map[string]any)["safety"].(map[string]any)),
		"parameter": defs["parameter"].(map[string]any),
	}
}

var templates = map[string]string{
	"catalog":   `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t"}]}]%s}`,
	"product":   `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t"}]%s}]}`,
	"tool":      `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t"%s}]}]}`,
	"safety":    `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t","safety":{"effect":"read"%s}}]}]}`,
	"parameter": `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t","parameters":[{"name":"x"%s}]}]}]}`,
}

func withField(level, field, value string) []byte {
	extra := ""
	if field != "" {
		extra = `,"` + field + `":` + value
	}
	return []byte(strings.Replace(templates[level], "%s", extra, 1))
}

var knownList = regexp.MustCompile(`unknown field "[^"]*" \(known: ([^)]*)\)`)

func propertyNames(node map[string]any) []string {
	var names []string
	for name := range node["properties"].(map[string]any) {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func TestSchemaPropertiesAreWhatDecodeAccepts(t *testing.T) {
	s := loadSchema(t)
	for level, node := range s.levels() {
		t.Run(level, func(t *testing.T) {
			require.Equal(t, false, node["additionalProperties"], "additionalProperties must be false: Decode refuses unknown fields")
			// Decode names the fields it knows when it meets an unknown one.
			_, err := native.Decode(withField(level, "zz_unknown", "1"))
			require.Error(t, err)
			m := knownList.FindStringSubmatch(err.Error())
			require.NotNil(t, m, err.Error())
			accepted := strings.Split(m[1], ", ")
			sort.Strings(accepted)
			require.Equal(t, accepted, propertyNames(node))
		})
	}
}

func TestSchemaRequiredFields(t *testing.T) {
	s := loadSchema(t)
	minimal := `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"t","parameters":[{"name":"x"}]}]}]}`
	_, err := decodeAndBuild([]byte(minimal))
	require.NoError(t, err, "the required fields alone make a valid catalog")

	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(minimal), &doc))
	at := map[string]func(map[string]any) map[string]any{
		"catalog": func(d map[string]any) map[string]any { return d },
		"product": func(d map[string]any) map[string]any { return d["products"].([]any)[0].(map[string]any) },
		"tool": func(d map[string]any) map[string]any {
			return d["products"].([]any)[0].(map[string]any)["tools"].([]any)[0].(map[string]any)
		},
		"parameter": func(d map[string]any) map[string]any {
			tool := d["products"].([]any)[0].(map[string]any)["tools"].([]any)[0].(map[string]any)
			return tool["parameters"].([]any)[0].(map[string]any)
		},
	}
	for level, node := range s.levels() {
		var required []string
		list, _ := node["required"].([]any)
		for _, r := range list {
			required = append(required, r.(string))
		}
		if level == "safety" {
			require.Empty(t, required)
			continue
		}
		object := at[level](doc)
		// Removing a required field fails the import.
		for _, field := range required {
			var copied map[string]any
			require.NoError(t, json.Unmarshal([]byte(minimal), &copied))
			delete(at[level](copied), field)
			data, err := json.Marshal(copied)
			require.NoError(t, err)
			_, err = decodeAndBuild(data)
			require.Error(t, err, "%s without %q", level, field)
		}
		// Every field of the minimal object is required.
		var keys []string
		for k := range object {
			if level == "tool" && k == "parameters" {
				continue // holds the parameter level
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sort.Strings(required)
		require.Equal(t, keys, required, level)
	}
}

func TestSchemaEnums(t *testing.T) {
	s := loadSchema(t)
	levels := s.levels()
	tool := levels["tool"]["properties"].(map[string]any)
	safety := levels["safety"]["properties"].(map[string]any)
	fields := []struct {
		level, field string
		node         map[string]any
	}{
		{"tool", "interface", tool["interface"].(map[string]any)},
		{"tool", "availability", tool["availability"].(map[string]any)},
		{"safety", "effect", safety["effect"].(map[string]any)},
		{"safety", "risk", safety["risk"].(map[string]any)},
		{"safety", "confirmation", safety["confirmation"].(map[string]any)},
		{"safety", "idempotency", safety["idempotency"].(map[string]any)},
	}
	// Every value of every enum, plus values no enum has, is a probe.
	probes := map[string]bool{"": true, "bogus": true, "READ": true, " read": true}
	for _, f := range fields {
		for _, v := range f.node["enum"].([]any) {
			probes[v.(string)] = true
		}
	}
	for _, f := range fields {
		allowed := map[string]bool{}
		for _, v := range f.node["enum"].([]any) {
			allowed[v.(string)] = true
		}
		require.NotEmpty(t, allowed)
		for probe := range probes {
			if probe == "" {
				continue // absent and "" mean the default; the schema leaves the field out
			}
			data := withField(f.level, f.field, `"`+probe+`"`)
			if f.level == "safety" && f.field == "effect" {
				data = []byte(strings.Replace(string(data), `"effect":"read",`, "", 1))
			}
			_, err := decodeAndBuild(data)
			if allowed[probe] {
				require.NoError(t, err, "%s.%s = %q", f.level, f.field, probe)
			} else {
				require.Error(t, err, "%s.%s = %q", f.level, f.field, probe)
				require.Contains(t, err.Error(), f.field)
			}
		}
	}
	require.Equal(t, "toolsift-catalog.v1", s["properties"].(map[string]any)["version"].(map[string]any)["const"])
	require.Equal(t, native.Version, "toolsift-catalog.v1")
}

// TestSchemaTypes gives each property a value of another JSON type than the
// schema says: Decode must refuse it (and accept any value where the schema
// names no type).
func TestSchemaTypes(t *testing.T) {
	s := loadSchema(t)
	wrong := map[string]string{"string": `7`, "array": `"x"`, "object": `[]`, "boolean": `"true"`}
	for level, node := range s.levels() {
		for name, raw := range node["properties"].(map[string]any) {
			prop := s.resolve(raw.(map[string]any))
			typ, _ := prop["type"].(string)
			if typ == "" && (prop["enum"] != nil || prop["const"] != nil) {
				typ = "string"
			}
			if level == "catalog" || (level == "product" && name == "tools") || (level == "safety" && name == "effect") {
				continue // replaced by the template's own value
			}
			if typ == "" {
				_, err := native.Decode(withField(level, name, `{"any":[1]}`))
				require.NoError(t, err, "%s.%s takes any JSON value", level, name)
				continue
			}
			value, ok := wrong[typ]
			require.True(t, ok, "%s.%s: type %q", level, name, typ)
			data := withField(level, name, value)
			if level == "tool" && name == "name" || level == "parameter" && name == "name" {
				data = []byte(strings.Replace(string(data), `"name":"`+map[string]string{"tool": "t", "parameter": "x"}[level]+`",`, "", 1))
			}
			_, err := native.Decode(data)
			require.Error(t, err, "%s.%s = %s", level, name, value)
			require.Contains(t, err.Error(), `"`+name+`"`)
		}
	}
}

func TestExampleCatalog(t *testing.T) {
	doc, err := native.Decode(readRepoFile(t, "testdata", "catalog", "example.json"))
	require.NoError(t, err)
	cat, err := native.Build(doc, native.Format)
	require.NoError(t, err)
	require.Len(t, cat.Products, 2)
	require.Equal(t, 5, cat.ToolCount())

	// The example shows every field of the format.
	var raw struct {
		Products []map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal(readRepoFile(t, "testdata", "catalog", "example.json"), &raw))
	used := map[string]map[string]bool{"product": {}, "tool": {}, "safety": {}, "parameter": {}}
	for _, product := range raw.Products {
		var tools []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(product["tools"], &tools))
		for k := range product {
			used["product"][k] = true
		}
		for _, tool := range tools {
			for k, v := range tool {
				used["tool"][k] = true
				var nested any
				require.NoError(t, json.Unmarshal(v, &nested))
				switch k {
				case "safety":
					for sk := range nested.(map[string]any) {
						used["safety"][sk] = true
					}
				case "parameters":
					for _, p := range nested.([]any) {
						for pk := range p.(map[string]any) {
							used["parameter"][pk] = true
						}
					}
				}
			}
		}
	}
	for level, node := range loadSchema(t).levels() {
		if level == "catalog" {
			continue
		}
		var names []string
		for name := range used[level] {
			names = append(names, name)
		}
		sort.Strings(names)
		require.Equal(t, propertyNames(node), names, level)
	}

	e, err := engine.New(cat, profile.GenericV1)
	require.NoError(t, err)
	for query, want := range map[string]string{
		"will it rain tomorrow in Berlin": "weather.get_forecast",
		"report a bug in the repository":  "github.create_issue",
		"find open pull requests":         "github.search_issues",
		"open_issue":                      "github.create_issue",
	} {
		out, werr := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":` + quoteJSON(query) + `}`))
		require.Nil(t, werr)
		var response struct {
			Candidates []struct {
				CanonicalPath string `json:"canonical_path"`
			} `json:"candidates"`
		}
		require.NoError(t, json.Unmarshal(out, &response))
		require.NotEmpty(t, response.Candidates, query)
		require.Equal(t, want, response.Candidates[0].CanonicalPath, query)
	}
	// The unavailable tool is never a candidate.
	out, werr := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"delete repository"}`))
	require.Nil(t, werr)
	require.NotContains(t, string(out), "github.delete_repository")
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
