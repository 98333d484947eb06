package gateway_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/hostapi"
)

var update = flag.Bool("update", false, "rewrite testdata/surface.json")

// The upstream surface is fixed data: its tools/list is the golden
// testdata/surface.json whatever servers are behind it.
func TestSurface(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady")}, gateway.Options{})
	list, err := s.client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	got, err := json.MarshalIndent(list.Tools, "", "  ")
	require.NoError(t, err)
	golden := filepath.Join("testdata", "surface.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got)+"\n", "the upstream surface changed: review, then go test ./gateway -run TestSurface -update")
}

// TestNPMServers drives the gateway in front of the two real npm servers
// with the SDK's client, in memory and over streamable HTTP on 127.0.0.1:
// search → inspect → call read_text_file (the file's
// content comes back), the byte-identity of search answers with the engine
// over a snapshot of the catalog listed independently, and the refusals
// (stale hashes, unknown path, destructive tool).
func TestNPMServers(t *testing.T) {
	root := t.TempDir()
	servers := npmServers(t, root)
	content := "toolsift gateway test file\nsecond line\n"
	file := filepath.Join(root, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte(content), 0o644))

	began := time.Now()
	s := startGateway(t, servers, gateway.Options{})
	t.Logf("gateway up with the two npm servers in %s", time.Since(began).Round(time.Millisecond))
	for _, st := range s.g.Status() {
		require.True(t, st.Up, "%s: %s", st.Name, st.Status)
	}

	t.Run("same bytes as the engine over the same catalog", func(t *testing.T) {
		// List both servers with a client of our own and build the
		// snapshot from that, not from what the gateway says it serves.
		lists := map[string][]*mcp.Tool{}
		for _, cfg := range servers {
			lists[cfg.Name] = listDirectly(t, cfg)
		}
		catalog, err := gateway.AssembleCatalog(lists)
		require.NoError(t, err)
		if string(catalog) != string(s.g.CatalogJSON()) {
			t.Fatalf("the gateway's catalog differs from the servers' listing:\n%s\n%s", catalog, s.g.CatalogJSON())
		}
		// Built by the module, not natively as the gateway builds it: the
		// two builds are the same bytes.
		snap, err := hostapi.BuildSnapshot(context.Background(), "mcp", catalog)
		require.NoError(t, err)
		engine, err := hostapi.Open(context.Background(), snap)
		require.NoError(t, err)
		defer engine.Close(context.Background())
		for _, tc := range []struct {
			args    map[string]any
			request string
		}{
			{map[string]any{"query": "read the contents of a text file"},
				`{"version":"tool-search.v1","query":"read the contents of a text file"}`},
			{map[string]any{"query": "add two numbers", "limit": 3, "servers": []string{"everything"}},
				`{"version":"tool-search.v1","query":"add two numbers","limit":3,"product_ids":["everything"]}`},
			{map[string]any{"query": "delete or move files", "effects": []string{"read", "write"}, "exclude": []string{"filesystem.list_directory"}},
				`{"version":"tool-search.v1","query":"delete or move files","effects":["read","write"],"exclude_canonical":["filesystem.list_directory"]}`},
			{map[string]any{"query": "organise a project folder", "subqueries": []string{"make a directory", "write a file into it"}},
				`{"version":"tool-search.v1","query":"organise a project folder","subqueries":["make a directory","write a file into it"]}`},
			{map[string]any{"query": "filesystem.read_text_file"},
				`{"version":"tool-search.v1","query":"filesystem.read_text_file"}`},
		} {
			answer, _, _ := search(t, s.client, tc.args)
			want, err := engine.Search(context.Background(), []byte(tc.request))
			require.NoError(t, err)
			require.Equal(t, string(want), answer, "query %v", tc.args)
		}
	})

	t.Run("search inspect call in memory", func(t *testing.T) { searchInspectCall(t, s.client, file, content) })

	t.Run("search inspect call over streamable HTTP", func(t *testing.T) {
		server := httptest.NewServer(s.g.HTTPHandler()) // listens on 127.0.0.1
		defer server.Close()
		require.True(t, strings.HasPrefix(server.URL, "http://127.0.0.1:"), server.URL)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: server.URL}, nil)
		require.NoError(t, err)
		defer cs.Close()
		searchInspectCall(t, cs, file, content)
	})

	t.Run("refusals", func(t *testing.T) {
		_, paths, h := search(t, s.client, map[string]any{"query": "write a file"})
		require.Contains(t, paths, "filesystem.write_file")
		target := filepath.Join(root, "written.txt")
		r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "filesystem.write_file",
			"arguments": map[string]any{"path": target, "content": "x"}}))
		require.Equal(t, "destructive_not_allowed", errorReason(t, r))
		require.NoFileExists(t, target, "a refused call must not reach the server")

		stale := hashes{source: "sha256:" + strings.Repeat("0", 64), surface: h.surface}
		r = call(t, s.client, "call_tool", stale.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": file}}))
		require.Equal(t, "catalog_changed", errorReason(t, r))
		r = call(t, s.client, "inspect_tool", stale.args(map[string]any{"path": "filesystem.read_text_file"}))
		require.Equal(t, "catalog_changed", errorReason(t, r))

		r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "filesystem.no_such_tool"}))
		require.Equal(t, "unknown_path", errorReason(t, r))
		r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "filesystem"}))
		require.Equal(t, "unknown_path", errorReason(t, r))
		r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "filesystem.read_text_file", "arguments": "not an object"}))
		require.Equal(t, "invalid_arguments", errorReason(t, r))
		r = call(t, s.client, "search_tools", map[string]any{"query": "x", "limt": 3})
		require.Equal(t, "invalid_arguments", errorReason(t, r))
		r = call(t, s.client, "search_tools", map[string]any{"query": "x", "limit": 99})
		require.Equal(t, "invalid_limit", errorReason(t, r))
	})

	t.Run("a server's own error comes back unchanged", func(t *testing.T) {
		_, _, h := search(t, s.client, map[string]any{"query": "read a text file"})
		outside := filepath.Join(t.TempDir(), "outside.txt")
		require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
		r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": outside}}))
		require.True(t, r.IsError, "the filesystem server refuses a path outside its root")
		require.NotContains(t, text(t, r, 0), "secret")
		require.Contains(t, text(t, r, 0), "denied")
	})
}

