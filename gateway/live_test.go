package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// changingServer is a real MCP server over streamable HTTP on 127.0.0.1
// whose tool list the test changes: each change sends
// notifications/tools/list_changed to the gateway.
type changingServer struct {
	server  *mcp.Server
	http    *httptest.Server
	headers atomic.Value // the last Authorization header seen
}

func newChangingServer(t testing.TB) *changingServer {
	// Pages of 100 tools keep each tools/list answer under the client's
	// 16 MiB event cap (httpclient.go) even when TestEngineMemoryLeavesLargestOut
	// lists 19 MB of tools.
	c := &changingServer{server: mcp.NewServer(&mcp.Implementation{Name: "changing", Version: "1"}, &mcp.ServerOptions{PageSize: 100})}
	c.add("alpha", "Send an alpha signal to the relay")
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return c.server }, nil)
	c.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.headers.Store(r.Header.Get("Authorization"))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(c.http.Close)
	return c
}

func (c *changingServer) add(name, description string) {
	c.server.AddTool(&mcp.Tool{Name: name, Description: description,
		InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil
		})
}

func (c *changingServer) config() gateway.ServerConfig {
	return gateway.ServerConfig{Name: "relay", URL: c.http.URL, Headers: map[string]string{"Authorization": "Bearer test-token"}}
}

// A server's list_changed rebuilds the catalog and swaps it in: the hashes
// change, inspect and call under the old ones answer catalog_changed, and
// the new tool is found and called under the new ones.
func TestListChangedSwapsCatalog(t *testing.T) {
	relay := newChangingServer(t)
	s := startGateway(t, []gateway.ServerConfig{relay.config()}, gateway.Options{Timeout: 5 * time.Second})
	require.Equal(t, "Bearer test-token", relay.headers.Load(), "the configured headers reach the server")

	_, paths, before := search(t, s.client, map[string]any{"query": "send a signal"})
	require.Equal(t, []string{"relay.alpha"}, paths)
	r := call(t, s.client, "inspect_tool", before.args(map[string]any{"path": "relay.alpha"}))
	require.False(t, r.IsError, text(t, r, 0))

	relay.add("beta", "Send a beta signal to the relay")
	eventually(t, 10*time.Second, "the catalog swaps after list_changed", func() bool {
		source, _ := s.g.Hashes()
		return source != before.source
	})

	// alpha did not change: the hashes of the catalog it was found in
	// still reach it (history.go); beta joined after them: refused.
	r = call(t, s.client, "inspect_tool", before.args(map[string]any{"path": "relay.alpha"}))
	require.False(t, r.IsError, text(t, r, 0))
	r = call(t, s.client, "call_tool", before.args(map[string]any{"path": "relay.alpha"}))
	require.Equal(t, "alpha done", text(t, r, 0))
	r = call(t, s.client, "call_tool", before.args(map[string]any{"path": "relay.beta"}))
	require.Equal(t, "catalog_changed", errorReason(t, r))

	_, paths, after := search(t, s.client, map[string]any{"query": "send a beta signal"})
	require.Equal(t, "relay.beta", paths[0])
	r = call(t, s.client, "call_tool", after.args(map[string]any{"path": "relay.beta"}))
	require.False(t, r.IsError, text(t, r, 0))
	require.Equal(t, "beta done", text(t, r, 0))

	// A changed tool is refused under the hashes it was found under.
	relay.add("beta", "Send a beta signal to the relay, now twice")
	eventually(t, 10*time.Second, "the catalog swaps after beta changed", func() bool { return hashPair(s.g) != after })
	r = call(t, s.client, "inspect_tool", after.args(map[string]any{"path": "relay.beta"}))
	require.Equal(t, "catalog_changed", errorReason(t, r))
	r = call(t, s.client, "call_tool", after.args(map[string]any{"path": "relay.beta"}))
	require.Equal(t, "catalog_changed", errorReason(t, r))

	relay.server.RemoveTools("beta")
	eventually(t, 10*time.Second, "the catalog returns to the first one", func() bool {
		source, surface := s.g.Hashes()
		return source == before.source && surface == before.surface
	})
	r = call(t, s.client, "call_tool", after.args(map[string]any{"path": "relay.beta"}))
	require.Equal(t, "catalog_changed", errorReason(t, r), "a tool that left is refused")
}

