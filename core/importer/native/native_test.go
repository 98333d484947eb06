package native_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/native"
)

// catalogJSON wraps product objects (JSON text) in a toolsift-catalog.v1
// document.
func catalogJSON(products ...string) []byte {
	return []byte(`{"version":"toolsift-catalog.v1","products":[` + strings.Join(products, ",") + `]}`)
}

func decodeAndBuild(data []byte) (*catalog.Catalog, error) {
	doc, err := native.Decode(data)
	if err != nil {
		return nil, err
	}
	return native.Build(doc, native.Format)
}

func TestDecodeIsStrict(t *testing.T) {
	for _, c := range []struct {
		name, input, want string
	}{
		{"not JSON", `{"version":`, "not valid JSON"},
		{"trailing value", string(catalogJSON(`{"id":"x","tools":[{"name":"y"}]}`)) + ` {}`, "trailing data after the JSON value"},
		{"root array", `[]`, `want a JSON object with "version" and "products", got an array`},
		{"wrong version", `{"version":"toolsift-catalog.v2","products":[]}`, `field "version": want "toolsift-catalog.v1", got "toolsift-catalog.v2"`},
		{"missing version", `{"products":[]}`, `field "version": want "toolsift-catalog.v1", got ""`},
		{"version a number", `{"version":1,"products":[]}`, `field "version": want a string, got a number`},
		{"unknown top-level field", `{"version":"toolsift-catalog.v1","products":[],"tools":[]}`, `unknown field "tools" (known: products, version)`},
		{"products an object", `{"version":"toolsift-catalog.v1","products":{}}`, `field "products": want an array, got an object`},
		{"product a string", string(catalogJSON(`"x"`)), `products[0]: want an object, got a string`},
		{"unknown product field", string(catalogJSON(`{"id":"x","server":"s","tools":[]}`)), `products[0] (id "x"): unknown field "server"`},
		{"tools an object", string(catalogJSON(`{"id":"x","tools":{}}`)), `products[0] (id "x"): field "tools": want an array, got an object`},
		{"tool a number", string(catalogJSON(`{"id":"x","tools":[7]}`)), `products[0] (id "x"): tools[0]: want an object, got a number`},
		{"description a number", string(catalogJSON(`{"id":"x","tools":[{"name":"a"},{"name":"y","description":5}]}`)),
			`products[0] (id "x"): tools[1] (name "y"): field "description": want a string, got a number`},
		{"unknown tool field", string(catalogJSON(`{"id":"x","tools":[{"name":"y","inputSchema":{}}]}`)),
			`products[0] (id "x"): tools[0] (name "y"): unknown field "inputSchema"`},
		{"aliases a string", string(catalogJSON(`{"id":"x","tools":[{"name":"y","aliases":"z"}]}`)),
			`tools[0] (name "y"): field "aliases": want an array of strings, got a string`},
		{"use_when with a number", string(catalogJSON(`{"id":"x","tools":[{"name":"y","use_when":["a",1]}]}`)),
			`field "use_when": want an array of strings, got an array`},
		{"input_schema an array", string(catalogJSON(`{"id":"x","tools":[{"name":"y","input_schema":[]}]}`)),
			`tools[0] (name "y"): field "input_schema": want an object, got an array`},
		{"safety a string", string(catalogJSON(`{"id":"x","tools":[{"name":"y","safety":"low"}]}`)),
			`tools[0] (name "y"): field "safety": want an object, got a string`},
		{"unknown safety field", string(catalogJSON(`{"id":"x","tools":[{"name":"y","safety":{"level":"low"}}]}`)),
			`tools[0] (name "y"): safety: unknown field "level" (known: confirmation, effect, idempotency, risk)`},
		{"safety value a boolean", string(catalogJSON(`{"id":"x","tools":[{"name":"y","safety":{"effect":true}}]}`)),
			`safety: field "effect": want a string, got a boolean`},
		{"parameters an object", string(catalogJSON(`{"id":"x","tools":[{"name":"y","parameters":{}}]}`)),
			`tools[0] (name "y"): field "parameters": want an array, got an object`},
		{"parameter required a string", string(catalogJSON(`{"id":"x","tools":[{"name":"y","parameters":[{"name":"p","required":"yes"}]}]}`)),
			`tools[0] (name "y"): parameters[0] (name "p"): field "required": want a boolean, got a string`},
		{"unknown parameter field", string(catalogJSON(`{"id":"x","tools":[{"name":"y","parameters":[{"name":"p","flag":"--p"}]}]}`)),
			`parameters[0] (name "p"): unknown field "flag"`},
		{"parameter a string", string(catalogJSON(`{"id":"x","tools":[{"name":"y","parameters":["p"]}]}`)),
			`parameters[0]: want an object, got a string`},
		{"enum with a number", string(catalogJSON(`{"id":"x","tools":[{"name":"y","parameters":[{"name":"p","enum":[1]}]}]}`)),
			`parameters[0] (name "p"): field "enum": want an array of strings, got an array`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := native.Decode([]byte(c.input))
			require.Nil(t, doc)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestDecodeReadsEveryField(t *testing.T) {
	doc, err := native.Decode(catalogJSON(`{"id":"gh","name":"GitHub","description":"Code hosting","tools":[{
		"name":"create_issue","title":"Create issue","summary":"Open an issue","description":"Creates an issue.",
		"aliases":["new_issue"],"interface":"mcp","availability":"unavailable","unavailable_reason":"token expired",
		"use_when":["report a bug"],"avoid_when":["closing issues"],"examples":["file a bug about login"],
		"input_schema":{"type":"object","properties":{"title":{"type":"string"}}},
		"parameters":[{"name":"title","type":"string","description":"Issue title","required":true,"enum":["a","b"],"default":"a"}],
		"safety":{"effect":"write","risk":"medium","confirmation":"not_required","idempotency":"non_idempotent"}}]}`))
	require.NoError(t, err)
	require.Equal(t, &native.Document{Products: []native.Product{{
		ID: "gh", Name: "GitHub", Description: "Code hosting",
		Tools: []native.Tool{{
			Name: "create_issue", Title: "Create issue", Summary: "Open an issue", Description: "Creates an issue.",
			Aliases: []string{"new_issue"}, Interface: "mcp", Availability: "unavailable", UnavailableReason: "token expired",
			UseWhen: []string{"report a bug"}, AvoidWhen: []string{"closing issues"}, Examples: []string{"file a bug about login"},
			InputSchema: catalog.RawJSON(`{"properties":{"title":{"type":"string"}},"type":"object"}`),
			Parameters: []native.Parameter{{Name: "title", Type: "string", Description: "Issue title", Required: true,
				Enum: []string{"a", "b"}, Default: catalog.RawJSON(`"a"`)}},
			Safety: catalog.Safety{Effect: "write", Risk: "medium", Confirmation: "not_required", Idempotency: "non_idempotent"},
		}},
	}}}, doc)
}

func TestBuildFillsDefaults(t *testing.T) {
	cat, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"does t"}]}`))
	require.NoError(t, err)
	require.Equal(t, native.Format, cat.Format)
	require.Len(t, cat.Products, 1)
	p := cat.Products[0]
	require.Equal(t, "p", p.Name, "the display name defaults to the ID")
	tool := p.Tools[0]
	require.Equal(t, catalog.Identity{CanonicalPath: "p.t", Path: "p.t", Name: "t", ProductID: "p"}, tool.Identity)
	require.Equal(t, catalog.Interface{Mode: native.InterfaceFunction, Availability: catalog.Available}, tool.Interface)
	require.True(t, tool.Interface.AgentExecutable())
	require.Nil(t, tool.Parameters)
}

func TestBuildMCPInterfaceNamesItsProcedure(t *testing.T) {
	cat, err := decodeAndBuild(catalogJSON(`{"id":"github","tools":[{"name":"issues.create","interface":"mcp"}]}`))
	require.NoError(t, err)
	tool := cat.Products[0].Tools[0]
	require.Equal(t, "github.issues.create", tool.Identity.CanonicalPath)
	require.Equal(t, native.InterfaceMCP, tool.Interface.Mode)
	require.Equal(t, &catalog.InterfaceRef{ProductID: "github", RPCName: "issues.create"}, tool.Interface.Ref)
	require.True(t, tool.Interface.AgentExecutable())
}

func TestBuildCopiesEveryField(t *testing.T) {
	cat, err := decodeAndBuild(catalogJSON(`{"id":"gh","name":"GitHub","description":"Code hosting","tools":[{
		"name":"create_issue","title":"Create issue","summary":"Open an issue","description":"Creates an issue.",
		"aliases":["open_issue","new_issue","new_issue"],"availability":"unavailable","unavailable_reason":"token expired",
		"use_when":["report a bug"],"avoid_when":["closing issues"],"examples":["file a bug"],
		"input_schema":{"type":"object","properties":{"title":{"type":"string","description":"Issue title"}},"required":["title"]},
		"safety":{"effect":"write","risk":"medium","confirmation":"not_required","idempotency":"non_idempotent"}}]}`))
	require.NoError(t, err)
	require.Equal(t, catalog.Product{ID: "gh", Name: "GitHub", Description: "Code hosting", Tools: []catalog.Tool{{
		Identity: catalog.Identity{CanonicalPath: "gh.create_issue", Path: "gh.create_issue", Name: "create_issue",
			ProductID: "gh", Aliases: []string{"new_issue", "open_issue"}},
		Title:       "Create issue",
		Description: "Creates an issue.",
		Parameters:  []catalog.Parameter{{Name: "title", Property: "title", Type: "string", Description: "Issue title", Required: true}},
		Safety:      catalog.Safety{Effect: "write", Risk: "medium", Confirmation: "not_required", Idempotency: "non_idempotent"},
		Interface:   catalog.Interface{Mode: "function", Availability: "unavailable", Reason: "token expired"},
		Selection: catalog.Selection{AgentSummary: "Open an issue", UseWhen: []string{"report a bug"},
			AvoidWhen: []string{"closing issues"}, Examples: []string{"file a bug"}},
		InputSchema: catalog.RawJSON(`{"properties":{"title":{"description":"Issue title","type":"string"}},"required":["title"],"type":"object"}`),
	}}}, cat.Products[0])
	require.False(t, cat.Products[0].Tools[0].Interface.AgentExecutable())
}

func TestBuildSorts(t *testing.T) {
	cat, err := decodeAndBuild(catalogJSON(
		`{"id":"zeta","tools":[{"name":"b"},{"name":"a"}]}`,
		`{"id":"alpha","tools":[{"name":"z","parameters":[{"name":"y"},{"name":"x"}]},{"name":"m"}]}`,
	))
	require.NoError(t, err)
	var paths []string
	for _, p := range cat.Products {
		for _, tool := range p.Tools {
			paths = append(paths, tool.Identity.CanonicalPath)
		}
	}
	require.Equal(t, []string{"alpha.m", "alpha.z", "zeta.a", "zeta.b"}, paths)
	params := cat.Products[0].Tools[1].Parameters
	require.Equal(t, "x", params[0].Name)
	require.Equal(t, "y", params[1].Name)
}

func TestBuildRefuses(t *testing.T) {
	tool := func(fields string) string { return `{"id":"p","tools":[{"name":"t"` + fields + `}]}` }
	for _, c := range []struct {
		name  string
		input []byte
		want  string
	}{
		{"no products", catalogJSON(), "the catalog has no tools"},
		{"product without tools", catalogJSON(`{"id":"p","tools":[]}`, `{"id":"q","tools":[{"name":"t"}]}`), `product "p": has no tools`},
		{"duplicate product", catalogJSON(`{"id":"p","tools":[{"name":"a"}]}`, `{"id":"p","tools":[{"name":"b"}]}`), `product "p" appears twice`},
		{"duplicate tool", catalogJSON(`{"id":"p","tools":[{"name":"a"},{"name":"b"},{"name":"a"}]}`), `product "p": tool name "a" appears twice`},
		{"product id with a dot", catalogJSON(`{"id":"a.b","tools":[{"name":"t"}]}`), `product "a.b": field "id": must not contain "."`},
		{"empty product id", catalogJSON(`{"tools":[{"name":"t"}]}`), `product "": field "id": empty`},
		{"product id with surrounding space", catalogJSON(`{"id":" p","tools":[{"name":"t"}]}`), `field "id": " p" has surrounding white space`},
		{"empty tool name", catalogJSON(`{"id":"p","tools":[{"description":"x"}]}`), `tool "p.": field "name": empty`},
		{"tool name with leading space", catalogJSON(`{"id":"p","tools":[{"name":" t"}]}`), `tool "p. t": field "name": " t" has surrounding white space`},
		{"tool name with trailing newline", catalogJSON(`{"id":"p","tools":[{"name":"t\n"}]}`), `field "name": "t\n" has surrounding white space`},
		{"tool name with a no-break space", catalogJSON(`{"id":"p","tools":[{"name":"t\u00a0"}]}`), `has surrounding white space`},
		{"tool name with a tab", catalogJSON(`{"id":"p","tools":[{"name":"a\tb"}]}`), `field "name": "a\tb" contains a control or invisible character`},
		{"tool name with a control char", catalogJSON(`{"id":"p","tools":[{"name":"a\u0007b"}]}`), `contains a control or invisible character`},
		{"tool name with DEL", catalogJSON(`{"id":"p","tools":[{"name":"a\u007fb"}]}`), `contains a control or invisible character`},
		{"tool name with a bidi override", catalogJSON(`{"id":"p","tools":[{"name":"a\u202eb"}]}`), `contains a control or invisible character`},
		{"tool name with a zero-width space", catalogJSON(`{"id":"p","tools":[{"name":"a\u200bb"}]}`), `contains a control or invisible character`},
		{"product id with a bidi isolate", catalogJSON(`{"id":"p\u2066","tools":[{"name":"t"}]}`), `field "id"`},
		{"alias with a bidi override", catalogJSON(tool(`,"aliases":["ok","x\u202ey"]`)), `tool "p.t": field "aliases": "x\u202ey" contains a control or invisible character`},
		{"alias with surrounding space", catalogJSON(tool(`,"aliases":[" x"]`)), `field "aliases": " x" has surrounding white space`},
		{"name too long", catalogJSON(`{"id":"p","tools":[{"name":"` + strings.Repeat("n", 257) + `"}]}`), `field "name": 257 bytes; the limit is 256`},
		{"unknown interface", catalogJSON(tool(`,"interface":"rest"`)), `tool "p.t": field "interface": "rest" is not one of "function", "mcp"`},
		{"unknown availability", catalogJSON(tool(`,"availability":"gone"`)), `field "availability": "gone" is not "available" or "unavailable"`},
		{"reason on an available tool", catalogJSON(tool(`,"unavailable_reason":"why"`)), `field "unavailable_reason": set on an available tool`},
		{"unknown effect", catalogJSON(tool(`,"safety":{"effect":"explode"}`)), `field "safety.effect": "explode" is not one of read, write, destructive`},
		{"unknown risk", catalogJSON(tool(`,"safety":{"risk":"extreme"}`)), `field "safety.risk": "extreme" is not one of low, medium, high`},
		{"unknown confirmation", catalogJSON(tool(`,"safety":{"confirmation":"maybe"}`)), `field "safety.confirmation"`},
		{"unknown idempotency", catalogJSON(tool(`,"safety":{"idempotency":"yes"}`)), `field "safety.idempotency"`},
		{"empty parameter name", catalogJSON(tool(`,"parameters":[{"name":""}]`)), `parameter "": the name must have 1 to 256 bytes`},
		{"duplicate parameter", catalogJSON(tool(`,"parameters":[{"name":"a"},{"name":"a"}]`)), `tool "p.t": parameter "a" appears twice`},
		{"bad property in the schema", catalogJSON(tool(`,"input_schema":{"properties":{"a":7}}`)), `tool "p.t": field "input_schema": property "a": want a schema object, got a number`},
		{"false property in the schema", catalogJSON(tool(`,"input_schema":{"properties":{"a":false}}`)), `property "a": want a schema object, got a boolean`},
		{"properties an array", catalogJSON(tool(`,"input_schema":{"properties":[]}`)), `field "input_schema": field "properties": want an object, got an array`},
		{"required not strings", catalogJSON(tool(`,"input_schema":{"properties":{},"required":[1]}`)), `field "required": want an array of strings`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := decodeAndBuild(c.input)
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestBuildLimits(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	for _, c := range []struct {
		name string
		doc  native.Document
		want string
	}{
		{"10 MB tool description", oneTool(native.Tool{Name: "t", Description: big}),
			fmt.Sprintf(`tool "p.t": field "description": %d bytes; the limit is %d`, len(big), native.MaxTextBytes)},
		{"10 MB product description", native.Document{Products: []native.Product{{ID: "p", Description: big, Tools: []native.Tool{{Name: "t"}}}}},
			fmt.Sprintf(`product "p": field "description": %d bytes; the limit is %d`, len(big), native.MaxTextBytes)},
		{"10 MB of use_when", oneTool(native.Tool{Name: "t", UseWhen: []string{big}}), `field "use_when"`},
		{"10 MB parameter description", oneTool(native.Tool{Name: "t", Parameters: []native.Parameter{{Name: "a", Description: big}}}),
			`parameter "a": field "description": 10485760 bytes; the limit is 65536`},
		{"too many parameters", oneTool(native.Tool{Name: "t", Parameters: manyParameters(native.MaxParameters + 1)}),
			`tool "p.t": 1025 parameters; the limit is 1024`},
		{"too many schema properties", oneTool(native.Tool{Name: "t", InputSchema: manyProperties(native.MaxParameters + 1)}),
			`tool "p.t": field "input_schema": more than 1024 properties`},
		{"schema over 1 MB", oneTool(native.Tool{Name: "t", InputSchema: catalog.RawJSON(`{"description":"` + strings.Repeat("d", native.MaxSchemaBytes) + `"}`)}),
			fmt.Sprintf(`field "input_schema": %d bytes; the limit is %d`, native.MaxSchemaBytes+18, native.MaxSchemaBytes)},
		{"too many tools", native.Document{Products: []native.Product{{ID: "p", Tools: make([]native.Tool, native.MaxTools+1)}}},
			"the catalog has 131073 tools; the limit is 131072"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := native.Build(&c.doc, native.Format)
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}

	// The limits themselves are allowed.
	doc := oneTool(native.Tool{Name: strings.Repeat("n", native.MaxNameBytes), Description: strings.Repeat("x", native.MaxTextBytes),
		Parameters: manyParameters(native.MaxParameters)})
	_, err := native.Build(&doc, native.Format)
	require.NoError(t, err)
	doc = oneTool(native.Tool{Name: "t", InputSchema: manyProperties(native.MaxParameters)})
	cat, err := native.Build(&doc, native.Format)
	require.NoError(t, err)
	require.Len(t, cat.Products[0].Tools[0].Parameters, native.MaxParameters)
}

func TestBuildLimitsTheDecodedForm(t *testing.T) {
	// The same 10 MB description through the JSON form.
	cat, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"` + strings.Repeat("y", 10<<20) + `"}]}`))
	require.Nil(t, cat)
	require.ErrorContains(t, err, `tool "p.t": field "description": 10485760 bytes; the limit is 65536`)
}

