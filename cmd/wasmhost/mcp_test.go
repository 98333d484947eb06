package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

func TestMCPFlags(t *testing.T) {
	code, _, stderr := runCLI(t, "", "mcp")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "usage: wasmhost mcp --config")

	code, _, _ = runCLI(t, "", "mcp", "-h")
	require.Equal(t, 0, code)

	bad := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"mcpServers": {"a": {}}}`), 0o644))
	code, _, stderr = runCLI(t, "", "mcp", "--config", bad)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_config"`)

	code, _, stderr = runCLI(t, "", "mcp", "--config", bad, "--listen", "0.0.0.0:8080")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_listen_address"`)

	code, _, stderr = runCLI(t, "", "mcp", "--config", bad, "--expose", "all")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_flag"`)
}

// wasmhost mcp over stdio in front of the two npm servers: every
// search_tools answer is byte for byte what wasmhost search gives over a
// snapshot that wasmhost snapshot build made of the same catalog (listed
// here with a client of the test's own).
func TestMCPSearchIsWasmhostSearch(t *testing.T) {
	root := t.TempDir()
	servers := npmServerConfigs(t, root)
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.json")
	entries := map[string]any{}
	for _, s := range servers {
		entries[s.Name] = map[string]any{"command": s.Command, "args": s.Args}
	}
	data, err := json.Marshal(map[string]any{"mcpServers": entries})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, data, 0o644))

	// The gateway as a command, over a pair of pipes.
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var stderr lockedBuffer
	exited := make(chan int, 1)
	go func() {
		code := runMCP([]string{"--config", config}, stdinR, stdoutW, &stderr)
		stdoutW.Close()
		exited <- code
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: stdoutR, Writer: stdinW}, nil)
	require.NoError(t, err)

	lists := map[string][]*mcp.Tool{}
	for _, s := range servers {
		lists[s.Name] = listTools(t, s)
	}
	catalog, err := gateway.AssembleCatalog(lists)
	require.NoError(t, err)
	catalogFile := filepath.Join(dir, "catalog.json")
	snap := filepath.Join(dir, "catalog.snap")
	require.NoError(t, os.WriteFile(catalogFile, catalog, 0o644))
	code, _, errText := runCLI(t, "", "snapshot", "build", "--format", "mcp", "--in", catalogFile, "-o", snap)
	require.Equal(t, 0, code, errText)

	for _, tc := range []struct {
		args    map[string]any
		request string
	}{
		{map[string]any{"query": "read a text file"}, `{"version":"tool-search.v1","query":"read a text file"}`},
		{map[string]any{"query": "echo a message back", "limit": 2, "servers": []string{"everything"}, "effects": []string{"read"}},
			`{"version":"tool-search.v1","query":"echo a message back","limit":2,"product_ids":["everything"],"effects":["read"]}`},
		{map[string]any{"query": "list what is in a directory", "exclude": []string{"filesystem.list_directory"}},
			`{"version":"tool-search.v1","query":"list what is in a directory","exclude_canonical":["filesystem.list_directory"]}`},
	} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: tc.args})
		require.NoError(t, err)
		require.False(t, r.IsError)
		code, want, errText := runCLI(t, tc.request, "search", "--snapshot", snap, "--request-json", "-")
		require.Equal(t, 0, code, errText)
		require.Equal(t, want, r.Content[0].(*mcp.TextContent).Text+"\n", "query %v", tc.args)
	}

	require.NoError(t, cs.Close())
	stdinW.Close()
	select {
	case code := <-exited:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatal("wasmhost mcp did not exit when its stdin closed")
	}
	require.Contains(t, stderr.String(), "catalog swapped", "the log goes to stderr")
}

// npmServerConfigs are the two servers examples/mcp installs (npm ci);
// without node or the packages the test is skipped, or fails under CI=true.
func npmServerConfigs(t *testing.T, root string) []gateway.ServerConfig {
	t.Helper()
	modules, err := filepath.Abs("../../examples/mcp/node_modules/@modelcontextprotocol")
	require.NoError(t, err)
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(modules, "server-everything", "dist", "index.js")); err != nil {
		missing = "examples/mcp/node_modules is missing (run: cd examples/mcp && npm ci)"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the npm MCP servers are needed under CI: %s", missing)
		}
		t.Skipf("skipping: %s", missing)
	}
	return []gateway.ServerConfig{
		{Name: "everything", Command: "node", Args: []string{filepath.Join(modules, "server-everything", "dist", "index.js"), "stdio"}},
		{Name: "filesystem", Command: "node", Args: []string{filepath.Join(modules, "server-filesystem", "dist", "index.js"), root}},
	}
}

func listTools(t *testing.T, s gateway.ServerConfig) []*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lister", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(s.Command, s.Args...)}, nil)
	require.NoError(t, err)
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	return tools
}
