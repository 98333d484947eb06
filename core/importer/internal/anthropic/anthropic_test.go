package anthropic_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/anthropic"
	"github.com/toolsift/toolsift/core/importer/native"
)

func importAndBuild(data string) (*catalog.Catalog, error) {
	doc, err := anthropic.Import([]byte(data))
	if err != nil {
		return nil, err
	}
	return native.Build(doc, anthropic.Format)
}

const tools = `[
 {"name":"get_stock_price","description":"Retrieves the current stock price for a given ticker symbol.",
  "input_schema":{"type":"object","properties":{"ticker":{"type":"string","description":"The stock ticker symbol, e.g. AAPL"}},"required":["ticker"]}},
 {"type":"custom","name":"get_time","description":"Local time","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}]`

func TestImportTools(t *testing.T) {
	cat, err := importAndBuild(tools)
	require.NoError(t, err)
	require.Equal(t, anthropic.Format, cat.Format)
	require.Len(t, cat.Products, 1)
	p := cat.Products[0]
	require.Equal(t, native.DefaultProduct, p.ID)
	require.Len(t, p.Tools, 2)
	stock, clock := p.Tools[0], p.Tools[1]
	require.Equal(t, "tools.get_stock_price", stock.Identity.CanonicalPath)
	require.Equal(t, "Retrieves the current stock price for a given ticker symbol.", stock.Description)
	require.Equal(t, []catalog.Parameter{{Name: "ticker", Property: "ticker", Type: "string", Description: "The stock ticker symbol, e.g. AAPL", Required: true}}, stock.Parameters)
	require.Equal(t, `{"properties":{"ticker":{"description":"The stock ticker symbol, e.g. AAPL","type":"string"}},"required":["ticker"],"type":"object"}`, string(stock.InputSchema))
	require.Equal(t, catalog.Interface{Mode: catalog.ModeFunction, Availability: catalog.Available}, stock.Interface)
	require.Equal(t, "tools.get_time", clock.Identity.CanonicalPath)
	require.Equal(t, `{"properties":{},"type":"object"}`, string(clock.InputSchema))
	require.Nil(t, clock.Parameters)

	wrapped, err := importAndBuild(`{"model":"claude-x","max_tokens":10,"tools":` + tools + `}`)
	require.NoError(t, err)
	require.Equal(t, cat, wrapped, `a request body's "tools" is the same catalog`)
}

func TestImportRefuses(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"truncated", tools[:len(tools)/2], "not valid JSON"},
		{"trailing value", tools + ` {}`, "trailing data"},
		{"a number", `1`, `want an array of tool definitions or an object with "tools", got a number`},
		{"tools a string", `{"tools":"x"}`, `field "tools": want an array of tool definitions, got a string`},
		{"empty list", `[]`, "the catalog has no tools"},
		{"tool an array", `[[]]`, `tools[0]: want a tool object, got an array`},
		{"web search server tool", `[{"name":"a","input_schema":{}},{"type":"web_search_20250305","name":"web_search","max_uses":5}]`,
			`tools[1] (name "web_search"): field "type": "web_search_20250305" is a server tool the API runs, not a tool an agent can search for; remove it from the catalog`},
		{"text editor tool", `[{"type":"text_editor_20250124","name":"str_replace_editor"}]`, `field "type": "text_editor_20250124" is a server tool`},
		{"type a number", `[{"type":3,"name":"a","input_schema":{}}]`, `field "type": want a string, got a number`},
		{"missing name", `[{"name":"a","input_schema":{}},{"description":"x","input_schema":{}}]`, `tools[1]: field "name": missing or empty`},
		{"name a boolean", `[{"name":true,"input_schema":{}}]`, `tools[0]: field "name": want a string, got a boolean`},
		{"missing input_schema", `[{"name":"a","description":"x"}]`, `tools[0] (name "a"): field "input_schema": missing (Anthropic requires one per tool)`},
		{"null input_schema", `[{"name":"a","input_schema":null}]`, `field "input_schema": missing`},
		{"input_schema a string", `[{"name":"a","input_schema":"{}"}]`, `tools[0] (name "a"): field "input_schema": want an object, got a string`},
		{"bad property", `[{"name":"a","input_schema":{"properties":{"x":"string"}}}]`, `tool "tools.a": field "input_schema": property "x": want a schema object, got a string`},
		{"description a number", `[{"name":"a","description":1,"input_schema":{}}]`, `field "description": want a string, got a number`},
		{"duplicate name", `[{"name":"a","input_schema":{}},{"name":"a","input_schema":{}}]`, `tool name "a" appears twice`},
		{"name with surrounding space", `[{"name":"a ","input_schema":{}}]`, `field "name": "a " has surrounding white space`},
		{"10 MB description", `[{"name":"a","input_schema":{},"description":"` + strings.Repeat("d", 10<<20) + `"}]`, `tool "tools.a": field "description": 10485760 bytes; the limit is 65536`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := importAndBuild(c.input)
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
}
