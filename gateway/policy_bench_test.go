package gateway_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/gateway"
)

// What a policy costs a search: search_tools from an in-memory client (the
// stdio rule) over one HTTP server of 2,000 tools, with no rule, a rule
// that hides by server and effect only (nothing excluded by path), and a
// rule that hides 1,000 of the tools by name (1,000 paths excluded in every
// request). The rules are swapped in turn before each search, so that a
// machine whose load drifts slows them alike (a swap keeps each rule's
// view cached for the generation); the metrics are the medians, in µs.
//
//	go test ./gateway -run '^$' -bench PolicySearch -benchtime 300x
func BenchmarkPolicySearch(b *testing.B) {
	relay := newChangingServer(b)
	for i := range 2000 {
		relay.add(fmt.Sprintf("tool_%04d", i), fmt.Sprintf("Send signal number %d to the relay station %d", i, i%37))
	}
	cfg := &gateway.Config{Servers: []gateway.ServerConfig{relay.config(), childServer("steady", "steady")}}
	s := startGatewayConfig(b, cfg, gateway.Options{Timeout: 30 * time.Second})
	rule := func(policy string) *gateway.Policy {
		if policy == "" {
			return nil
		}
		c, err := gateway.ParseConfig([]byte(`{"mcpServers": {"relay": {"url": "http://127.0.0.1:1/"}, "steady": {"command": "x"}}, "policy": ` + policy + `}`))
		if err != nil {
			b.Fatal(err)
		}
		return c.Policy
	}
	runs := []struct {
		metric string
		policy *gateway.Policy
		took   []float64
	}{
		{metric: "no-rule-µs", policy: rule("")},
		{metric: "server-and-effect-µs", policy: rule(`{"stdio": {"servers": {"relay": {"effects": "write"}}}}`)},
		{metric: "1000-paths-excluded-µs", policy: rule(`{"stdio": {"servers": {"relay": {"effects": "write", "denyTools": ["tool_0*"]}}}}`)},
	}
	params := &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "send a signal to relay station 12", "limit": 5}}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range runs {
			r := &runs[j]
			s.g.SetPolicy(r.policy)
			began := time.Now()
			res, err := s.client.CallTool(ctx, params)
			r.took = append(r.took, float64(time.Since(began).Microseconds()))
			if err != nil || res.IsError {
				b.Fatalf("search: %v %v", err, res)
			}
		}
	}
	for _, r := range runs {
		slices.Sort(r.took)
		b.ReportMetric(r.took[len(r.took)/2], r.metric)
	}
}
