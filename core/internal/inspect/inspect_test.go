package inspect_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/inspect"
)

func sample() *catalog.Tool {
	return &catalog.Tool{
		Identity: catalog.Identity{CanonicalPath: "chat.send", CLIPath: "chat message send", PrimaryCLIPath: "chat message send"},
		Title:    "发送 <消息>", Description: "把 <b> & 文件 发到群里",
		Parameters: []catalog.Parameter{
			{Name: "to", Type: "string", Description: "群 ID", Required: true, Property: "openConversationId"},
			{Name: "file", Type: " string ", Description: "", CLIRequired: true, Enum: []string{"a", " a", "b", ""}, Default: catalog.RawJSON(`"x"`), Example: catalog.RawJSON(`{"k":1.50}`)},
		},
		Safety:    catalog.Safety{Effect: "write", Risk: "low"},
		Interface: catalog.Interface{Mode: "local", Availability: "available"},
		Selection: catalog.Selection{AgentSummary: "  发消息 ", UseWhen: []string{}, AvoidWhen: []string{"x", "x", " "}},
		Result:    catalog.RawJSON(`{"fields":["id"]}`),
	}
}

func TestRenderToolWhitelistAndOrder(t *testing.T) {
	tool := sample()
	tool.Parameters[0], tool.Parameters[1] = tool.Parameters[1], tool.Parameters[0] // sorted by name
	spec := inspect.RenderTool(nil, tool, "")
	require.True(t, json.Valid(spec), string(spec))
	want := `{"agent_summary":"发消息","availability":"available","avoid_when":["x"],"canonical_path":"chat.send",` +
		`"cli_path":"chat message send","description":"把 <b> & 文件 发到群里","effect":"write","interface_mode":"local",` +
		`"parameters":{"file":{"cli_required":true,"default":"x","description":"","enum":["a","b"],"example":{"k":1.50},"required":false,"type":"string"},` +
		`"to":{"description":"群 ID","required":true,"type":"string"}},"result":{"fields":["id"]},"risk":"low","use_when":[]}`
	require.Equal(t, want, string(spec), "keys in byte order, no HTML escaping, title and property left out, numbers verbatim")
}

func TestRenderToolAliasOverride(t *testing.T) {
	spec := inspect.RenderTool(nil, sample(), "chat deliver")
	require.Contains(t, string(spec), `"cli_path":"chat deliver"`)
}

func TestDocumentIsIndentedWithVersion(t *testing.T) {
	doc := string(inspect.Document(catalog.VersionRef{SourceHash: "s", SurfaceHash: "t"}, []byte(`{"a":[1,2],"b":{}}`)))
	require.Equal(t, "{\n  \"version\": \"schema-inspect.v1\",\n  \"catalog\": {\n    \"source_hash\": \"s\",\n    \"surface_hash\": \"t\"\n  },\n"+
		"  \"tool_spec\": {\n    \"a\": [\n      1,\n      2\n    ],\n    \"b\": {}\n  }\n}", doc)
	require.False(t, strings.HasSuffix(doc, "\n"))
}

func TestRenderProductAndGroup(t *testing.T) {
	product := &catalog.Product{ID: "chat", Name: "群聊", Description: "群聊", Runtime: true, Tools: []catalog.Tool{*sample()}}
	var view map[string]any
	require.NoError(t, json.Unmarshal(inspect.RenderProduct(nil, product), &view))
	require.Equal(t, "product", view["level"])
	tools := view["product"].(map[string]any)["tools"].([]any)
	require.Len(t, tools, 1)
	require.NotContains(t, tools[0], "parameters", "a summary leaves parameters out")
	require.NotContains(t, tools[0], "result")
	require.NoError(t, json.Unmarshal(inspect.RenderGroup(nil, product.Tools, []int{0}), &view))
	require.Equal(t, float64(1), view["count"])
	require.Equal(t, "group", view["level"])
}
