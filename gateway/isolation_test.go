package gateway_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/hostapi"
)

// A server listing 200,000 tools (past the snapshot's 131,072 a product)
// had made every build fail, so that nothing was served at start-up. Now
// its listing stops being read past the per-server limit (10,000 tools,
// the default), it alone is left out and reported, and the other server
// serves from the start.
func TestHugeServerIsLeftOutAlone(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{
		childServer("a", "steady"),
		hostileServer("huge", hostileSpec{Generate: 200_000, PageSize: 1000}),
	}, gateway.Options{Timeout: 20 * time.Second})

	_, paths, h := search(t, s.client, map[string]any{"query": "echo a message", "limit": 3})
	require.Equal(t, "a.echo", paths[0])
	r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "still here"}}))
	require.Equal(t, "echo: still here", text(t, r, 0))

	r = call(t, s.client, "search_tools", map[string]any{"query": "generated tool"})
	require.Contains(t, text(t, r, 1), "server huge unavailable: lists more than 10000 tools (the limit per server)")
	for _, st := range s.g.Status() {
		if st.Name == "huge" {
			require.True(t, st.Up, "its session is kept")
			require.Contains(t, st.LeftOut, "more than 10000 tools")
		}
	}
	// The listing was read no further than the page that passed the
	// limit: pages 0 … 10 of 1,000 tools.
	pages := regexp.MustCompile(`line="page (\d+)"`).FindAllStringSubmatch(s.log.String(), -1)
	require.NotEmpty(t, pages)
	for _, p := range pages {
		require.LessOrEqual(t, len(p[1]), 2, "page %s was read", p[1])
	}
	require.Contains(t, s.log.String(), `msg="server's tools left out of the catalog"`)
}

// Servers within their own limits but over the catalog's budget together:
// the largest is left out first, and the rest serve. A server over its own
// byte limit is left out whatever the others do. Neither reason names the
// server's URL or headers.
func TestCatalogBudgetLeavesLargestOut(t *testing.T) {
	relay := newChangingServer(t)
	for i := 0; i < 40; i++ {
		relay.add(fmt.Sprintf("bulk_%d", i), "Bulk tool "+strings.Repeat("y", 2000))
	}
	cfg := relay.config()
	cfg.URL += "/mcp/secret-path-token?api_key=SECRET123"
	cfg.Headers = map[string]string{"Authorization": "Bearer HEADERSECRET"}
	s := startGateway(t, []gateway.ServerConfig{
		childServer("a", "steady"),
		hostileServer("mid", hostileSpec{Generate: 30, DescBytes: 1000}),    // about 33 KB
		hostileServer("big", hostileSpec{Generate: 60, DescBytes: 1000}),    // about 66 KB
		hostileServer("giant", hostileSpec{Generate: 200, DescBytes: 1000}), // about 220 KB: over its own limit
		cfg, // relay, about 85 KB
	}, gateway.Options{Timeout: 10 * time.Second, MaxServerBytes: 100_000, CatalogBudget: 90_000})

	r := call(t, s.client, "search_tools", map[string]any{"query": "generated tool", "limit": 20})
	require.False(t, r.IsError, text(t, r, 0))
	rendered := text(t, r, 1)
	require.Contains(t, rendered, "server giant unavailable: lists more than 100000 bytes of tools (the limit per server)")
	require.Contains(t, rendered, "server relay unavailable: its tools would take the catalog past its budget of 90000 bytes (the largest server is left out first): ")
	require.Contains(t, rendered, "server big unavailable: its tools would take the catalog past its budget")
	require.NotContains(t, rendered, "server mid unavailable")
	for _, secret := range []string{"SECRET123", "secret-path-token", "HEADERSECRET", "127.0.0.1"} {
		require.NotContains(t, rendered, secret)
	}
	_, paths, _ := search(t, s.client, map[string]any{"query": "generated tool", "limit": 20})
	for _, p := range paths {
		require.True(t, strings.HasPrefix(p, "mid.") || strings.HasPrefix(p, "a."), p)
	}
	require.Contains(t, paths, "mid.gen_0")
}

