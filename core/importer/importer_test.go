package importer_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

func TestFormats(t *testing.T) {
	require.Equal(t, []string{"dws", "toolsift", "mcp", "openai", "anthropic", "beir", "openapi"}, importer.Formats())
}

func TestUnknownFormat(t *testing.T) {
	for _, format := range []string{"", "MCP", "swagger", "toolsift-catalog.v1"} {
		cat, p, err := importer.Import(format, []byte(`{"tools":[]}`))
		require.Nil(t, cat)
		require.Nil(t, p)
		var unknown *importer.UnknownFormatError
		require.True(t, errors.As(err, &unknown), "%T", err)
		require.Equal(t, format, unknown.Format)
		require.EqualError(t, err, `unknown catalog format "`+format+`" (known: dws, toolsift, mcp, openai, anthropic, beir, openapi)`)
	}
}

func TestImportDWS(t *testing.T) {
	cat, p, err := importer.Import("dws", fixtures.DWSCatalog)
	require.NoError(t, err)
	require.Equal(t, profile.DWSV1, p)
	require.Equal(t, "dws", cat.Format)
	require.Equal(t, 1122, cat.ToolCount())
}

// The same three tools in every generic format.
var tiny = map[string]string{
	"toolsift": `{"version":"toolsift-catalog.v1","products":[{"id":"tools","tools":[
	 {"name":"get_weather","description":"Get the weather forecast for a city","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}},
	 {"name":"send_email","description":"Send an email message to a recipient","input_schema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}},
	 {"name":"create_invoice","description":"Create an invoice for a customer","input_schema":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}]}]}`,
	"mcp": `{"tools":[
	 {"name":"get_weather","description":"Get the weather forecast for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]},"annotations":{"readOnlyHint":true}},
	 {"name":"send_email","description":"Send an email message to a recipient","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}},
	 {"name":"create_invoice","description":"Create an invoice for a customer","inputSchema":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}]}`,
	"openai": `[
	 {"type":"function","function":{"name":"get_weather","description":"Get the weather forecast for a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}}},
	 {"type":"function","name":"send_email","description":"Send an email message to a recipient","parameters":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}},
	 {"type":"function","name":"create_invoice","description":"Create an invoice for a customer","parameters":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}]`,
	"anthropic": `{"tools":[
	 {"name":"get_weather","description":"Get the weather forecast for a city","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}},
	 {"name":"send_email","description":"Send an email message to a recipient","input_schema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}},
	 {"name":"create_invoice","description":"Create an invoice for a customer","input_schema":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}]}`,
	"beir": `{"id":"get_weather","name":"get_weather","description":"Get the weather forecast for a city","doc":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}}}
{"id":"send_email","name":"send_email","description":"Send an email message to a recipient","doc":{"parameters":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}}}}}
{"id":"create_invoice","name":"create_invoice","description":"Create an invoice for a customer","doc":{"parameters":{"type":"object","properties":{"customer":{"type":"string"},"amount":{"type":"number"}}}}}
`,
	"openapi": `openapi: 3.1.0
info: {title: tools}
paths:
  /weather:
    get:
      operationId: get_weather
      description: Get the weather forecast for a city
      parameters: [{name: city, in: query, required: true, description: City name, schema: {type: string}}]
  /emails:
    post:
      operationId: send_email
      description: Send an email message to a recipient
      requestBody: {content: {application/json: {schema: {type: object, properties: {to: {type: string}, body: {type: string}}}}}}
  /invoices:
    post:
      operationId: create_invoice
      description: Create an invoice for a customer
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Invoice"}}}}
components:
  schemas:
    Invoice: {type: object, properties: {customer: {type: string}, amount: {type: number}}}
`,
}

type response struct {
	Catalog    catalog.VersionRef
	Strategy   string `json:"strategy"`
	Candidates []struct {
		CanonicalPath string `json:"canonical_path"`
		Effect        string `json:"effect"`
	} `json:"candidates"`
	Abstained bool `json:"abstained"`
}

