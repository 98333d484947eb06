package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// Clients search, inspect and call at once while the downstream server's
// tool list flips between two catalogs: every answer comes whole from one
// of the two (its hashes are one of the two pairs), a stale inspect or call
// is refused with catalog_changed and nothing else fails. Run under the
// race detector by make race.
func TestConcurrentSearchInspectCallDuringSwaps(t *testing.T) {
	relay := newChangingServer(t)
	began := time.Now()
	s := startGateway(t, []gateway.ServerConfig{relay.config()}, gateway.Options{Timeout: 10 * time.Second})
	t.Logf("gateway up in %s", time.Since(began).Round(time.Millisecond))
	one := hashPair(s.g)
	relay.add("beta", "Send a beta signal to the relay")
	eventually(t, 10*time.Second, "first swap", func() bool { return hashPair(s.g) != one })
	two := hashPair(s.g)
	known := map[hashes]bool{one: true, two: true}

	// The flips go on until every client is done (at most maxFlips), so
	// that the swaps overlap the calls however slow the run (the race
	// detector slows the module several times over).
	const clients, rounds, maxFlips = 4, 20, 400
	clientsDone := make(chan struct{})
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[hashes]int{}
	refused := 0
	for c := 0; c < clients; c++ {
		cs := connect(t, s.g, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				h, stale, err := searchInspectCallOnce(cs)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[h]++
				refused += stale
				mu.Unlock()
			}
		}()
	}
	go func() {
		defer close(done)
		for i := 0; i < maxFlips; i++ {
			select {
			case <-clientsDone:
				return
			default:
			}
			if i%2 == 0 {
				relay.server.RemoveTools("beta")
			} else {
				relay.add("beta", "Send a beta signal to the relay")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	wg.Wait()
	close(clientsDone)
	<-done
	for h := range seen {
		require.True(t, known[h], "an answer carried hashes of neither catalog: %v", h)
	}
	require.Len(t, seen, 2, "the calls overlapped the swaps")
	t.Logf("answers per catalog: %v; stale inspect/call refused with catalog_changed: %d", seen, refused)
}

func hashPair(g *gateway.Gateway) hashes {
	source, surface := g.Hashes()
	return hashes{source, surface}
}

// searchInspectCallOnce returns the search's hashes and how many of the
// inspect and call that followed were refused as stale; any other failure
// is an error.
func searchInspectCallOnce(cs *mcp.ClientSession) (hashes, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "send an alpha signal", "limit": 1}})
	if err != nil || r.IsError {
		return hashes{}, 0, fmt.Errorf("search: %v %v", err, r)
	}
	var a searchAnswer
	if err := json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &a); err != nil || len(a.Candidates) != 1 {
		return hashes{}, 0, fmt.Errorf("search answer: %v %d", err, len(a.Candidates))
	}
	h := hashes{a.Catalog.SourceHash, a.Catalog.SurfaceHash}
	stale := 0
	for _, tool := range []string{"inspect_tool", "call_tool"} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: h.args(map[string]any{"path": "relay.alpha"})})
		if err != nil {
			return h, stale, fmt.Errorf("%s: %v", tool, err)
		}
		if !r.IsError {
			continue
		}
		var doc struct {
			Error struct{ Reason string } `json:"error"`
		}
		_ = json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &doc)
		if doc.Error.Reason != "catalog_changed" {
			return h, stale, fmt.Errorf("%s: %s", tool, r.Content[0].(*mcp.TextContent).Text)
		}
		stale++
	}
	return h, stale, nil
}

