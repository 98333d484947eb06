package openapi_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/openapi"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
)

// spec reads a document of testdata/openapi, gunzipping a .gz.
func spec(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "openapi", name))
	require.NoError(t, err)
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		data, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	return data
}

func lenient(t *testing.T, data []byte) (*catalog.Catalog, *importer.Report) {
	t.Helper()
	cat, _, report, err := importer.ImportWith(openapi.Format, data, importer.Options{})
	require.NoError(t, err)
	return cat, report
}

func tool(t *testing.T, cat *catalog.Catalog, canonical string) *catalog.Tool {
	t.Helper()
	for i := range cat.Products {
		for j := range cat.Products[i].Tools {
			if cat.Products[i].Tools[j].Identity.CanonicalPath == canonical {
				return &cat.Products[i].Tools[j]
			}
		}
	}
	t.Fatalf("no tool %q", canonical)
	return nil
}

func paramNames(tool *catalog.Tool) []string {
	var names []string
	for _, p := range tool.Parameters {
		names = append(names, p.Name)
	}
	return names
}

// TestGitHubEveryOperation: every operation of GitHub's REST description
// (623 operations, heavy $ref use) is a tool, none skipped, no warning.
func TestGitHubEveryOperation(t *testing.T) {
	cat, report := lenient(t, spec(t, "github-rest-v0.0.6.json.gz"))
	require.Equal(t, 623, report.ToolsRead)
	require.Equal(t, 623, report.ToolsImported)
	require.Zero(t, report.ToolsSkipped)
	require.Empty(t, report.Warnings)
	require.Len(t, cat.Products, 1)
	p := cat.Products[0]
	require.Equal(t, "github_v3_rest_api", p.ID)
	require.Equal(t, "GitHub v3 REST API", p.Name)
	require.Len(t, p.Tools, 623)

	deprecated, parameters := 0, 0
	for i := range p.Tools {
		if p.Tools[i].Deprecated {
			deprecated++
		}
		parameters += len(p.Tools[i].Parameters)
		require.LessOrEqual(t, len(p.Tools[i].InputSchema), 64<<10, p.Tools[i].Identity.Name)
	}
	require.Equal(t, 51, deprecated)
	require.Equal(t, 2321, parameters)

	// A path parameter from #/components/parameters, a body of $refs.
	create := tool(t, cat, "github_v3_rest_api.issues/create")
	require.Equal(t, "Create an issue", create.Title)
	require.Equal(t, []string{"issues"}, create.Selection.Keywords)
	require.Equal(t, "write", create.Safety.Effect)
	require.Subset(t, paramNames(create), []string{"owner", "repo", "title", "body", "labels", "assignees", "milestone"})
	require.Contains(t, create.Extra, "POST /repos/{owner}/{repo}/issues")
	del := tool(t, cat, "github_v3_rest_api.repos/delete")
	require.Equal(t, catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "idempotent"}, del.Safety)
	// A text/plain body is not an object: it is the one property "body".
	raw := tool(t, cat, "github_v3_rest_api.markdown/render-raw")
	require.Equal(t, `{"properties":{"body":{"type":"string"}},"type":"object"}`, string(raw.InputSchema))

	// And an agent finds what it asks for.
	e, err := engine.New(cat, profile.GenericV3)
	require.NoError(t, err)
	for query, want := range map[string]string{
		"add a label to an issue":     "github_v3_rest_api.issues/add-labels",
		"delete a repository":         "github_v3_rest_api.repos/delete",
		"render markdown as raw text": "github_v3_rest_api.markdown/render-raw",
	} {
		out, werr := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"` + query + `","limit":1}`))
		require.Nil(t, werr)
		require.Contains(t, string(out), `"canonical_path":"`+want+`"`, query)
	}
}

// TestJSONAndYAMLAreOneCatalog: Scalar's Galaxy (OpenAPI 3.1) in JSON and
// in YAML is the same catalog, to the source hash.
func TestJSONAndYAMLAreOneCatalog(t *testing.T) {
	fromJSON, _ := lenient(t, spec(t, "galaxy-3.1.json"))
	fromYAML, report := lenient(t, spec(t, "galaxy-3.1.yaml"))
	require.Equal(t, fromJSON.Version, fromYAML.Version)
	require.Equal(t, 9, report.ToolsImported)
	require.Empty(t, report.Warnings)

	user := tool(t, fromYAML, "scalar_galaxy.createUser")
	require.Equal(t, "Scalar Galaxy", fromYAML.Products[0].Name)
	// allOf: [User, Credentials] gives both schemas' properties, but not
	// User's read-only id: no request sends it.
	require.Equal(t, []string{"email", "name", "password"}, paramNames(user))
	planet := tool(t, fromYAML, "scalar_galaxy.getPlanet")
	require.Equal(t, "read", planet.Safety.Effect)
	require.Equal(t, []catalog.Parameter{{Name: "planetId", Property: "planetId", Type: "integer", Description: "The ID of the planet to get", Required: true}}, planet.Parameters)
	require.Contains(t, planet.Extra, "Planet Found")
	upload := tool(t, fromYAML, "scalar_galaxy.uploadImage")
	require.Equal(t, []string{"image", "planetId"}, paramNames(upload), "a multipart body's properties")
}

// TestSwagger2Petstore: body and formData parameters, deprecated, effects.
func TestSwagger2Petstore(t *testing.T) {
	for _, name := range []string{"petstore-swagger2.json", "petstore-swagger2.yaml"} {
		cat, report := lenient(t, spec(t, name))
		require.Equal(t, 20, report.ToolsImported, name)
		require.Empty(t, report.Warnings, name)
		add := tool(t, cat, "swagger_petstore.addPet")
		require.Equal(t, []string{"category", "category.id", "category.name", "id", "name", "photoUrls", "status", "tags", "tags[].id", "tags[].name"}, paramNames(add), name)
		form := tool(t, cat, "swagger_petstore.updatePetWithForm")
		require.Equal(t, []string{"name", "petId", "status"}, paramNames(form), name)
		require.True(t, tool(t, cat, "swagger_petstore.findPetsByTags").Deprecated, name)
		require.False(t, add.Deprecated)
		require.Equal(t, "destructive", tool(t, cat, "swagger_petstore.deletePet").Safety.Effect)
	}
}

// TestRepairsKeepTheTool: every malformed detail the issue names keeps its
// tool, with a warning per field; a strict import refuses the document.
func TestRepairsKeepTheTool(t *testing.T) {
	doc := `{"openapi":"3.0.3","info":{"title":"Shop"},"paths":{"/orders/{id}":{
	  "parameters":[{"$ref":"#/components/parameters/missing"},{"in":"query","description":"a nameless filter"}],
	  "get":{"operationId":"getOrder","summary":"Get an order","deprecated":"true","tags":"orders",
	    "parameters":[{"name":"id","in":"path","schema":{"type":"string"}},{"name":"verbose","in":"query","required":"true","schema":{"type":"boolean"}},
	      {"name":"fields","in":"somewhere","schema":{"type":7,"enum":{"a":1}}}],
	    "requestBody":{"content":{"application/json":{"schema":{"type":"object","required":true,"properties":{"note":{"type":"string"},"bad":3}}}}},
	    "responses":{"200":{"description":"The order"}},"x-toolsift-effect":"launch"}}},
	  "components":{"parameters":{}}}`
	cat, report := lenient(t, []byte(doc))
	require.Equal(t, 1, report.ToolsImported)
	get := tool(t, cat, "shop.getOrder")
	require.True(t, get.Deprecated)
	require.Equal(t, []string{"orders"}, get.Selection.Keywords)
	require.Equal(t, []string{"fields", "id", "note", "verbose"}, paramNames(get))
	require.True(t, get.Parameters[3].Required, "\"required\": \"true\" read as true")
	require.Contains(t, get.Extra, "a nameless filter")
	require.Contains(t, get.Extra, "The order")
	require.Equal(t, "read", get.Safety.Effect, "an unknown x-toolsift-effect keeps the method's")
	var fields []string
	for _, w := range report.Warnings {
		fields = append(fields, w.Field)
		require.Equal(t, 1, w.Count)
		require.Contains(t, w.Example, `paths["/orders/{id}"].get`)
	}
	require.Equal(t, []string{"deprecated", "parameters", "parameters.in", "parameters.name", "parameters.required",
		"schema.enum", "schema.properties", "schema.required", "schema.type", "tags", "x-toolsift-effect"}, fields)

	require.Contains(t, report.Summary(), "  repaired parameters.required on 1 (tools kept; --strict refuses them), first: paths[\"/orders/{id}\"].get: parameter \"verbose\": want a boolean, got the string \"true\"; read as true\n")

	_, _, err := importer.Import(openapi.Format, []byte(doc))
	require.ErrorContains(t, err, "paths[\"/orders/{id}\"].get", "strict refuses the first repair")
}

// TestOnlyIdentityProblemsSkip: a duplicate operationId or one with an
// invisible character leaves its tool out; which duplicate stays does not
// depend on the order of the document's keys.
func TestOnlyIdentityProblemsSkip(t *testing.T) {
	for _, doc := range []string{
		`{"swagger":"2.0","info":{"title":"T"},"paths":{"/a":{"get":{"operationId":"list"}},"/b":{"get":{"operationId":"list","summary":"second"}},"/c":{"get":{"operationId":"bad\u200bname"}},"/d":{"post":{}}}}`,
		`{"paths":{"/d":{"post":{}},"/c":{"get":{"operationId":"bad\u200bname"}},"/b":{"get":{"summary":"second","operationId":"list"}},"/a":{"get":{"operationId":"list"}}},"info":{"title":"T"},"swagger":"2.0"}`,
	} {
		cat, report := lenient(t, []byte(doc))
		require.Equal(t, 4, report.ToolsRead)
		require.Equal(t, 2, report.ToolsSkipped)
		require.Equal(t, "", tool(t, cat, "t.list").Title, "the first path's operation stays")
		tool(t, cat, "t.POST /d") // no operationId: named by method and path
	}
}

// TestEffectExtensionAndProduct: x-toolsift-effect overrides the method;
// Options.Product names the product.
func TestEffectExtensionAndProduct(t *testing.T) {
	doc := []byte(`{"openapi":"3.1.0","info":{"title":"Search API"},"paths":{"/search":{"post":{"operationId":"search","x-toolsift-effect":"read"},"delete":{"operationId":"purge"}}}}`)
	parsed, err := openapi.Read(doc, nil, openapi.Options{Product: "my.search"})
	require.NoError(t, err)
	cat, err := native.Build(parsed, openapi.Format)
	require.NoError(t, err)
	require.Equal(t, "my_search", cat.Products[0].ID)
	require.Equal(t, "read", tool(t, cat, "my_search.search").Safety.Effect)
	require.Equal(t, "destructive", tool(t, cat, "my_search.purge").Safety.Effect)

	named, _, _, err := importer.ImportWith(openapi.Format, doc, importer.Options{Product: "Search"})
	require.NoError(t, err)
	require.Equal(t, "Search", named.Products[0].ID, "importer.Options.Product reaches the importer")
}

// TestReferenceBounds: a cycle becomes a stub, an unresolved or external
// reference a warning, and a schema that refers to itself through a chain
// of parameters is refused nowhere.
func TestReferenceBounds(t *testing.T) {
	doc := `{"openapi":"3.0.0","info":{"title":"Tree"},"paths":{"/nodes":{"post":{"operationId":"addNode",
	  "parameters":[{"$ref":"#/components/parameters/a"}],
	  "requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Node"}}}}}}},
	  "components":{"parameters":{"a":{"$ref":"#/components/parameters/b"},"b":{"$ref":"#/components/parameters/a"}},
	  "schemas":{"Node":{"type":"object","description":"A node","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/components/schemas/Node"}},"owner":{"$ref":"other.yaml#/User"}}}}}}`
	cat, report := lenient(t, []byte(doc))
	add := tool(t, cat, "tree.addNode")
	require.Equal(t, `{"properties":{"children":{"items":{"description":"A node","title":"Node","type":"object"},"type":"array"},"name":{"type":"string"},"owner":{"description":"unresolved reference other.yaml#/User"}},"type":"object"}`, string(add.InputSchema))
	var fields []string
	for _, w := range report.Warnings {
		fields = append(fields, w.Field)
	}
	require.Equal(t, []string{"$ref", "parameters"}, fields)
}

// TestExpansionIsBounded: a schema whose every level refers twice to the
// next (2^40 nodes expanded naively) is cut within the node budget.
func TestExpansionIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.0","info":{"title":"Wide"},"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/s00"}}}}}}},"components":{"schemas":{`)
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"s` + itoa(i) + `":{"type":"object","properties":{"l":{"$ref":"#/components/schemas/s` + itoa(i+1) + `"},"r":{"$ref":"#/components/schemas/s` + itoa(i+1) + `"}}}`)
	}
	b.WriteString(`,"s40":{"type":"string"}}}}`)
	cat, report := lenient(t, []byte(b.String()))
	require.Less(t, len(tool(t, cat, "wide.x").InputSchema), 1<<20)
	require.Equal(t, "schema", report.Warnings[0].Field)
}

func itoa(i int) string {
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// TestYAMLBounds: aliases that expand without end, or refer to their own
// ancestors, are refused with an error, not built.
func TestYAMLBounds(t *testing.T) {
	laughs := "openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 12 {
		name := "l" + itoa(i)
		laughs += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	_, err := openapi.Import([]byte(laughs))
	require.ErrorContains(t, err, "too many values once aliases are expanded")

	_, err = openapi.Import([]byte("openapi: 3.0.0\npaths: &p\n  /a: *p\n"))
	require.Error(t, err)

	_, err = openapi.Import([]byte("openapi: 3.0.0\ninfo: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n"))
	require.ErrorContains(t, err, "levels deep")

	_, err = openapi.Import([]byte("openapi: 3.0.0\ninfo: {title: a}\ninfo: {title: b}\n"))
	require.ErrorContains(t, err, "appears twice")
}

// TestYAMLScalars: YAML's integers, floats, merge keys and integer keys
// read as JSON would give them.
func TestYAMLScalars(t *testing.T) {
	doc := `swagger: 2.0