func search(t *testing.T, e *engine.Engine, query string) response {
	t.Helper()
	q, err := json.Marshal(query)
	require.NoError(t, err)
	out, werr := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":` + string(q) + `}`))
	require.Nil(t, werr, "%v", werr)
	var r response
	require.NoError(t, json.Unmarshal(out, &r))
	return r
}

func newEngine(t *testing.T, format, data string) *engine.Engine {
	t.Helper()
	cat, p, err := importer.Import(format, []byte(data))
	require.NoError(t, err)
	require.Equal(t, profile.GenericV3, p)
	require.Equal(t, format, cat.Format)
	e, err := engine.New(cat, p)
	require.NoError(t, err)
	return e
}

func TestEveryFormatEndToEnd(t *testing.T) {
	for _, format := range importer.Formats()[1:] {
		t.Run(format, func(t *testing.T) {
			e := newEngine(t, format, tiny[format])
			require.Equal(t, 3, e.ToolCount())
			for query, want := range map[string]string{
				"what is the weather forecast in Paris": "tools.get_weather",
				"email a message to my boss":            "tools.send_email",
				"bill a customer with an invoice":       "tools.create_invoice",
			} {
				r := search(t, e, query)
				require.Equal(t, profile.BM25F, r.Strategy, query)
				require.NotEmpty(t, r.Candidates, query)
				require.Equal(t, want, r.Candidates[0].CanonicalPath, query)
			}
			r := search(t, e, "get_weather")
			require.Equal(t, wire.StrategyExactGuard, r.Strategy, "a unique bare name is answered by the exact guard")
			require.Len(t, r.Candidates, 1)
			require.Equal(t, "tools.get_weather", r.Candidates[0].CanonicalPath)
		})
	}
}

func TestSameToolsSameSourceHash(t *testing.T) {
	// Formats that carry the same information give the same normalised
	// document, hence the same hash. (MCP differs: interface and safety.)
	hashes := map[string]catalog.VersionRef{}
	for _, format := range []string{"toolsift", "openai", "anthropic", "beir"} {
		cat, _, err := importer.Import(format, []byte(tiny[format]))
		require.NoError(t, err)
		hashes[format] = cat.Version
	}
	for format, version := range hashes {
		require.Equal(t, hashes["toolsift"], version, format)
	}
	cat, _, err := importer.Import("mcp", []byte(tiny["mcp"]))
	require.NoError(t, err)
	require.NotEqual(t, hashes["toolsift"].SourceHash, cat.Version.SourceHash)
	require.Equal(t, hashes["toolsift"].SurfaceHash, cat.Version.SurfaceHash, "same identities, same surface")
}