// A server that exits is restarted with backoff; meanwhile its tools leave
// the catalog (the other server's stay searchable and callable), and when
// it is back the catalog is the first one again, hash for hash. The
// child's stderr is logged under its name.
func TestServerExitRestarts(t *testing.T) {
	a, b := childServer("a", "steady"), childServer("b", "steady")
	b.AllowDestructive = true
	s := startGateway(t, []gateway.ServerConfig{a, b}, gateway.Options{
		Timeout: 10 * time.Second, Backoff: gateway.Backoff{Initial: 300 * time.Millisecond, Max: time.Second}})
	eventually(t, 5*time.Second, "the child's stderr is logged with its name", func() bool {
		return strings.Contains(s.log.String(), "server=b") && strings.Contains(s.log.String(), "child server starting: steady")
	})

	_, paths, first := search(t, s.client, map[string]any{"query": "crash the server", "limit": 2})
	require.ElementsMatch(t, []string{"a.crash", "b.crash"}, paths)

	// The safety rule per server: b allows destructive tools, a does not.
	r := call(t, s.client, "call_tool", first.args(map[string]any{"path": "a.wipe"}))
	require.Equal(t, "destructive_not_allowed", errorReason(t, r))
	r = call(t, s.client, "call_tool", first.args(map[string]any{"path": "b.wipe"}))
	require.False(t, r.IsError, text(t, r, 0))
	require.Equal(t, "wiped", text(t, r, 0))

	r = call(t, s.client, "call_tool", first.args(map[string]any{"path": "b.crash"}))
	require.Equal(t, "downstream_error", errorReason(t, r), "a call whose server died answers an error")

	eventually(t, 5*time.Second, "b's tools leave the catalog", func() bool {
		for _, st := range s.g.Status() {
			if st.Name == "b" && !st.Up {
				source, _ := s.g.Hashes()
				return source != first.source
			}
		}
		return false
	})
	_, paths, during := search(t, s.client, map[string]any{"query": "echo a message", "limit": 5})
	require.Contains(t, paths, "a.echo")
	require.NotContains(t, paths, "b.echo")
	r = call(t, s.client, "call_tool", during.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "hi"}}))
	require.Equal(t, "echo: hi", text(t, r, 0))
	r = call(t, s.client, "search_tools", map[string]any{"query": "echo"})
	require.Contains(t, text(t, r, 1), "server b unavailable: down: ")

	eventually(t, 10*time.Second, "b comes back and the catalog is the first one again", func() bool {
		source, surface := s.g.Hashes()
		return source == first.source && surface == first.surface
	})
	for _, st := range s.g.Status() {
		if st.Name == "b" {
			require.Equal(t, 1, st.Restarts)
		}
	}
	r = call(t, s.client, "call_tool", first.args(map[string]any{"path": "b.echo", "arguments": map[string]any{"message": "back"}}))
	require.Equal(t, "echo: back", text(t, r, 0))
}