info: {title: Scalars}
base: &base {type: integer, minimum: 0x10, maximum: 1e3, default: 12}
paths:
  /n:
    get:
      operationId: n
      parameters:
        - {name: n, in: query, <<: *base}
      responses:
        200: {description: Fine}
`
	cat, _ := lenient(t, []byte(doc))
	n := tool(t, cat, "scalars.n")
	require.Equal(t, `{"properties":{"n":{"default":12,"maximum":1e3,"minimum":16,"type":"integer"}},"type":"object"}`, string(n.InputSchema))
	require.Contains(t, n.Extra, "Fine")
}

// TestLongTextIsCut: a product description or extra text over the
// limit is cut with a warning, not a refusal of every tool.
func TestLongTextIsCut(t *testing.T) {
	long := strings.Repeat("word ", 20000)
	doc := `{"openapi":"3.0.0","info":{"title":"Long","description":"` + long + `"},"paths":{"/a":{"get":{"operationId":"a","responses":{"200":{"description":"` + long + `"}}}}}}`
	cat, report := lenient(t, []byte(doc))
	require.Len(t, cat.Products[0].Description, native.MaxTextBytes)
	require.Len(t, tool(t, cat, "long.a").Extra, native.MaxTextBytes)
	require.Equal(t, "extra", report.Warnings[0].Field)
	require.Equal(t, "info.description", report.Warnings[1].Field)
}

func TestNotOpenAPI(t *testing.T) {
	for _, doc := range []string{`{"tools":[]}`, `[1]`, `openapi: [3]`, ``, `{`} {
		_, err := openapi.Import([]byte(doc))
		require.Error(t, err, doc)
	}
}

// A top-level tag's description reaches the extra text of each operation it
// tags; every top-level key the specifications define is reported as used
// (with where it went) or dropped with why, none merely "ignored".
func TestTagDescriptionsAndDocumentRoles(t *testing.T) {
	cat, report := lenient(t, []byte(`{"openapi":"3.0.3","info":{"title":"Zoo"},
		"servers":[{"url":"https://zoo.example"}],"security":[{"key":[]}],"externalDocs":{"url":"https://docs.example","description":"The zoo's manual"},
		"tags":[{"name":"animals","description":"Everything about the keepers' elephants","externalDocs":{"description":"Husbandry guide"}},{"name":"unused","description":"Never tagged"}],
		"webhooks":{"born":{"post":{"summary":"A calf is born"}}},
		"paths":{"/animals":{"get":{"operationId":"listAnimals","tags":["animals"],"security":[{"key":[]}],"callbacks":{}}}}}`))
	list := tool(t, cat, "zoo.listAnimals")
	require.Contains(t, list.Extra, "Everything about the keepers' elephants")
	require.Contains(t, list.Extra, "Husbandry guide")
	require.NotContains(t, list.Extra, "Never tagged")

	roles := map[string][]string{}
	for _, f := range report.Fields {
		roles[f.Name] = f.To
		if f.Ignored > 0 {
			require.NotEmpty(t, f.To, "field %s is ignored without a reason", f.Name)
		}
	}
	require.Equal(t, []string{"extra"}, roles["tags"])
	require.Equal(t, []string{"dropped: how to call it"}, roles["servers"])
	require.Equal(t, []string{"dropped: how to call it"}, roles["operation.security"])
	require.Equal(t, []string{"dropped: how to call it"}, roles["security"], "no scope of the document's says anything")
	require.Equal(t, []string{"dropped: requests the API sends, not operations an agent calls"}, roles["webhooks"])
	require.Equal(t, []string{"product"}, roles["externalDocs"])
	require.Contains(t, cat.Products[0].Description, "The zoo's manual", "the document's external docs describe the product")
}

// An OAuth scope's description says what an operation requiring it may do:
// it joins that operation's extra text, whether the operation names the
// scope itself or inherits the document's requirements; an operation whose
// own list is empty requires nothing and gets nothing. Swagger 2.0 keeps
// scopes in securityDefinitions, OpenAPI 3 in the flows of
// components.securitySchemes (a scheme may be a $ref).
func TestScopeDescriptionsReachTheOperationsThatRequireThem(t *testing.T) {
	cat, report := lenient(t, []byte(`{"swagger":"2.0","info":{"title":"Pets"},
		"securityDefinitions":{"auth":{"type":"oauth2","flow":"implicit","scopes":{"write:pets":"modify pets in your account","read:pets":"read your pets"}}},
		"security":[{"auth":["read:pets"]}],
		"paths":{"/pets":{"post":{"operationId":"addPet","security":[{"auth":["write:pets"]}]},
		                  "get":{"operationId":"listPets"}},
		         "/health":{"get":{"operationId":"health","security":[]}}}}`))
	require.Contains(t, tool(t, cat, "pets.addPet").Extra, "modify pets in your account")
	require.NotContains(t, tool(t, cat, "pets.addPet").Extra, "read your pets", "its own requirements replace the document's")
	require.Contains(t, tool(t, cat, "pets.listPets").Extra, "read your pets", "inherited from the document")
	require.NotContains(t, tool(t, cat, "pets.health").Extra, "your", "an empty list requires no scope")
	roles := map[string][]string{}
	for _, f := range report.Fields {
		roles[f.Name] = f.To
	}
	require.ElementsMatch(t, []string{"extra", "dropped: how to call it"}, roles["operation.security"], "addPet's scope has words, health's empty list none")
	require.Equal(t, []string{"extra"}, roles["security"])
	require.Equal(t, []string{"references"}, roles["securityDefinitions"])

	cat, _ = lenient(t, []byte(`{"openapi":"3.1.0","info":{"title":"Galaxy"},
		"components":{"securitySchemes":{"o":{"$ref":"#/components/schemas/oauth"}},
		  "schemas":{"oauth":{"type":"oauth2","flows":{"authorizationCode":{"scopes":{"read:account":"read your account information"}}}}}},
		"paths":{"/me":{"get":{"operationId":"me","security":[{"o":["read:account"]},{"other":["x"]}]}}}}`))
	require.Contains(t, tool(t, cat, "galaxy.me").Extra, "read your account information")
}
