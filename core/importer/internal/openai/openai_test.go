package openai_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/openai"
	"github.com/toolsift/toolsift/core/importer/native"
)

func importAndBuild(data string) (*catalog.Catalog, error) {
	doc, err := openai.Import([]byte(data))
	if err != nil {
		return nil, err
	}
	return native.Build(doc, openai.Format)
}

const weatherSchema = `{"type":"object","properties":{"location":{"type":"string","description":"City and country"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false}`

// chatTools is the Chat Completions shape; responsesTools the same tools in
// the Responses shape.
const (
	chatTools = `[
 {"type":"function","function":{"name":"get_weather","description":"Get the current weather","parameters":` + weatherSchema + `,"strict":true}},
 {"type":"function","function":{"name":"get_time","description":"Get the local time"}}]`
	responsesTools = `[
 {"type":"function","name":"get_weather","description":"Get the current weather","parameters":` + weatherSchema + `,"strict":true},
 {"type":"function","name":"get_time","description":"Get the local time"}]`
)

func TestImportChatCompletionsShape(t *testing.T) {
	cat, err := importAndBuild(chatTools)
	require.NoError(t, err)
	require.Equal(t, openai.Format, cat.Format)
	require.Len(t, cat.Products, 1)
	p := cat.Products[0]
	require.Equal(t, native.DefaultProduct, p.ID)
	require.Len(t, p.Tools, 2)
	time, weather := p.Tools[0], p.Tools[1]
	require.Equal(t, "tools.get_time", time.Identity.CanonicalPath)
	require.Nil(t, time.InputSchema)
	require.Nil(t, time.Parameters)
	require.Equal(t, "tools.get_weather", weather.Identity.CanonicalPath)
	require.Equal(t, "Get the current weather", weather.Description)
	require.Equal(t, []catalog.Parameter{
		{Name: "location", Property: "location", Type: "string", Description: "City and country", Required: true},
		{Name: "unit", Property: "unit", Type: "string", Enum: []string{"celsius", "fahrenheit"}},
	}, weather.Parameters)
	require.Equal(t, catalog.Interface{Mode: catalog.ModeFunction, Availability: catalog.Available}, weather.Interface)
	require.True(t, weather.Interface.AgentExecutable())
	require.Equal(t, catalog.Safety{}, weather.Safety, "OpenAI tools say nothing about safety")
}

func TestImportResponsesShapeIsTheSameCatalog(t *testing.T) {
	chat, err := importAndBuild(chatTools)
	require.NoError(t, err)
	responses, err := importAndBuild(responsesTools)
	require.NoError(t, err)
	require.Equal(t, chat, responses)
}

func TestImportToolsWrapper(t *testing.T) {
	bare, err := importAndBuild(responsesTools)
	require.NoError(t, err)
	wrapped, err := importAndBuild(`{"model":"gpt-5","tool_choice":"auto","tools":` + responsesTools + `}`)
	require.NoError(t, err)
	require.Equal(t, bare, wrapped)
}

func TestImportNamespaces(t *testing.T) {
	cat, err := importAndBuild(`{"tools":[
	 {"type":"function","name":"ping","description":"Check the connection"},
	 {"type":"namespace","name":"crm","description":"Customer records","tools":[
	   {"type":"function","name":"find_customer","description":"Look a customer up","parameters":{"type":"object","properties":{"email":{"type":"string"}}}},
	   {"type":"custom","name":"run_sql","description":"Run a read-only SQL query","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]},
	 {"type":"namespace","name":"billing","tools":[{"type":"function","function":{"name":"refund","description":"Refund a payment"}}]}]}`)
	require.NoError(t, err)
	var products, paths []string
	for _, p := range cat.Products {
		products = append(products, p.ID+"|"+p.Name+"|"+p.Description)
		for _, tool := range p.Tools {
			paths = append(paths, tool.Identity.CanonicalPath)
		}
	}
	require.Equal(t, []string{"billing|billing|", "crm|crm|Customer records", "tools|tools|"}, products)
	require.Equal(t, []string{"billing.refund", "crm.find_customer", "crm.run_sql", "tools.ping"}, paths)
	sql := cat.Products[1].Tools[1]
	require.Equal(t, "Run a read-only SQL query", sql.Description)
	require.Nil(t, sql.InputSchema, "a custom tool has no parameter schema")
}