func oneTool(tool native.Tool) native.Document {
	return native.Document{Products: []native.Product{{ID: "p", Tools: []native.Tool{tool}}}}
}

func manyParameters(n int) []native.Parameter {
	out := make([]native.Parameter, n)
	for i := range out {
		out[i].Name = fmt.Sprintf("p%04d", i)
	}
	return out
}

func manyProperties(n int) catalog.RawJSON {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%04d":{"type":"string"}`, i)
	}
	b.WriteString(`}}`)
	return catalog.RawJSON(b.String())
}

// param is a Parameter in a compact form for the table below.
type param struct {
	name, typ, description string
	required               bool
	enum                   []string
	def                    string
}

func TestParametersFromSchema(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema string
		want   []param
	}{
		{"flat with required", `{"type":"object","properties":{"b":{"type":"integer","description":"B"},"a":{"type":"string"}},"required":["b"]}`,
			[]param{{name: "a", typ: "string"}, {name: "b", typ: "integer", description: "B", required: true}}},
		{"no properties", `{"type":"object"}`, nil},
		{"title when no description", `{"properties":{"a":{"title":"The A"},"b":{"title":"T","description":"D"}}}`,
			[]param{{name: "a", description: "The A"}, {name: "b", description: "D"}}},
		{"nested object, parent required", `{"properties":{"filter":{"type":"object","properties":{"state":{"type":"string"},"label":{"type":"string"}},"required":["state"]}},"required":["filter"]}`,
			[]param{{name: "filter", typ: "object", required: true}, {name: "filter.label", typ: "string"}, {name: "filter.state", typ: "string", required: true}}},
		{"nested object, parent optional", `{"properties":{"filter":{"type":"object","properties":{"state":{"type":"string"}},"required":["state"]}}}`,
			[]param{{name: "filter", typ: "object"}, {name: "filter.state", typ: "string"}}},
		{"array items", `{"properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}},"required":["rows"]}`,
			[]param{{name: "rows", typ: "array", required: true}, {name: "rows[].id", typ: "integer", required: true}}},
		{"array of scalars", `{"properties":{"tags":{"type":"array","items":{"type":"string"}}}}`,
			[]param{{name: "tags", typ: "array"}}},
		{"depth limit", `{"properties":{"a":{"properties":{"b":{"properties":{"c":{"properties":{"d":{"type":"string"}}}}}}}}}`,
			[]param{{name: "a"}, {name: "a.b"}, {name: "a.b.c"}}},
		{"depth limit through items", `{"properties":{"a":{"items":{"properties":{"b":{"items":{"properties":{"c":{"items":{"properties":{"d":{}}}}}}}}}}}}`,
			[]param{{name: "a"}, {name: "a[].b"}, {name: "a[].b[].c"}}},
		{"type list", `{"properties":{"a":{"type":["string","null"]}}}`, []param{{name: "a", typ: "string|null"}}},
		{"anyOf types", `{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"},{"type":"string"}]}}}`, []param{{name: "a", typ: "string|null"}}},
		{"oneOf types", `{"properties":{"a":{"oneOf":[{"type":"integer"},{"$ref":"#/x"},{"type":["number","null"]}]}}}`, []param{{name: "a", typ: "integer|number|null"}}},
		{"type wins over anyOf", `{"properties":{"a":{"type":"object","anyOf":[{"type":"string"}]}}}`, []param{{name: "a", typ: "object"}}},
		{"enum values", `{"properties":{"a":{"enum":["x",1,2.50,true,null,{"b":1,"a":[2]}]}}}`,
			[]param{{name: "a", enum: []string{"x", "1", "2.50", "true", "null", `{"a":[2],"b":1}`}}}},
		{"defaults", `{"properties":{"a":{"default":5},"b":{"default":"x"},"c":{"default":{"z":1,"y":"<&>"}},"d":{"default":false}}}`,
			[]param{{name: "a", def: "5"}, {name: "b", def: `"x"`}, {name: "c", def: `{"y":"<&>","z":1}`}, {name: "d", def: "false"}}},
		{"true schema", `{"properties":{"a":true}}`, []param{{name: "a"}}},
		{"required names a missing property", `{"properties":{"a":{}},"required":["b"]}`, []param{{name: "a"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := native.ParametersFromSchema(catalog.RawJSON(c.schema))
			require.NoError(t, err)
			var want []native.Parameter
			for _, p := range c.want {
				parameter := native.Parameter{Name: p.name, Type: p.typ, Description: p.description, Required: p.required, Enum: p.enum}
				if p.def != "" {
					parameter.Default = catalog.RawJSON(p.def)
				}
				want = append(want, parameter)
			}
			require.Equal(t, want, got)
		})
	}
}