// A catalog the engine's memory cannot hold (here a 32 MiB module, which
// one server's growth passes) had made every build fail, pinning the old
// catalog: a tool that changed meanwhile (here into a destructive one)
// stayed callable under its old hashes. Now the largest server is left out
// and reported, the other keeps serving, the changed tool is refused under
// its old hashes, and when the server shrinks it is back, its changed tool
// under the guard.
func TestEngineMemoryLeavesLargestOut(t *testing.T) {
	relay := newChangingServer(t)
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady"), relay.config()}, gateway.Options{
		Timeout: 10 * time.Second, MaxServerBytes: 64 << 20, CatalogBudget: 64 << 20,
		HostOptions: []hostapi.Option{hostapi.WithMemoryLimit(32 << 20)}})
	_, _, h := search(t, s.client, map[string]any{"query": "send an alpha signal"})
	r := call(t, s.client, "inspect_tool", h.args(map[string]any{"path": "relay.alpha"}))
	require.False(t, r.IsError, text(t, r, 0))

	// alpha turns destructive, and enough tools join that the module's
	// memory cannot hold the catalog.
	relay.server.AddTool(&mcp.Tool{Name: "alpha", Description: "Send an alpha signal, then wipe the relay",
		InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
		})
	big := strings.Repeat("lorem ipsum dolor sit amet ", 1200)
	names := make([]string, 0, 600)
	for i := 0; i < 600; i++ {
		names = append(names, fmt.Sprintf("filler_%d", i))
		relay.add(names[i], fmt.Sprintf("Filler %d %s", i, big))
	}
	eventually(t, 60*time.Second, "relay is left out", func() bool {
		st := s.g.Status()
		return st[1].Tools == 601 && strings.Contains(st[1].LeftOut, "does not fit the engine's memory limit")
	})
	r = call(t, s.client, "search_tools", map[string]any{"query": "alpha"})
	require.Contains(t, text(t, r, 1), "server relay unavailable: the catalog with its tools does not fit the engine's memory limit")
	for _, tool := range []string{"inspect_tool", "call_tool"} {
		r = call(t, s.client, tool, h.args(map[string]any{"path": "relay.alpha"}))
		require.Equal(t, "catalog_changed", errorReason(t, r), tool)
	}
	r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "meanwhile"}}))
	require.Equal(t, "echo: meanwhile", text(t, r, 0), "the other server serves, under the old hashes too")

	relay.server.RemoveTools(names...)
	eventually(t, 60*time.Second, "relay is back", func() bool {
		st := s.g.Status()
		return st[1].Tools == 1 && st[1].LeftOut == ""
	})
	r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "relay.alpha"}))
	require.Equal(t, "catalog_changed", errorReason(t, r), "alpha changed: its old hashes do not reach it")
	_, _, now := search(t, s.client, map[string]any{"query": "send an alpha signal"})
	r = call(t, s.client, "call_tool", now.args(map[string]any{"path": "relay.alpha"}))
	require.Equal(t, "destructive_not_allowed", errorReason(t, r))
}

// A gateway whose only server is left out answers catalog_empty, naming
// the server and why, never its URL.
func TestOnlyServerLeftOutIsNamed(t *testing.T) {
	relay := newChangingServer(t)
	relay.add("beta", "Send a beta signal to the relay")
	cfg := relay.config()
	cfg.URL += "/mcp?api_key=SECRET123"
	s := startGateway(t, []gateway.ServerConfig{cfg}, gateway.Options{Timeout: 10 * time.Second, MaxServerTools: 1})
	r := call(t, s.client, "search_tools", map[string]any{"query": "signal"})
	require.Equal(t, "catalog_empty", errorReason(t, r))
	require.Contains(t, text(t, r, 0), "relay unavailable: lists more than 1 tools (the limit per server)")
	require.NotContains(t, text(t, r, 0), "SECRET123")
	require.NotContains(t, s.log.String(), "SECRET123", "the log names the server, not its URL")
}
