package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/internal/testskip"
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

	code, _, stderr = runCLI(t, "", "mcp", "--config", bad, "--listen", "no-port")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_listen_address"`)

	// A non-loopback address needs authentication, and TLS or a proxy
	// that terminates it; the checks come before any server starts.
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	open := write("open.json", `{"mcpServers": {"a": {"command": "does-not-start"}}}`)
	authed := write("authed.json", `{"mcpServers": {"a": {"command": "does-not-start"}}, "auth": {"tokens": {"ci": {"sha256": "`+strings.Repeat("0f", 32)+`"}}}}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", open, "--listen", "0.0.0.0:8080"}, "configure authentication first"},
		{[]string{"--config", open, "--listen", "192.0.2.1:8080", "--tls-terminated-by-proxy"}, "configure authentication first"},
		{[]string{"--config", authed, "--listen", "0.0.0.0:8080"}, "serve TLS"},
	} {
		code, _, stderr = runCLI(t, "", append([]string{"mcp"}, tc.args...)...)
		require.Equal(t, 3, code, tc.args)
		require.Contains(t, stderr, `"reason":"invalid_listen_address"`, tc.args)
		require.Contains(t, stderr, tc.want, tc.args)
	}
	code, _, stderr = runCLI(t, "", "mcp", "--config", authed, "--listen", "0.0.0.0:8080", "--tls-cert", "c.pem")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, "--tls-cert and --tls-key go together")
	code, _, stderr = runCLI(t, "", "mcp", "--config", authed, "--listen", "0.0.0.0:8080", "--tls-cert", write("c.pem", "not PEM"), "--tls-key", write("k.pem", "not PEM"))
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_config"`)
	require.Contains(t, stderr, "tls: ")

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
// without node or the packages the test is skipped (and the skip recorded),
// or fails under CI=true: testskip.Missing.
func npmServerConfigs(t *testing.T, root string) []gateway.ServerConfig {
	t.Helper()
	modules, err := filepath.Abs("../../examples/mcp/node_modules/@modelcontextprotocol")
	require.NoError(t, err)
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(modules, "server-everything", "dist", "index.js")); err != nil {
		missing = "examples/mcp/node_modules is missing (run: make setup, or make mcp-deps)"
	}
	if missing != "" {
		testskip.Missing(t, missing)
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

// TestMCPLatency measures the gateway as a client sees it, over the real
// stdio of a built wasmhost in front of the two npm servers: start-up (the
// process started until its first search_tools answer), search_tools
// latency, and what call_tool adds over calling the filesystem server
// directly. It runs only with TOOLSIFT_MCP_BENCH=N (N calls of each kind);
// docs/BENCHMARKS.md has its figures.
func TestMCPLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TOOLSIFT_MCP_BENCH"))
	if n <= 0 {
		t.Skip("set TOOLSIFT_MCP_BENCH=N to measure")
	}
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte("a line of text\n"), 0o644))
	servers := npmServerConfigs(t, root)
	dir := t.TempDir()
	bin := filepath.Join(dir, "wasmhost")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	entries := map[string]any{}
	for _, s := range servers {
		entries[s.Name] = map[string]any{"command": s.Command, "args": s.Args}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": entries})
	config := filepath.Join(dir, "servers.json")
	require.NoError(t, os.WriteFile(config, data, 0o644))
	ctx := context.Background()
	var err error

	// Start-up twice: with an empty compilation cache (the module is
	// compiled) and then with the cache that run filled.
	cache := filepath.Join(dir, "cache")
	var gw *mcp.ClientSession
	for _, run := range []string{"cold (module compiled)", "warm (compiled module cached)"} {
		if gw != nil {
			gw.Close()
		}
		began := time.Now()
		gw, err = mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--config", config, "--cache-dir", cache)}, nil)
		require.NoError(t, err)
		first, err := gw.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "read a file"}})
		require.NoError(t, err)
		require.False(t, first.IsError)
		t.Logf("start-up to the first search_tools answer, %s: %s", run, time.Since(began).Round(time.Millisecond))
	}
	defer gw.Close()

	queries := []string{"read the contents of a text file", "add two numbers", "list a directory with sizes", "echo a message",
		"move or rename a file", "get a tiny image", "search files matching a pattern", "toggle simulated logging"}
	var answer searchAnswerHashes
	searches := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		r, err := gw.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": queries[i%len(queries)]}})
		searches = append(searches, time.Since(start))
		require.NoError(t, err)
		require.False(t, r.IsError)
		if i == 0 {
			require.NoError(t, json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &answer))
		}
	}
	t.Logf("search_tools over stdio, %d calls: %s", n, percentiles(searches))

	direct, err := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(servers[1].Command, servers[1].Args...)}, nil)
	require.NoError(t, err)
	defer direct.Close()
	viaGateway := make([]time.Duration, 0, n)
	straight := make([]time.Duration, 0, n)
	args := map[string]any{"path": file}
	for i := 0; i < n; i++ {
		start := time.Now()
		r, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: args})
		straight = append(straight, time.Since(start))
		require.NoError(t, err)
		require.False(t, r.IsError)
		start = time.Now()
		r, err = gw.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"path": "filesystem.read_text_file",
			"arguments": args, "source_hash": answer.Catalog.SourceHash, "surface_hash": answer.Catalog.SurfaceHash}})
		viaGateway = append(viaGateway, time.Since(start))
		require.NoError(t, err)
		require.False(t, r.IsError, r.Content[0].(*mcp.TextContent).Text)
	}
	t.Logf("read_text_file direct, %d calls: %s", n, percentiles(straight))
	t.Logf("read_text_file through call_tool, %d calls: %s", n, percentiles(viaGateway))
	p := func(d []time.Duration, q int) time.Duration { return d[(len(d)-1)*q/100] }
	t.Logf("added by the gateway: p50 %s, p99 %s", p(viaGateway, 50)-p(straight, 50), p(viaGateway, 99)-p(straight, 99))
}

type searchAnswerHashes struct {
	Catalog struct {
		SourceHash  string `json:"source_hash"`
		SurfaceHash string `json:"surface_hash"`
	} `json:"catalog"`
}

// percentiles sorts d and formats its p50, p90 and p99.
func percentiles(d []time.Duration) string {
	slices.Sort(d)
	at := func(q int) time.Duration { return d[(len(d)-1)*q/100].Round(time.Microsecond) }
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s", at(50), at(90), at(99), d[len(d)-1].Round(time.Microsecond))
}