func TestParametersFromSchemaRefuses(t *testing.T) {
	for schema, want := range map[string]string{
		`[]`:                            "want a JSON Schema object, got an array",
		`{"properties":`:                "not valid JSON",
		`{"properties":{"a":"string"}}`: `property "a": want a schema object, got a string`,
		`{"properties":{"a":{"properties":{"b":1}}}}`:              `property "a.b": want a schema object, got a number`,
		`{"properties":{"a":{"items":{"properties":{"b":null}}}}}`: `property "a[].b": want a schema object, got null`,
		`{"properties":{},"required":"a"}`:                         `field "required": want an array of strings, got a string`,
	} {
		_, err := native.ParametersFromSchema(catalog.RawJSON(schema))
		require.ErrorContains(t, err, want, schema)
	}
}

// sample is a hand-written document that uses every field.
const sample = `{"version":"toolsift-catalog.v1","products":[
 {"id":"tracker","name":"Issue Tracker","description":"Bugs and tasks","tools":[
  {"name":"issue.create","title":"Create issue","summary":"Open a new issue","description":"Creates an issue in a project.",
   "aliases":["new_issue"],"interface":"mcp","use_when":["report a bug"],"avoid_when":["closing an issue"],"examples":["file a login bug"],
   "input_schema":{"type":"object","properties":{"project":{"type":"string","description":"Project key"},
     "labels":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},
     "priority":{"enum":["low","high",3],"default":"low"}},"required":["project","labels"]},
   "safety":{"effect":"write","risk":"medium","confirmation":"not_required","idempotency":"non_idempotent"}},
  {"name":"issue.delete","description":"Deletes an issue for good.","availability":"unavailable","unavailable_reason":"needs admin",
   "parameters":[{"name":"id","type":"integer","required":true}],
   "safety":{"effect":"destructive","risk":"high","confirmation":"user_required","idempotency":"idempotent"}}]},
 {"id":"calendar","tools":[{"name":"list_events","description":"Lists events between two dates.","parameters":[]},
  {"name":"add_event","description":"Adds an event.","input_schema":{"type":"object"}}]}]}`

