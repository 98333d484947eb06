package gateway_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/gateway"
)

// What the re-list before a call to an untrusted server costs, on a local
// stdio child (the steady test server, 5 tools): call_tool a.echo through
// the gateway from an in-memory client, to a trusted server (no re-list),
// an untrusted one that is listed again before every call (the cost of a
// cache miss), and an untrusted one with the default 2 s cache. The three
// are called in turn, so that a machine whose load drifts slows them
// alike; the metrics are the medians of each, in µs.
//
//	go test ./gateway -run '^$' -bench CallRelist -benchtime 2000x
func BenchmarkCallRelist(b *testing.B) {
	trusted, every := childServer("t", "steady"), childServer("u", "steady")
	trusted.Trusted = true
	miss := startGateway(b, []gateway.ServerConfig{trusted, every}, gateway.Options{Timeout: 10 * time.Second, RelistCache: -1})
	cached := startGateway(b, []gateway.ServerConfig{childServer("c", "steady")}, gateway.Options{Timeout: 10 * time.Second})
	params := func(s *started, path string) *mcp.CallToolParams {
		_, _, h := search(b, s.client, map[string]any{"query": "echo a message"})
		return &mcp.CallToolParams{Name: "call_tool", Arguments: h.args(map[string]any{"path": path, "arguments": map[string]any{"message": "x"}})}
	}
	calls := []struct {
		metric string
		s      *started
		params *mcp.CallToolParams
		took   []float64
	}{
		{metric: "trusted-µs", s: miss, params: params(miss, "t.echo")},
		{metric: "relist-every-call-µs", s: miss, params: params(miss, "u.echo")},
		{metric: "untrusted-cache-2s-µs", s: cached, params: params(cached, "c.echo")},
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range calls {
			c := &calls[j]
			began := time.Now()
			r, err := c.s.client.CallTool(ctx, c.params)
			c.took = append(c.took, float64(time.Since(began).Microseconds()))
			if err != nil || r.IsError {
				b.Fatalf("call: %v %v", err, r)
			}
		}
	}
	for _, c := range calls {
		slices.Sort(c.took)
		b.ReportMetric(c.took[len(c.took)/2], c.metric)
	}
}
