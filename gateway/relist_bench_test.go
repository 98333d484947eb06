package gateway_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/gateway"
)

// What the re-list before a call to an untrusted server costs, on a local
// stdio child (the steady test server, 5 tools): call_tool a.echo through
// the gateway from an in-memory client, for a trusted server (no re-list),
// an untrusted one with the default 2 s cache, and one that lists before
// every call (the cost of a cache miss).
//
//	go test ./gateway -run '^$' -bench CallRelist -benchtime 2000x
func BenchmarkCallRelist(b *testing.B) {
	for _, tc := range []struct {
		name    string
		trusted bool
		cache   time.Duration
	}{
		{"trusted", true, 0},
		{"untrusted-cache-2s", false, 0},
		{"untrusted-relist-every-call", false, -1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a := childServer("a", "steady")
			a.Trusted = tc.trusted
			s := startGateway(b, []gateway.ServerConfig{a}, gateway.Options{Timeout: 10 * time.Second, RelistCache: tc.cache})
			_, _, h := search(b, s.client, map[string]any{"query": "echo a message"})
			params := &mcp.CallToolParams{Name: "call_tool", Arguments: h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": "x"}})}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := s.client.CallTool(ctx, params)
				if err != nil || r.IsError {
					b.Fatalf("call: %v %v", err, r)
				}
			}
		})
	}
}
