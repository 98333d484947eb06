package gateway_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// TestMCPDocExamples runs docs/MCP.md's examples against the example config
// (examples/mcp/servers.json, the two pinned npm servers): the catalog
// hashes the page shows are the ones the gateway serves, and its call_tool
// request, with those hashes, gets the answer the page shows (a file that
// the repository holds, read through the filesystem server).
func TestMCPDocExamples(t *testing.T) {
	npmServers(t, t.TempDir()) // skipped, or failed under CI, without node and examples/mcp/node_modules
	doc, err := os.ReadFile("../docs/MCP.md")
	require.NoError(t, err)
	page := string(doc)
	cfg, err := gateway.LoadConfig("../examples/mcp/servers.json")
	require.NoError(t, err)
	s := startGateway(t, cfg.Servers, gateway.Options{})
	_, paths, h := search(t, s.client, map[string]any{"query": "read a text file", "limit": 3})
	require.Equal(t, []string{"filesystem.read_text_file", "filesystem.read_file", "filesystem.read_multiple_files"}, paths, "the page's search_tools example")
	require.Contains(t, page, `"source_hash":"`+h.source+`"`, "the page's search answer shows the served hashes whole")
	require.Contains(t, page, `"surface_hash":"`+h.surface+`"`)

	// The call_tool section's two JSON blocks: the request and the answer.
	section := page[strings.Index(page, "### `call_tool`"):]
	blocks := regexp.MustCompile("(?s)```json\n(.*?)\n```").FindAllStringSubmatch(section, 2)
	require.Len(t, blocks, 2)
	short := func(hash string) string { return hash[:len("sha256:")+4] + "…" + hash[len(hash)-4:] }
	request := strings.NewReplacer(short(h.source), h.source, short(h.surface), h.surface).Replace(blocks[0][1])
	var args map[string]any
	require.NoError(t, json.Unmarshal([]byte(request), &args), "the page's call_tool request, hashes filled in: %s", request)
	require.Equal(t, h.source, args["source_hash"], "the page abbreviates the served hashes")
	require.Equal(t, h.surface, args["surface_hash"])
	r := call(t, s.client, "call_tool", args)
	require.False(t, r.IsError, text(t, r, 0))
	var want, got struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal([]byte(blocks[1][1]), &want))
	answer, err := json.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(answer, &got))
	require.JSONEq(t, string(want.Content), string(got.Content))
	require.JSONEq(t, string(want.StructuredContent), string(got.StructuredContent))
}