// A server that never answers initialize does not hold up the start or the
// others; a tool call that never returns times out with a typed error and
// does not block searches or calls to other tools meanwhile.
func TestSlowServersDoNotBlock(t *testing.T) {
	began := time.Now()
	s := startGateway(t, []gateway.ServerConfig{childServer("stuck", "hang-init"), childServer("a", "steady")},
		gateway.Options{Timeout: 3 * time.Second, StartupWait: 2 * time.Second,
			Backoff: gateway.Backoff{Initial: 5 * time.Second, Max: 5 * time.Second}})
	require.Less(t, time.Since(began), 5*time.Second, "start waits at most about StartupWait")
	_, paths, h := search(t, s.client, map[string]any{"query": "sleep"})
	require.Contains(t, paths, "a.sleep")

	var wg sync.WaitGroup
	wg.Add(1)
	var slow *mcp.CallToolResult
	var slowTook time.Duration
	go func() {
		defer wg.Done()
		start := time.Now()
		slow = call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.sleep"}))
		slowTook = time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond) // the sleep call is in flight
	start := time.Now()
	search(t, s.client, map[string]any{"query": "echo"})
	r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "meanwhile"}}))
	require.Equal(t, "echo: meanwhile", text(t, r, 0))
	require.Less(t, time.Since(start), 2*time.Second, "search and another call answer while a call hangs (before it times out)")
	wg.Wait()
	require.Equal(t, "downstream_timeout", errorReason(t, slow))
	require.GreaterOrEqual(t, slowTook, 3*time.Second)
	require.Less(t, slowTook, 6*time.Second)

	for _, st := range s.g.Status() {
		if st.Name == "stuck" {
			require.False(t, st.Up)
		}
	}
}

// --expose found adds the tools a search returns to the gateway's own
// tools/list, with list_changed, and calls to them go through the same
// checks as call_tool.
func TestExposeFound(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady")}, gateway.Options{ExposeFound: true})
	changed := make(chan struct{}, 8)
	cs := connect(t, s.g, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	names := func() []string {
		list, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		var out []string
		for _, tool := range list.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	require.ElementsMatch(t, []string{"search_tools", "inspect_tool", "call_tool"}, names())
	search(t, cs, map[string]any{"query": "echo a message", "limit": 2})
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a search")
	}
	require.Contains(t, names(), "a.echo")
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a.echo", Arguments: map[string]any{"message": "direct"}})
	require.NoError(t, err)
	require.Equal(t, "echo: direct", text(t, r, 0))

	search(t, cs, map[string]any{"query": "wipe every record"})
	require.Contains(t, names(), "a.wipe")
	r, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a.wipe"})
	require.NoError(t, err)
	require.Equal(t, "destructive_not_allowed", errorReason(t, r))
}

// A server that is alive but answers nothing (stopped with SIGSTOP) misses
// its keepalive pings: its session is closed (the SDK escalates to SIGKILL)
// and it is restarted, its tools back in the catalog.
func TestStuckServerRestarts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGSTOP")
	}
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady")}, gateway.Options{
		Timeout: 500 * time.Millisecond, KeepAlive: 300 * time.Millisecond,
		Backoff: gateway.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}})
	_, _, h := search(t, s.client, map[string]any{"query": "stop the server process"})
	r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.freeze"}))
	require.Equal(t, "downstream_timeout", errorReason(t, r))
	eventually(t, 20*time.Second, "the stuck server is restarted", func() bool {
		st := s.g.Status()[0]
		return st.Up && st.Restarts == 1
	})
	eventually(t, 5*time.Second, "its catalog is back", func() bool { return hashPair(s.g) == h })
	r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "alive"}}))
	require.Equal(t, "echo: alive", text(t, r, 0))
}

// A tool the importer refuses (a name with an invisible character, which
// could pass for another tool's) is left out and logged with the import
// report; the server's other tools keep serving, under the same hashes.
func TestRefusedToolIsSkipped(t *testing.T) {
	relay := newChangingServer(t)
	s := startGateway(t, []gateway.ServerConfig{relay.config()}, gateway.Options{Timeout: 5 * time.Second})
	before := hashPair(s.g)
	relay.add("al\u200bpha", "Send an alpha signal that only looks like the real one")
	eventually(t, 10*time.Second, "the import report is logged", func() bool {
		return strings.Contains(s.log.String(), "tools skipped by the importer")
	})
	require.Equal(t, before, hashPair(s.g))
	_, paths, _ := search(t, s.client, map[string]any{"query": "send an alpha signal"})
	require.Equal(t, []string{"relay.alpha"}, paths)
}