func TestBareNames(t *testing.T) {
	const servers = `{"servers":{
	 "github":{"tools":[{"name":"search","description":"Search code"},{"name":"create_issue","description":"Open an issue"}]},
	 "jira":{"tools":[{"name":"search","description":"Search tickets"},{"name":"transition","description":"Move a ticket"}]},
	 "tools":{"tools":[{"name":"x","description":"the tool tools.x"}]},
	 "p":{"tools":[{"name":"tools.x","description":"a tool whose bare name is another's canonical path"}]},
	 "ops":{"tools":[{"name":"deploy","description":"Deploy","annotations":{"readOnlyHint":false}}]}}}`
	cat, p, err := importer.Import("mcp", []byte(servers))
	require.NoError(t, err)
	generic, err := engine.New(cat, p)
	require.NoError(t, err)

	r := search(t, generic, "create_issue")
	require.Equal(t, wire.StrategyExactGuard, r.Strategy)
	require.Equal(t, "github.create_issue", r.Candidates[0].CanonicalPath)
	r = search(t, generic, "  transition ")
	require.Equal(t, wire.StrategyExactGuard, r.Strategy)
	require.Equal(t, "jira.transition", r.Candidates[0].CanonicalPath)

	r = search(t, generic, "search")
	require.Equal(t, profile.BM25F, r.Strategy, "a bare name two tools share resolves to neither")
	require.Len(t, r.Candidates, 2)

	r = search(t, generic, "tools.x")
	require.Equal(t, wire.StrategyExactGuard, r.Strategy)
	require.Equal(t, "tools.x", r.Candidates[0].CanonicalPath, "a canonical path wins over another tool's bare name")
	r = search(t, generic, "p.tools.x")
	require.Equal(t, "p.tools.x", r.Candidates[0].CanonicalPath)

	r = search(t, generic, "Create_Issue")
	require.NotEqual(t, wire.StrategyExactGuard, r.Strategy, "bare names are case-sensitive")

	// An MCP tool the guard names but filters says so.
	out, werr := generic.SearchJSON([]byte(`{"version":"tool-search.v1","query":"deploy","effects":["read"]}`))
	require.Nil(t, werr)
	require.Contains(t, string(out), `"strategy":"exact_filtered"`)
	require.Contains(t, string(out), `"reason":"effect_mismatch"`)

	// dws-v1 does not resolve bare names: the same catalog ranks instead.
	dws, err := engine.New(cat, profile.DWSV1)
	require.NoError(t, err)
	r = search(t, dws, "create_issue")
	require.Equal(t, profile.BM25, r.Strategy)
	r = search(t, dws, "github.create_issue")
	require.Equal(t, wire.StrategyExactGuard, r.Strategy, "canonical paths resolve under every profile")
}

// TestBadInputEveryFormat: whatever the format, broken input is an error,
// never a panic and never a catalog.
func TestBadInputEveryFormat(t *testing.T) {
	big := strings.Repeat("d", 10<<20)
	cases := map[string]map[string]string{
		"toolsift": {
			"wrong type":        `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":["x"]}]}]}`,
			"tool without name": `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"description":"x"}]}]}`,
			"10 MB description": `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"x","description":"` + big + `"}]}]}`,
		},
		"mcp": {
			"wrong type":        `{"tools":[{"name":"x","inputSchema":true}]}`,
			"tool without name": `{"tools":[{"description":"x"}]}`,
			"10 MB description": `{"tools":[{"name":"x","description":"` + big + `"}]}`,
		},
		"openai": {
			"wrong type":        `[{"type":"function","function":{"name":"x","parameters":"{}"}}]`,
			"tool without name": `[{"type":"function","function":{"description":"x"}}]`,
			"10 MB description": `[{"type":"function","name":"x","description":"` + big + `"}]`,
		},
		"anthropic": {
			"wrong type":        `[{"name":"x","input_schema":{"properties":[]}}]`,
			"tool without name": `[{"description":"x","input_schema":{}}]`,
			"10 MB description": `[{"name":"x","input_schema":{},"description":"` + big + `"}]`,
		},
		"openapi": {
			"wrong type":        `{"openapi":"3.0.0","paths":{"/x":{"get":{"operationId":"x","tags":7}}}}`,
			"tool without name": `{"openapi":"3.0.0","paths":{"/x":{"get":{"operationId":" "}}}}`,
			"10 MB description": `{"openapi":"3.0.0","paths":{"/x":{"get":{"operationId":"x","description":"` + big + `"}}}}`,
		},
		"beir": {
			"wrong type":        `{"id":"x","doc":{"required_parameters":"q"}}`,
			"tool without name": `{"name":"x","description":"no id"}`,
			"10 MB description": `{"id":"x","description":"` + big + `"}`,
		},
	}
	for _, format := range importer.Formats()[1:] {
		cases[format]["truncated"] = tiny[format][:len(tiny[format])/2]
		cases[format]["empty"] = ``
		cases[format]["not JSON"] = "\x00\xff"
		for name, input := range cases[format] {
			t.Run(format+"/"+name, func(t *testing.T) {
				cat, _, err := importer.Import(format, []byte(input))
				require.Error(t, err)
				require.Nil(t, cat)
				if name == "10 MB description" {
					require.ErrorContains(t, err, "10485760 bytes; the limit is 65536")
				}
			})
		}
	}
	for name, input := range map[string][]byte{
		"truncated": fixtures.DWSCatalog[:len(fixtures.DWSCatalog)/2],
		"empty":     nil,
		"not JSON":  []byte("\x00\xff"),
		"wrong":     []byte(`{"catalog.json":7}`),
	} {
		cat, _, err := importer.Import("dws", input)
		require.Error(t, err, "dws/"+name)
		require.Nil(t, cat)
	}
}