func TestRoundTrip(t *testing.T) {
	doc, err := native.Decode([]byte(sample))
	require.NoError(t, err)
	cat, err := native.Build(doc, native.Format)
	require.NoError(t, err)

	encoded := native.AppendJSON(nil, doc)
	again, err := native.Decode(encoded)
	require.NoError(t, err)
	require.Equal(t, doc, again, "the canonical form decodes to the normalised document")
	require.Equal(t, string(encoded), string(native.AppendJSON(nil, again)), "the canonical form is a fixed point")

	rebuilt, err := native.Build(again, native.Format)
	require.NoError(t, err)
	require.Equal(t, cat, rebuilt)
	require.Equal(t, cat.Version.SourceHash, rebuilt.Version.SourceHash)

	// The canonical form of the normalised document: defaults explicit,
	// parameters derived, everything sorted, keys in byte order.
	require.True(t, strings.HasPrefix(string(encoded), `{"products":[{"id":"calendar","tools":[{"availability":"available","description":"Adds an event.","input_schema":{"type":"object"},"interface":"function","name":"add_event"},`), string(encoded))
	require.Contains(t, string(encoded), `"parameters":[{"name":"labels","required":true,"type":"array"},{"name":"labels[].name","required":true,"type":"string"},{"default":"low","enum":["low","high","3"],"name":"priority"},{"description":"Project key","name":"project","required":true,"type":"string"}]`)
	require.Contains(t, string(encoded), `"name":"list_events","parameters":[]`, "an explicit empty parameter list is kept")
	require.True(t, strings.HasSuffix(string(encoded), `],"version":"toolsift-catalog.v1"}`))
}

