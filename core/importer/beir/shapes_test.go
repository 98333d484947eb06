package beir_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/beir"
)

func toolsByPath(cat *catalog.Catalog) map[string]catalog.Tool {
	out := map[string]catalog.Tool{}
	for _, p := range cat.Products {
		for _, tool := range p.Tools {
			out[tool.Identity.CanonicalPath] = tool
		}
	}
	return out
}

// TestRealBEIRCorpus imports a BEIR corpus as BEIR writes it ({"_id",
// "title","text","metadata"}): the metatool sample renamed.
func TestRealBEIRCorpus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "metatool_beir.jsonl"))
	require.NoError(t, err)
	cat, _, report, err := importer.ImportWith(beir.Format, data, importer.Options{})
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	require.Equal(t, len(lines), cat.ToolCount())
	require.Equal(t, len(lines), report.ToolsRead)
	require.Zero(t, report.ToolsSkipped)
	tools := toolsByPath(cat)
	withMetadata := 0
	for _, line := range lines {
		var record struct {
			ID       string `json:"_id"`
			Title    string
			Text     string
			Metadata map[string]any
		}
		require.NoError(t, json.Unmarshal(line, &record))
		tool, ok := tools[beir.CanonicalPath(record.ID)]
		require.True(t, ok, record.ID)
		require.Equal(t, record.Text, tool.Description, "text is the description")
		if record.Metadata != nil {
			withMetadata++
			require.Equal(t, []string{"metatool"}, tool.Selection.Keywords, "a word value is a keyword, a number is not")
		}
	}
	used := map[string]importer.FieldCount{}
	for _, f := range report.Fields {
		used[f.Name] = f
	}
	require.Equal(t, importer.FieldCount{Name: "text", Used: len(lines), To: []string{"description"}}, used["text"])
	require.Equal(t, importer.FieldCount{Name: "metadata.rank", Ignored: withMetadata, To: []string{"dropped: no text to index"}}, used["metadata.rank"])
	require.Equal(t, importer.FieldCount{Name: "metadata.source", Used: withMetadata, To: []string{"keywords"}}, used["metadata.source"])

	// A title other than the id's name is the title.
	cat, err = importAndBuild(`{"_id":"17","title":"get_weather","text":"Weather for a city"}`)
	require.NoError(t, err)
	require.Equal(t, "get_weather", cat.Products[0].Tools[0].Title)
}

func TestParameterShapes(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       []catalog.Parameter
	}{
		{"OpenAPI parameter list", `{"id":"find_pets","description":"Find pets","doc":{"parameters":[` +
			`{"name":"status","in":"query","description":"Status to filter by","required":true,"schema":{"type":"string","enum":["available","sold"],"default":"available"}},` +
			`{"name":"limit","in":"query","schema":{"type":"integer"}}]}}`,
			[]catalog.Parameter{
				{Name: "limit", Property: "limit", Type: "integer"},
				{Name: "status", Property: "status", Type: "string", Description: "Status to filter by", Required: true, Enum: []string{"available", "sold"}, Default: catalog.RawJSON(`"available"`)},
			}},
		{"name to spec map", `{"id":"weather","doc":{"arguments":{"city":{"type":"string","description":"City name","required":true},"days":{"type":"integer"}}}}`,
			[]catalog.Parameter{
				{Name: "city", Property: "city", Type: "string", Description: "City name", Required: true},
				{Name: "days", Property: "days", Type: "integer"},
			}},
		{"a parameter named properties in a spec map", `{"id":"apigen_tool_1744","doc":{"name":"set_props","params":{"properties":{"type":"string","description":"Properties to set","default":"all"},"default":{"type":"string","description":"Fallback"}}}}`,
			[]catalog.Parameter{
				{Name: "default", Property: "default", Type: "string", Description: "Fallback"},
				{Name: "properties", Property: "properties", Type: "string", Description: "Properties to set", Default: catalog.RawJSON(`"all"`)},
			}},
		{"parameters named type and items in a JSON Schema", `{"id":"t","doc":{"input_schema":{"type":"object","properties":{"type":{"type":"string"},"items":{"type":"array"}},"required":["type"]}}}`,
			[]catalog.Parameter{
				{Name: "items", Property: "items", Type: "array"},
				{Name: "type", Property: "type", Type: "string", Required: true},
			}},
		{"OpenAI function nesting", `{"id":"f","doc":{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}}`,
			[]catalog.Parameter{{Name: "q", Property: "q", Type: "string"}}},
		{"api_arguments, strings as specs", `{"id":"g","api_arguments":{"q":"the query","n":"integer"}}`,
			[]catalog.Parameter{{Name: "n", Property: "n", Type: "integer"}, {Name: "q", Property: "q", Description: "the query"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := importAndBuild(c.line)
			require.NoError(t, err)
			require.Equal(t, c.want, cat.Products[0].Tools[0].Parameters)
		})
	}
}