func TestExactGuardFindsNamesThatAreNotNFKC(t *testing.T) {
	// The importers accept any printable name, full-width letters included
	// ("ｆｏｏ"); the exact guard resolves the NFKC form of the query only
	// ("tools.foo"), so such a tool is never found by its own canonical path
	// or bare name (Inspect, which does not fold, finds it).
	e := newEngine(t, "mcp", `{"tools":[{"name":"ｆｏｏ"},{"name":"bar"}]}`)
	for _, query := range []string{"tools.ｆｏｏ", "ｆｏｏ"} {
		r := search(t, e, query)
		require.Equal(t, wire.StrategyExactGuard, r.Strategy, query)
		require.Equal(t, "tools.ｆｏｏ", r.Candidates[0].CanonicalPath, query)
	}
}

// TestCheckpointIsCalledPerToolAndChangesNothing: the module's build relies
// on the checkpoint for its WASI calls (calls.AppendSnapshot), so every
// format calls it at least once per tool, and the catalog is the same with
// or without it.
func TestCheckpointIsCalledPerToolAndChangesNothing(t *testing.T) {
	inputs := map[string][]byte{"dws": fixtures.DWSCatalog}
	for _, format := range importer.Formats()[1:] {
		inputs[format] = []byte(tiny[format])
	}
	for _, format := range importer.Formats() {
		t.Run(format, func(t *testing.T) {
			plain, _, _, err := importer.ImportWith(format, inputs[format], importer.Options{})
			require.NoError(t, err)
			calls := 0
			checked, _, _, err := importer.ImportWith(format, inputs[format], importer.Options{Checkpoint: func() { calls++ }})
			require.NoError(t, err)
			require.GreaterOrEqual(t, calls, checked.ToolCount())
			require.Equal(t, plain, checked)
		})
	}
}

// TestProductName: tools whose input names no product go under the
// product the user names; a product of that name takes them in; formats
// that name their products refuse it.
func TestProductName(t *testing.T) {
	cat, _, _, err := importer.ImportWith("mcp", []byte(`{"tools":[{"name":"read_file","inputSchema":{"type":"object"}}]}`), importer.Options{Product: "file.system"})
	require.NoError(t, err)
	require.Equal(t, "file_system.read_file", cat.Products[0].Tools[0].Identity.CanonicalPath)
	require.Equal(t, "file.system", cat.Products[0].Name)

	cat, _, _, err = importer.ImportWith("beir", []byte(`{"id":"fs::write","description":"W"}`+"\n"+`{"id":"read","description":"R"}`), importer.Options{Product: "fs"})
	require.NoError(t, err)
	require.Len(t, cat.Products, 1)
	require.Equal(t, []string{"fs.read", "fs.write"}, []string{cat.Products[0].Tools[0].Identity.CanonicalPath, cat.Products[0].Tools[1].Identity.CanonicalPath})

	_, _, _, err = importer.ImportWith("toolsift", []byte(`{}`), importer.Options{Product: "x"})
	require.ErrorContains(t, err, "names its products itself")
}

