//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// wasmhost mcp --listen serves streamable HTTP on the loopback address it
// prints, search → inspect → call works there, and SIGINT stops it with
// exit 0.
func TestMCPListen(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte("over http\n"), 0o644))
	fs := npmServerConfigs(t, root)[1]
	config := filepath.Join(t.TempDir(), "servers.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{fs.Name: map[string]any{"command": fs.Command, "args": fs.Args}}})
	require.NoError(t, os.WriteFile(config, data, 0o644))

	var stderr lockedBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- runMCP([]string{"--config", config, "--listen", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	var url string
	deadline := time.Now().Add(30 * time.Second)
	for url == "" && time.Now().Before(deadline) {
		if _, rest, ok := strings.Cut(stderr.String(), "serving streamable HTTP on "); ok {
			url, _, _ = strings.Cut(rest, "\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), "address in %q", stderr.String())

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "read a text file"}})
	require.NoError(t, err)
	var answer searchAnswerHashes
	require.NoError(t, json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &answer))
	hashes := map[string]any{"path": "filesystem.read_text_file", "source_hash": answer.Catalog.SourceHash, "surface_hash": answer.Catalog.SurfaceHash}
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_tool", Arguments: hashes})
	require.NoError(t, err)
	require.False(t, r.IsError)
	hashes["arguments"] = map[string]any{"path": file}
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: hashes})
	require.NoError(t, err)
	require.Equal(t, "over http\n", r.Content[0].(*mcp.TextContent).Text)
	cs.Close()

	// runMCP's signal.NotifyContext catches this SIGINT.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	select {
	case code := <-exited:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatal("wasmhost mcp --listen did not stop on SIGINT")
	}
}