func TestRoundTripKeepsNullDefault(t *testing.T) {
	// "default": null is common in schemas generated from Python (FastMCP,
	// pydantic). Build derives Default = null from the schema and AppendJSON
	// writes it, but Decode reads a null default as absent: the document
	// read back builds to another source hash.
	doc, err := native.Decode(catalogJSON(`{"id":"p","tools":[{"name":"t","input_schema":{"properties":{"a":{"type":["string","null"],"default":null}}}}]}`))
	require.NoError(t, err)
	cat, err := native.Build(doc, native.Format)
	require.NoError(t, err)
	again, err := native.Decode(native.AppendJSON(nil, doc))
	require.NoError(t, err)
	rebuilt, err := native.Build(again, native.Format)
	require.NoError(t, err)
	require.Equal(t, string(native.AppendJSON(nil, doc)), string(native.AppendJSON(nil, again)))
	require.Equal(t, cat.Version.SourceHash, rebuilt.Version.SourceHash)
}

func TestSourceHashIgnoresOrder(t *testing.T) {
	products := []string{
		`{"id":"a","tools":[{"name":"x","description":"X"},{"name":"y"},{"name":"z","parameters":[{"name":"q"},{"name":"p"}]}]}`,
		`{"id":"b","name":"Bee","tools":[{"name":"x"},{"name":"w","input_schema":{"properties":{"k":{},"j":{}}}}]}`,
		`{"id":"c","tools":[{"name":"only"}]}`,
	}
	want, err := decodeAndBuild(catalogJSON(products...))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(want.Version.SourceHash, "sha256:"))
	require.Len(t, want.Version.SourceHash, len("sha256:")+64)

	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		doc, err := native.Decode(catalogJSON(products...))
		require.NoError(t, err)
		rng.Shuffle(len(doc.Products), func(a, b int) { doc.Products[a], doc.Products[b] = doc.Products[b], doc.Products[a] })
		for p := range doc.Products {
			tools := doc.Products[p].Tools
			rng.Shuffle(len(tools), func(a, b int) { tools[a], tools[b] = tools[b], tools[a] })
			for t := range tools {
				params := tools[t].Parameters
				rng.Shuffle(len(params), func(a, b int) { params[a], params[b] = params[b], params[a] })
			}
		}
		got, err := native.Build(doc, native.Format)
		require.NoError(t, err)
		require.Equal(t, want.Version, got.Version)
		require.Equal(t, want, got)
	}
}