// searchInspectCall: search for reading a file, inspect the top result,
// call it on file and get content back.
func searchInspectCall(t *testing.T, cs *mcp.ClientSession, file, content string) {
	_, paths, h := search(t, cs, map[string]any{"query": "read the complete contents of a text file", "servers": []string{"filesystem"}})
	require.Contains(t, paths, "filesystem.read_text_file")

	r := call(t, cs, "inspect_tool", h.args(map[string]any{"path": "filesystem.read_text_file"}))
	require.False(t, r.IsError, text(t, r, 0))
	var spec struct {
		Spec struct {
			InputSchema struct {
				Properties map[string]any `json:"properties"`
			} `json:"input_schema"`
		} `json:"tool_spec"`
	}
	require.NoError(t, json.Unmarshal([]byte(text(t, r, 0)), &spec))
	require.Contains(t, spec.Spec.InputSchema.Properties, "path")

	r = call(t, cs, "call_tool", h.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": file}}))
	require.False(t, r.IsError, text(t, r, 0))
	require.Equal(t, content, text(t, r, 0))
}

// listDirectly lists a server's tools with a client of the test's own.
func listDirectly(t *testing.T, cfg gateway.ServerConfig) []*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The capabilities the gateway's client advertises (none): the
	// everything server offers some tools only to clients with roots,
	// sampling or elicitation.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lister", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(cfg.Command, cfg.Args...)}, nil)
	require.NoError(t, err)
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	return tools
}
