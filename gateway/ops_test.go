package gateway_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// metricValue is the value of the sample named (with its labels, as the
// exposition format writes them) in a /metrics page.
func metricValue(t *testing.T, page, sample string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(page)
	require.NotNil(t, m, "no sample %s in:\n%s", sample, page)
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return v
}

// /metrics counts what clients did: tools/call by tool and outcome, the
// guard's refusals, the policy's through CountPolicyRefusal, search
// latency; and reads the servers' and the catalog's state. Audit lines
// carry no arguments unless the config asks.
func TestMetricsAndAudit(t *testing.T) {
	audit := &syncBuffer{}
	s := startGateway(t, []gateway.ServerConfig{childServer("steady", "steady")},
		gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(audit, nil))})
	srv := httptest.NewServer(s.g.HTTPHandler())
	t.Cleanup(srv.Close)

	_, _, h := search(t, s.client, map[string]any{"query": "echo a message"})
	search(t, s.client, map[string]any{"query": "wipe the store"})
	r := call(t, s.client, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "secret words"}}))
	require.False(t, r.IsError, text(t, r, 0))
	r = call(t, s.client, "call_tool", h.args(map[string]any{"path": "steady.wipe"}))
	require.Equal(t, "destructive_not_allowed", errorReason(t, r))
	r = call(t, s.client, "inspect_tool", map[string]any{"path": "steady.echo", "source_hash": "sha256:0", "surface_hash": "sha256:0"})
	require.Equal(t, "catalog_changed", errorReason(t, r))
	s.g.CountPolicyRefusal()

	status, page := get(t, srv.URL+"/metrics")
	require.Equal(t, http.StatusOK, status, "no authentication: metrics on the MCP address")
	for sample, want := range map[string]float64{
		`toolsift_gateway_tool_calls_total{outcome="ok",tool="search_tools"}`:                    2,
		`toolsift_gateway_tool_calls_total{outcome="ok",tool="call_tool"}`:                       1,
		`toolsift_gateway_tool_calls_total{outcome="destructive_not_allowed",tool="call_tool"}`:  1,
		`toolsift_gateway_tool_calls_total{outcome="catalog_changed",tool="inspect_tool"}`:       1,
		`toolsift_gateway_calls_refused_total{by="guard"}`:                                       1,
		`toolsift_gateway_server_calls_total{outcome="ok",server="steady"}`:                      1,
		`toolsift_gateway_server_calls_total{outcome="destructive_not_allowed",server="steady"}`: 1,
		`toolsift_gateway_calls_refused_total{by="policy"}`:                                      1,
		`toolsift_gateway_search_duration_seconds_count`:                                         2,
		`toolsift_gateway_call_duration_seconds_count`:                                           2,
		`toolsift_gateway_server_up{server="steady"}`:                                            1,
		`toolsift_gateway_server_restarts_total{server="steady"}`:                                0,
		`toolsift_gateway_catalog_tools`:                                                         5,
		`toolsift_gateway_catalog_generation`:                                                    1,
		`toolsift_gateway_catalog_stale`:                                                         0,
		`toolsift_gateway_ready`:                                                                 1,
		`toolsift_gateway_http_auth_rejected_total{reason="unauthorized"}`:                       0,
	} {
		require.Equal(t, want, metricValue(t, page, sample), sample)
	}
	require.Contains(t, page, "go_goroutines", "the Go collector is in the gateway's registry")

	line := auditLine(t, audit, "steady.echo")
	require.Equal(t, "ok", line["outcome"])
	require.Equal(t, "", line["client"], "stdio/in-memory: no authenticated client")
	require.Equal(t, "none", line["auth"])
	require.Equal(t, h.source, line["serving_source_hash"])
	require.NotContains(t, line, "arguments")
	require.NotContains(t, audit.String(), "secret words", "arguments are not logged by default")
	require.Equal(t, "destructive_not_allowed", auditLine(t, audit, "steady.wipe")["outcome"])
	require.Equal(t, 2, strings.Count(audit.String(), "\n"), "one line per call_tool, none for search or inspect")
}