func TestHashes(t *testing.T) {
	base, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"one"},{"name":"u"}]}`))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(base.Version.SurfaceHash, "sha256:"))
	require.NotEqual(t, base.Version.SourceHash, base.Version.SurfaceHash)

	prose, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"two"},{"name":"u"}]}`))
	require.NoError(t, err)
	require.NotEqual(t, base.Version.SourceHash, prose.Version.SourceHash, "prose is part of the source")
	require.Equal(t, base.Version.SurfaceHash, prose.Version.SurfaceHash, "prose is not part of the surface")

	renamed, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"one"},{"name":"v"}]}`))
	require.NoError(t, err)
	require.NotEqual(t, base.Version.SurfaceHash, renamed.Version.SurfaceHash, "a tool name is part of the surface")

	aliased, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"one","aliases":["tee"]},{"name":"u"}]}`))
	require.NoError(t, err)
	require.NotEqual(t, base.Version.SurfaceHash, aliased.Version.SurfaceHash, "an alias is part of the surface")

	// The format name is recorded but is not part of the source: the same
	// document from any importer has the same hash.
	doc, err := native.Decode(catalogJSON(`{"id":"p","tools":[{"name":"t","description":"one"},{"name":"u"}]}`))
	require.NoError(t, err)
	other, err := native.Build(doc, "mcp")
	require.NoError(t, err)
	require.Equal(t, "mcp", other.Format)
	require.Equal(t, base.Version, other.Version)
}

func TestProductID(t *testing.T) {
	for in, want := range map[string]string{
		"github":             "github",
		" OP.GG MCP Server ": "OP_GG MCP Server",
		"Data.gov":           "Data_gov",
		"a..b":               "a__b",
		"":                   "",
	} {
		require.Equal(t, want, native.ProductID(in), in)
	}
}

func TestSourceHashIgnoresAliasOrder(t *testing.T) {
	// The catalog keeps aliases sorted and unique, but normalize leaves
	// Tool.Aliases as given and AppendJSON hashes them in that order: the
	// same catalog gets two source hashes.
	a, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","aliases":["b","a"]}]}`))
	require.NoError(t, err)
	b, err := decodeAndBuild(catalogJSON(`{"id":"p","tools":[{"name":"t","aliases":["a","b","a"]}]}`))
	require.NoError(t, err)
	require.Equal(t, a.Products, b.Products)
	require.Equal(t, a.Version, b.Version)
}