func TestFieldAliases(t *testing.T) {
	cat, err := importAndBuild(`{"id":"Weather::forecast","name":"forecast","description":"Forecast","doc":{"tool_name":"Weather","tool_description":"Weather data for the world",` +
		`"api_description":"Daily forecast for a city","category_name":"Weather","tags":["climate","  "],"examples":["rain in Paris tomorrow",{"query":"snow in Oslo"}],"summary":"Forecast by day"}}` + "\n" +
		`{"id":"lookup","func_description":"Look a word up","keywords":["dictionary"],"category":"Reference","tool_name":"Words"}`)
	require.NoError(t, err)
	tools := toolsByPath(cat)
	forecast := tools["Weather.forecast"]
	require.Equal(t, "Forecast\n\nDaily forecast for a city", forecast.Description)
	require.Equal(t, []string{"Weather", "climate"}, forecast.Selection.Keywords, "tool_name is the product's name already: no keyword")
	require.Equal(t, []string{"rain in Paris tomorrow", "snow in Oslo"}, forecast.Selection.Examples)
	require.Equal(t, "Forecast by day", forecast.Selection.AgentSummary)
	require.Equal(t, "Weather data for the world", cat.Products[0].Description)
	lookup := tools["tools.lookup"]
	require.Equal(t, "Look a word up", lookup.Description)
	require.Equal(t, []string{"Reference", "Words", "dictionary"}, lookup.Selection.Keywords)
}

// TestSkipAndStrict: a tool that fails validation is left out and listed;
// strict refuses the catalog, naming the user's field and the tool's id.
func TestSkipAndStrict(t *testing.T) {
	data := []byte(`{"_id":"good","title":"good","text":"Works"}` + "\n" +
		`{"_id":"apigen_tool_9","text":"Bad schema","parameters":{"type":"object","properties":{"a":7}}}` + "\n" +
		`not json` + "\n" +
		`{"_id":"good","text":"Again"}` + "\n")
	cat, _, report, err := importer.ImportWith(beir.Format, data, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, cat.ToolCount(), "a malformed property costs the property, not the tool")
	require.Equal(t, "Works", toolsByPath(cat)["tools.good"].Description, "of two tools with one name the first stays")
	require.Equal(t, []catalog.Parameter{{Name: "a", Property: "a"}}, toolsByPath(cat)["tools.apigen_tool_9"].Parameters)
	require.Equal(t, 4, report.ToolsRead)
	require.Equal(t, 2, report.ToolsImported)
	require.Equal(t, 2, report.ToolsSkipped)
	require.Len(t, report.Skipped, 2)
	require.Equal(t, "line 3", report.Skipped[0].Tool)
	require.Contains(t, report.Skipped[0].Reason, "line 3: not valid JSON", "the JSON decoder's own words may change")
	require.Equal(t, []importer.SkippedTool{
		{Tool: `line 4 (_id "good")`, Reason: `product "tools": tool name "good" appears twice`},
	}, report.Skipped[1:])
	require.Equal(t, []importer.Warning{{Field: "parameters.properties", Count: 1,
		Example: `line 2 (_id "apigen_tool_9"): property "a": want a schema object, got a number; read without one`}}, report.Warnings)

	_, _, _, err = importer.ImportWith(beir.Format, data, importer.Options{Strict: true})
	require.ErrorContains(t, err, "line 3: not valid JSON")
	_, _, _, err = importer.ImportWith(beir.Format, bytes.ReplaceAll(data, []byte("not json\n"), nil), importer.Options{Strict: true})
	require.EqualError(t, err, `line 2 (_id "apigen_tool_9"): field "parameters": property "a": want a schema object, got a number`)

	_, _, _, err = importer.ImportWith(beir.Format, []byte("x\n{\"id\":\"\"}"), importer.Options{})
	require.ErrorContains(t, err, "the catalog has no tools: all 2 were skipped (first: line 1: not valid JSON")
}