// /readyz is 503 until a catalog serves, and from the moment the gateway
// drains; /healthz is 200 throughout.
func TestReadiness(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{childServer("stuck", "hang-init")},
		gateway.Options{StartupWait: 200 * time.Millisecond, AuditLogger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	srv := httptest.NewServer(s.g.HTTPHandler())
	t.Cleanup(srv.Close)
	status, body := get(t, srv.URL+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Equal(t, "not ready: catalog_empty\n", body, "a reason code, never a server's name")
	status, _ = get(t, srv.URL+"/healthz")
	require.Equal(t, http.StatusOK, status)

	s = startGateway(t, []gateway.ServerConfig{childServer("steady", "steady")}, gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	srv = httptest.NewServer(s.g.HTTPHandler())
	t.Cleanup(srv.Close)
	status, body = get(t, srv.URL+"/readyz")
	require.Equal(t, http.StatusOK, status, body)
	s.g.Drain()
	status, body = get(t, srv.URL+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Equal(t, "not ready: draining\n", body)
}

// slowServer is a real MCP server over streamable HTTP whose one tool
// answers after d, telling began when a call arrives.
func slowServer(t *testing.T, d time.Duration, began chan<- struct{}) string {
	t.Helper()
	ds := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	mcp.AddTool(ds, &mcp.Tool{Name: "slow_read", Description: "Read a record slowly", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			began <- struct{}{}
			time.Sleep(d)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ds }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A stop (SIGTERM in wasmhost mcp) drains: /readyz turns 503, no new
// connection is taken, the call in flight finishes and its client gets
// the answer, and the client's standing notification stream does not hold
// the stop until the drain timeout.
func TestDrainFinishesCallsInFlight(t *testing.T) {
	began := make(chan struct{}, 1)
	url := slowServer(t, 1500*time.Millisecond, began)
	s := startGateway(t, []gateway.ServerConfig{{Name: "slow", URL: url, Trusted: true}},
		gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ops, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() {
		served <- s.g.ListenAndServe(ctx, s.g.HTTPHandler(), gateway.ServeOptions{Listener: ln, OpsListener: ops, DrainTimeout: 20 * time.Second})
	}()
	base := "http://" + ln.Addr().String()
	opsBase := "http://" + ops.Addr().String()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base}, nil)
	require.NoError(t, err)
	defer cs.Close()
	_, _, h := search(t, cs, map[string]any{"query": "read a record slowly"})
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "call_tool",
			Arguments: h.args(map[string]any{"path": "slow.slow_read"})})
		if err != nil {
			r = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		answered <- r
	}()
	<-began
	status, _ := get(t, opsBase+"/readyz")
	require.Equal(t, http.StatusOK, status)
	stopped := time.Now()
	stop()
	eventually(t, 5*time.Second, "/readyz 503 while draining", func() bool { return !ready(s.g) })
	eventually(t, 5*time.Second, "no new connection", func() bool {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	})

	r := <-answered
	require.False(t, r.IsError, "the call in flight finished: %s", text(t, r, 0))
	require.Equal(t, "done", text(t, r, 0))
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the drain waited for the client's standing stream")
	}
	require.Less(t, time.Since(stopped), 10*time.Second)
	_, err = http.Get(opsBase + "/healthz")
	require.Error(t, err, "the operations address is closed too")
}

func ready(g *gateway.Gateway) bool {
	ok, _ := g.Ready()
	return ok
}

// The operations address serves metrics without a token while the MCP
// address, with authentication, serves none.
func TestOpsAddressServesMetricsWithoutAuth(t *testing.T) {
	cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {"a": {"command": "x"}}, "auth": {"tokens": {"ci": {"sha256": "` + strings.Repeat("ab", 32) + `"}}}}`))
	require.NoError(t, err)
	authn, err := gateway.NewAuthenticator(cfg.Auth, nil)
	require.NoError(t, err)
	s := startGateway(t, []gateway.ServerConfig{childServer("steady", "steady")}, gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ops, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- s.g.ListenAndServe(ctx, s.g.HTTPHandlerWith(gateway.HTTPOptions{Auth: authn}), gateway.ServeOptions{Listener: ln, OpsListener: ops})
	}()
	status, _ := get(t, "http://"+ln.Addr().String()+"/metrics")
	require.Equal(t, http.StatusUnauthorized, status)
	status, body := get(t, "http://"+ops.Addr().String()+"/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, 1.0, metricValue(t, body, `toolsift_gateway_http_auth_rejected_total{reason="unauthorized"}`))
	status, _ = get(t, "http://"+ln.Addr().String()+"/healthz")
	require.Equal(t, http.StatusOK, status)
	stop()
	require.NoError(t, <-served)
	_, err = net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	var opErr *net.OpError
	require.True(t, errors.As(err, &opErr), "closed after the stop: %v", err)
}

// Two gateways with the same config, each with its own child server,
// build the same catalog: a search on one gives hashes the other accepts
// for inspect_tool and call_tool (docs/DEPLOY.md, how replicas agree).
func TestReplicasAgreeOnHashes(t *testing.T) {
	quiet := gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(io.Discard, nil))}
	one := startGateway(t, []gateway.ServerConfig{childServer("steady", "steady")}, quiet)
	two := startGateway(t, []gateway.ServerConfig{childServer("steady", "steady")}, quiet)
	answerOne, _, h := search(t, one.client, map[string]any{"query": "echo a message"})
	answerTwo, _, h2 := search(t, two.client, map[string]any{"query": "echo a message"})
	require.Equal(t, h, h2)
	require.Equal(t, answerOne, answerTwo, "byte for byte")
	r := call(t, two.client, "inspect_tool", h.args(map[string]any{"path": "steady.echo"}))
	require.False(t, r.IsError, text(t, r, 0))
	r = call(t, two.client, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "from one"}}))
	require.False(t, r.IsError, text(t, r, 0))
	require.Equal(t, "echo: from one", text(t, r, 0))
}