func TestImportRefuses(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"truncated", chatTools[:len(chatTools)/2], "not valid JSON"},
		{"trailing value", responsesTools + ` []`, "trailing data"},
		{"a string", `"tools"`, `want an array of tool definitions or an object with "tools", got a string`},
		{"object without tools", `{"functions":[]}`, `field "tools": want an array of tool definitions, got null`},
		{"tools an object", `{"tools":{}}`, `field "tools": want an array of tool definitions, got an object`},
		{"empty list", `[]`, "the catalog has no tools"},
		{"tool a string", `["get_weather"]`, `tools[0]: want a tool object, got a string`},
		{"web_search", `[{"type":"function","name":"a"},{"type":"web_search"}]`, `tools[1]: field "type": "web_search" is a built-in tool, not a function an agent can search for; remove it from the catalog`},
		{"file_search", `{"tools":[{"type":"file_search","vector_store_ids":["vs_1"]}]}`, `field "type": "file_search" is a built-in tool`},
		{"built-in in a namespace", `[{"type":"namespace","name":"ns","tools":[{"type":"code_interpreter"}]}]`, `tools[0] (name "ns"): tools[0]: field "type": "code_interpreter" is a built-in tool`},
		{"no type", `[{"name":"a"}]`, `tools[0] (name "a"): field "type": missing (want "function", "custom" or "namespace")`},
		{"type a number", `[{"type":1,"name":"a"}]`, `field "type": want a string, got a number`},
		{"missing name, Responses", `[{"type":"function","name":"a"},{"type":"function","description":"x"}]`, `tools[1]: field "name": missing or empty`},
		{"missing name, Chat", `[{"type":"function","function":{"description":"x"}}]`, `tools[0]: field "name": missing or empty`},
		{"missing name, namespace tool", `[{"type":"namespace","name":"ns","tools":[{"type":"function"}]}]`, `tools[0] (name "ns"): tools[0]: field "name": missing or empty`},
		{"namespace without a name", `[{"type":"namespace","tools":[{"type":"function","name":"a"}]}]`, `product "": field "id": empty`},
		{"namespace tools an object", `[{"type":"namespace","name":"ns","tools":{}}]`, `tools[0] (name "ns"): field "tools": want an array, got an object`},
		{"namespace tool a number", `[{"type":"namespace","name":"ns","tools":[1]}]`, `tools[0] (name "ns"): tools[0]: want a tool object, got a number`},
		{"function a string", `[{"type":"function","function":"get_weather"}]`, `field "function": want an object, got a string`},
		{"name a number", `[{"type":"function","function":{"name":5}}]`, `field "name": want a string, got a number`},
		{"parameters an array", `[{"type":"function","name":"a","parameters":[]}]`, `tools[0] (name "a"): field "parameters": want an object, got an array`},
		{"description a boolean", `[{"type":"function","name":"a","description":true}]`, `field "description": want a string, got a boolean`},
		{"duplicate name", `[{"type":"function","name":"a"},{"type":"function","function":{"name":"a"}}]`, `tool name "a" appears twice`},
		{"10 MB description", `[{"type":"function","name":"a","description":"` + strings.Repeat("d", 10<<20) + `"}]`, `tool "tools.a": field "description": 10485760 bytes; the limit is 65536`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := importAndBuild(c.input)
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestNamespaceNameAsMCPServerName: a namespace's name is trimmed and its
// dots replaced in the product ID, as an MCP server's, and kept for display.
func TestNamespaceNameAsMCPServerName(t *testing.T) {
	doc, err := openai.Import([]byte(`[{"type":"namespace","name":" Quotes API.v2","tools":[{"type":"function","name":"get"}]}]`))
	require.NoError(t, err)
	require.Equal(t, "Quotes API_v2", doc.Products[0].ID)
	require.Equal(t, " Quotes API.v2", doc.Products[0].Name)
}

// TestLenientEntries: a named function without "type" is kept (a repair),
// and an entry that is not an object is skipped, not the catalog's end;
// strict refuses both.
func TestLenientEntries(t *testing.T) {
	input := []byte(`[{"name":"a","parameters":{"type":"object"}},{"function":{"name":"b"}},7,{"type":"function","name":"c"}]`)
	cat, _, report, err := importer.ImportWith(openai.Format, input, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, 3, cat.ToolCount())
	require.Equal(t, 1, report.ToolsSkipped)
	require.Equal(t, []importer.Warning{{Field: "type", Count: 2, Example: `field "type": missing; read as "function"`}}, report.Warnings)
	_, _, _, err = importer.ImportWith(openai.Format, input, importer.Options{Strict: true})
	require.Error(t, err)
}