// TestDeprecatedMarks: every generic format marks a tool its source calls
// deprecated (a field, an annotation, a note, the text), and the mark
// survives the snapshot.
func TestDeprecatedMarks(t *testing.T) {
	for _, c := range []struct{ format, input string }{
		{"mcp", `{"tools":[{"name":"read_file","description":"DEPRECATED: use read_text_file"},{"name":"read_text_file","description":"Read a text file"},` +
			`{"name":"old","annotations":{"deprecated":true}},{"name":"older","deprecated":"use read_text_file"}]}`},
		{"openai", `[{"type":"function","name":"read_file","description":"Read a file (Deprecated)"},{"type":"function","name":"read_text_file","description":"Read a text file"},` +
			`{"type":"function","function":{"name":"old","deprecated":true}},{"type":"function","name":"older","deprecated":"true"}]`},
		{"anthropic", `[{"name":"read_file","description":"Deprecated: use read_text_file","input_schema":{"type":"object"}},{"name":"read_text_file","input_schema":{"type":"object"}},` +
			`{"name":"old","deprecated":true,"input_schema":{"type":"object"}},{"name":"older","deprecated":"yes","input_schema":{"type":"object"}}]`},
		{"beir", `{"id":"read_file","description":"[Deprecated] Read a file"}` + "\n" + `{"id":"read_text_file","description":"Read a text file"}` + "\n" +
			`{"id":"old","doc":{"deprecated":true}}` + "\n" + `{"id":"older","doc":{"deprecated":"use read_text_file"}}`},
	} {
		t.Run(c.format, func(t *testing.T) {
			cat, p, _, err := importer.ImportWith(c.format, []byte(c.input), importer.Options{Strict: true})
			require.NoError(t, err)
			snap, err := compile.Snapshot(cat, p)
			require.NoError(t, err)
			body, werr := snapshot.Decode(snap)
			require.Nil(t, werr)
			marked := map[string]bool{}
			for _, tool := range body.Catalog.Products[0].Tools {
				marked[tool.Identity.Name] = tool.Deprecated
			}
			require.Equal(t, map[string]bool{"old": true, "older": true, "read_file": true, "read_text_file": false}, marked)
		})
	}
}

// A catalog nested deeper than the decoder's bound (512 levels) is refused
// in every format, wherever the nesting is, before the decoder recurses
// further: in WebAssembly, 8,000 levels overflowed wasmtime's stack and
// killed the call where other hosts refused the catalog.
func TestDeepNestingEveryFormat(t *testing.T) {
	nest := func(levels int) string { // levels arrays and objects, alternating
		half := levels / 2
		return strings.Repeat(`{"a":[`, half) + strings.Repeat(`]}`, half)
	}
	for _, levels := range []int{514, 8000, 9998} {
		deep := nest(levels)
		for format, input := range map[string]string{
			"toolsift":  `{"version":"toolsift-catalog.v1","products":[{"id":"p","tools":[{"name":"x","input_schema":` + deep + `}]}]}`,
			"mcp":       `{"tools":[{"name":"x","inputSchema":{"type":"object","properties":{"q":` + deep + `}}}]}`,
			"openai":    `[{"type":"function","name":"x","parameters":` + deep + `}]`,
			"anthropic": `[{"name":"x","input_schema":` + deep + `}]`,
			"beir":      `{"id":"x","description":"d","doc":` + deep + `}`,
			"dws":       `{"catalog.json":` + deep + `}`,
			"openapi":   `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"x-deep":` + deep + `}}}}`,
		} {
			cat, _, err := importer.Import(format, []byte(input))
			require.Nil(t, cat, format)
			require.ErrorContains(t, err, "nested more than 512 levels deep", "%s, %d levels", format, levels)
		}
	}
	// 512 levels are read (and refused only for what they are, not their depth).
	_, _, err := importer.Import("anthropic", []byte(`[{"name":"x","input_schema":`+nest(510)+`}]`))
	if err != nil {
		require.NotContains(t, err.Error(), "levels deep")
	}
}