// A server that changes a description every 200 ms (each time with
// list_changed) must not block calls to another server: the catalog hashes
// cover both, so every call below is made under hashes that are no longer
// the catalog's, and each is accepted because its own tool did not change
// (history.go). Two clients run the search → inspect → wait → call rounds
// at once. (Before, 0 of 8 such rounds succeeded.) Run under the race
// detector by make race.
func TestConcurrentChurnDoesNotBlockOtherServers(t *testing.T) {
	churn := hostileServer("churn", hostileSpec{ChurnMillis: 200, Tools: []map[string]any{
		{"name": "weather", "description": "Churning tool, version 0", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true}},
	}})
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady"), churn}, gateway.Options{Timeout: 10 * time.Second})
	const clients, rounds = 2, 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	succeeded, stale := 0, 0
	for c := 0; c < clients; c++ {
		cs := connect(t, s.g, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				ok, changed, err := churnRound(ctx, cs, s.g, fmt.Sprintf("round %d", i))
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if ok {
					succeeded++
				}
				if changed {
					stale++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Equal(t, clients*rounds, succeeded)
	require.Equal(t, clients*rounds, stale, "every call was made under hashes the churn had replaced")
	t.Logf("%d of %d rounds on a.echo succeeded while churn changed every 200 ms", succeeded, clients*rounds)
}

// churnRound searches a's echo, inspects it, waits 1.5 s and calls it
// under the search's hashes: ok when the call's answer is the echo,
// changed when the catalog's hashes changed in between.
func churnRound(ctx context.Context, cs *mcp.ClientSession, g *gateway.Gateway, message string) (ok, changed bool, err error) {
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo a message", "servers": []string{"a"}, "limit": 1}})
	if err != nil || r.IsError {
		return false, false, fmt.Errorf("search: %v %v", err, r)
	}
	var a searchAnswer
	if err := json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &a); err != nil || len(a.Candidates) != 1 {
		return false, false, fmt.Errorf("search answer: %v", err)
	}
	h := hashes{a.Catalog.SourceHash, a.Catalog.SurfaceHash}
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_tool", Arguments: h.args(map[string]any{"path": "a.echo"})})
	if err != nil || r.IsError {
		return false, false, fmt.Errorf("inspect: %v %v", err, r.Content[0].(*mcp.TextContent).Text)
	}
	time.Sleep(1500 * time.Millisecond)
	changed = hashPair(g) != h
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": message}})})
	if err != nil {
		return false, changed, err
	}
	got := r.Content[0].(*mcp.TextContent).Text
	if r.IsError || got != "echo: "+message {
		return false, changed, fmt.Errorf("call: %s", got)
	}
	return true, changed, nil
}

// Isolation under load: a server that goes over its tool limit and back
// every 300 ms (each time with list_changed) is left out and let in again
// while clients search, inspect and call another server; every round on
// the other server succeeds. Run under the race detector by make race.
func TestConcurrentIsolationOfAFlappingServer(t *testing.T) {
	flapper := hostileServer("flapper", hostileSpec{ChurnMillis: 300, Flap: 30, Tools: []map[string]any{
		{"name": "weather", "description": "Churning tool, version 0", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true}},
	}})
	s := startGateway(t, []gateway.ServerConfig{childServer("a", "steady"), flapper},
		gateway.Options{Timeout: 10 * time.Second, MaxServerTools: 20})
	const clients, rounds = 2, 6
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		cs := connect(t, s.g, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				err := flapRound(ctx, cs, fmt.Sprintf("round %d", i))
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	log := s.log.String()
	require.Contains(t, log, "lists more than 20 tools", "the flapper went over its limit")
	require.GreaterOrEqual(t, strings.Count(log, "catalog swapped"), 3, "and back, several times")
}

// flapRound is churnRound with 100 ms waits: search, inspect and call a's
// echo under the search's hashes; any failure is an error.
func flapRound(ctx context.Context, cs *mcp.ClientSession, message string) error {
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo a message", "servers": []string{"a"}, "limit": 1}})
	if err != nil || r.IsError {
		return fmt.Errorf("search: %v %v", err, r)
	}
	var a searchAnswer
	if err := json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &a); err != nil || len(a.Candidates) != 1 {
		return fmt.Errorf("search answer: %v", err)
	}
	h := hashes{a.Catalog.SourceHash, a.Catalog.SurfaceHash}
	time.Sleep(100 * time.Millisecond)
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "inspect_tool", Arguments: h.args(map[string]any{"path": "a.echo"})})
	if err != nil || r.IsError {
		return fmt.Errorf("inspect: %v %v", err, r)
	}
	time.Sleep(100 * time.Millisecond)
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: h.args(map[string]any{"path": "a.echo", "arguments": map[string]any{"message": message}})})
	if err != nil {
		return fmt.Errorf("call: %v", err)
	}
	if got := r.Content[0].(*mcp.TextContent).Text; r.IsError || got != "echo: "+message {
		return fmt.Errorf("call: %s", got)
	}
	return nil
}
