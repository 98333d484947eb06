package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// policyConfig is a config file with the steady child server (echo and
// sleep: read; freeze and crash: write; wipe: destructive) as "steady",
// the relay (alpha: annotated read, but "send" makes it write for the
// guard of an untrusted server) at relayURL, and the given "policy" object.
func policyConfig(relayURL, policy string) string {
	self, _ := json.Marshal(os.Args[0])
	return fmt.Sprintf(`{"mcpServers": {
  "steady": {"command": %s, "env": {%q: "steady"}},
  "relay":  {"url": %q}
}, "policy": %s}`, self, "TOOLSIFT_GATEWAY_TEST_SERVER", relayURL, policy)
}

const testPolicy = `{
  "stdio": {"servers": {"relay": {"effects": "write"}}},
  "clients": {
    "alice": {"servers": {"steady": {"effects": "read"}}},
    "bob":   {"servers": {"steady": {"effects": "destructive", "denyTools": ["cr*"]}, "relay": {"effects": "write"}}}
  },
  "default": {"servers": {}}
}`

// testVerifier is a TokenVerifier for tests: "<client>-token" is the
// client's token; anything else is refused as the SDK's middleware expects.
func testVerifier(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	scopes := map[string][]string{
		"alice": {"mcp"}, "bob": {"mcp"}, "carol": {"mcp"},
		"dave": {"mcp", "steady-read", "relay-write"}, "erin": {"relay-write"},
	}
	for client, granted := range scopes {
		if token == client+"-token" {
			return &auth.TokenInfo{UserID: client, Scopes: granted, Expiration: time.Now().Add(time.Hour)}, nil
		}
	}
	return nil, auth.ErrInvalidToken
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// httpClient is a go-sdk client of the endpoint at url, sending token
// ("" for none).
func httpClient(t testing.TB, url, token string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = bearer{token, http.DefaultTransport}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "policy-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// startPolicyGateway runs a gateway on the config in a file, behind the
// SDK's bearer-token middleware (authenticated) and without it
// (anonymous), over real HTTP.
type policyGateway struct {
	*started
	authURL, openURL, path string
}

func startPolicyGateway(t *testing.T, policy string) *policyGateway {
	t.Helper()
	return startPolicyGatewayWith(t, policy, gateway.Options{Timeout: 10 * time.Second})
}

func startPolicyGatewayWith(t *testing.T, policy string, opts gateway.Options) *policyGateway {
	t.Helper()
	relay := newChangingServer(t)
	path := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(policyConfig(relay.http.URL, policy)), 0o644))
	cfg, err := gateway.LoadConfig(path)
	require.NoError(t, err)
	s := startGatewayConfig(t, cfg, opts)
	authed := httptest.NewServer(auth.RequireBearerToken(testVerifier, nil)(s.g.HTTPHandler()))
	t.Cleanup(authed.Close)
	open := httptest.NewServer(s.g.HTTPHandler())
	t.Cleanup(open.Close)
	return &policyGateway{started: s, authURL: authed.URL, openURL: open.URL, path: path}
}

// searchPaths runs search_tools and returns the paths found, failing on an
// error result.
func searchPaths(t testing.TB, cs *mcp.ClientSession, args map[string]any) ([]string, hashes) {
	t.Helper()
	_, paths, h := search(t, cs, args)
	return paths, h
}

// Each client sees, inspects and calls only what its rule lets it: search
// answers hold up to limit visible tools (the engine ranks the visible ones
// only), and inspect_tool and call_tool refuse a hidden tool with the typed
// policy_denied, which never reaches the server.
func TestPolicyFiltersSearchInspectAndCall(t *testing.T) {
	pg := startPolicyGateway(t, testPolicy)
	anonymous := httpClient(t, pg.openURL, "")
	alice := httpClient(t, pg.authURL, "alice-token")
	bob := httpClient(t, pg.authURL, "bob-token")
	carol := httpClient(t, pg.authURL, "carol-token")

	// The anonymous rule is unset: everything, as without a policy.
	all, h := searchPaths(t, anonymous, map[string]any{"query": "the server process", "limit": 20})
	require.Subset(t, all, []string{"steady.crash", "steady.freeze"})
	everything, _ := searchPaths(t, anonymous, map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20})
	require.Len(t, everything, 6, "every tool of both servers: %v", everything)

	visible := map[string][]string{
		"alice": {"steady.echo", "steady.sleep"},
		"bob":   {"relay.alpha", "steady.echo", "steady.freeze", "steady.sleep"}, // wipe: steady has no allowDestructive; crash: denied
	}
	for name, cs := range map[string]*mcp.ClientSession{"alice": alice, "bob": bob} {
		got, _ := searchPaths(t, cs, map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20})
		require.ElementsMatch(t, visible[name], got, name)
		// Up to limit visible results, in the unfiltered answer's order:
		// the filter is the engine's, not a cut of its answer.
		var want []string
		for _, p := range everything {
			if slices.Contains(visible[name], p) {
				want = append(want, p)
			}
		}
		got, _ = searchPaths(t, cs, map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 2})
		require.Equal(t, want[:2], got, name)
	}

	// The caller's own filters narrow further, never widen.
	got, _ := searchPaths(t, alice, map[string]any{"query": "crash the server process", "effects": []string{"write"}})
	require.Empty(t, got, "alice may call no write tool")
	r := call(t, alice, "search_tools", map[string]any{"query": "send a signal", "servers": []string{"relay"}})
	require.Equal(t, "unknown_product", errorReason(t, r), "a hidden server is answered as one the catalog lacks")
	got, _ = searchPaths(t, bob, map[string]any{"query": "send a signal", "servers": []string{"relay"}})
	require.Equal(t, []string{"relay.alpha"}, got)

	// inspect and call, under the hashes of a search.
	_, h = searchPaths(t, alice, map[string]any{"query": "echo"})
	r = call(t, alice, "inspect_tool", h.args(map[string]any{"path": "steady.echo"}))
	require.False(t, r.IsError, text(t, r, 0))
	r = call(t, alice, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "hi"}}))
	require.Equal(t, "echo: hi", text(t, r, 0))
	for _, p := range []string{"steady.freeze", "steady.wipe", "relay.alpha"} {
		r = call(t, alice, "inspect_tool", h.args(map[string]any{"path": p}))
		require.Equal(t, "policy_denied", errorReason(t, r), p)
		r = call(t, alice, "call_tool", h.args(map[string]any{"path": p}))
		require.Equal(t, "policy_denied", errorReason(t, r), p)
	}
	// The model is told the path is not for it, never which server or rule
	// hides it; the operator's log says why.
	require.Contains(t, text(t, r, 0), `relay.alpha is not available to this client`)
	require.NotContains(t, text(t, r, 0), "alice")
	require.NotContains(t, text(t, r, 0), `server \"relay\"`)
	require.Contains(t, pg.log.String(), `server \"relay\" is not visible to client \"alice\"`)
	r = call(t, bob, "call_tool", h.args(map[string]any{"path": "steady.crash"}))
	require.Equal(t, "policy_denied", errorReason(t, r))
	require.NotContains(t, text(t, r, 0), "denied to client")
	require.Contains(t, pg.log.String(), "denied to client")
	r = call(t, bob, "call_tool", h.args(map[string]any{"path": "relay.alpha"}))
	require.Equal(t, "alpha done", text(t, r, 0))
	// The refused crash never reached the server: it still answers.
	r = call(t, bob, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "alive"}}))
	require.Equal(t, "echo: alive", text(t, r, 0))
	require.Contains(t, pg.log.String(), `msg="refused by policy" client=bob rule="client \"bob\"" tool=steady.crash`)

	// carol has no entry: the default rule, which sees nothing.
	r = call(t, carol, "search_tools", map[string]any{"query": "echo"})
	require.Equal(t, "catalog_empty", errorReason(t, r))
	r = call(t, carol, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "x"}}))
	require.Equal(t, "policy_denied", errorReason(t, r))

	// The stdio operator (an in-memory client: no HTTP request) has its
	// own rule: the relay only.
	got, _ = searchPaths(t, pg.client, map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20})
	require.Equal(t, []string{"relay.alpha"}, got)
}

// A hidden tool does not exist for the client: a search that names it
// exactly (its canonical path, its bare name, the path with spaces, in
// full-width letters, or in a subquery) is answered as an ordinary query
// over the visible tools, and nothing the gateway answers (the JSON beyond
// the request it echoes, or the text rendering) names it. Before the
// policy went into the request's scope, the engine's exact guard answered
// {"exact_filtered":{"canonical_path":"steady.crash","reason":"excluded"}}
// and a subquery naming it emptied the whole answer.
func TestPolicyHidesExactNames(t *testing.T) {
	pg := startPolicyGateway(t, testPolicy)
	alice := httpClient(t, pg.authURL, "alice-token")
	hidden := []string{"steady.crash", "steady.freeze", "steady.wipe", "relay.alpha"}
	visible := []string{"steady.echo", "steady.sleep"}
	fullWidth := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r + 0xFEE0) // ASCII letters and '.' only here
		}
		return b.String()
	}
	var requests []map[string]any
	for _, path := range hidden {
		_, name, _ := strings.Cut(path, ".")
		for _, q := range []string{path, name, strings.ReplaceAll(path, ".", " "), fullWidth(path), fullWidth(name)} {
			requests = append(requests, map[string]any{"query": q})
		}
		requests = append(requests,
			map[string]any{"subqueries": []string{path, "echo a message"}},
			map[string]any{"subqueries": []string{name, "steady.sleep"}},
			// The client's own filters keep their meaning inside its view.
			map[string]any{"query": path, "effects": []string{"read"}, "servers": []string{"steady"}})
	}
	for _, args := range requests {
		r := call(t, alice, "search_tools", args)
		require.False(t, r.IsError, "%v: %s", args, text(t, r, 0))
		answer, rendering := text(t, r, 0), text(t, r, 1)
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(answer), &fields))
		require.NotContains(t, answer, `"exact_filtered"`, "%v", args)
		delete(fields, "query") // the client's own words, echoed
		delete(fields, "subqueries")
		told, err := json.Marshal(fields)
		require.NoError(t, err)
		for _, path := range hidden {
			_, name, _ := strings.Cut(path, ".")
			for _, said := range []string{string(told), rendering} {
				require.NotContains(t, said, path, "%v", args)
				require.NotContains(t, strings.ToLower(said), name, "%v", args)
			}
		}
		_, got, _ := search(t, alice, args)
		for _, p := range got {
			require.Contains(t, visible, p, "%v", args)
		}
		if _, ok := args["subqueries"]; ok {
			require.NotEmpty(t, got, "%v: the visible part of the workflow is still answered", args)
		}
	}
	// A visible tool is still found by its name, and one the client's own
	// filter leaves out is still reported as filtered: that is its business.
	_, got, _ := search(t, alice, map[string]any{"query": "echo"})
	require.Equal(t, []string{"steady.echo"}, got)
	answer, got, _ := search(t, alice, map[string]any{"query": "steady.echo", "effects": []string{"write"}})
	require.Empty(t, got)
	require.Contains(t, answer, `"exact_filtered":{"canonical_path":"steady.echo","reason":"effect_mismatch"}`)
}

// A policy change is picked up without a restart: a good file swaps in
// (on a change of its bytes, or on the reload signal), a bad one is
// refused with the reason logged and the policy serving kept.
func TestPolicyReload(t *testing.T) {
	pg := startPolicyGateway(t, `{"clients": {"alice": {"servers": {"steady": {"effects": "read"}}}}}`)
	relayURL := func() string {
		cfg, err := gateway.LoadConfig(pg.path)
		require.NoError(t, err)
		for _, s := range cfg.Servers {
			if s.Name == "relay" {
				return s.URL
			}
		}
		t.Fatal("no relay")
		return ""
	}()
	hup := make(chan os.Signal, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { pg.g.WatchConfig(ctx, pg.path, 20*time.Millisecond, hup); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	alice := httpClient(t, pg.authURL, "alice-token")
	_, h := searchPaths(t, alice, map[string]any{"query": "echo"})
	callAlpha := func() *mcp.CallToolResult {
		return call(t, alice, "call_tool", h.args(map[string]any{"path": "relay.alpha"}))
	}
	require.Equal(t, "policy_denied", errorReason(t, callAlpha()))

	write := func(policy string) {
		require.NoError(t, os.WriteFile(pg.path, []byte(policyConfig(relayURL, policy)), 0o644))
	}
	// A good change swaps in.
	write(`{"clients": {"alice": {"servers": {"steady": {"effects": "read"}, "relay": {"effects": "write"}}}}}`)
	eventually(t, 10*time.Second, "the new policy lets alice call relay.alpha", func() bool { return !callAlpha().IsError })

	// Bad ones are refused, and the policy serving stays.
	for i, bad := range []string{
		`{"clients": {"alice": {"servers": {"nosuch": {}}}}}`,
		`{"clients": {"alice": {"servers": {"relay": {"effect": "read"}}}}}`,
		`{"clients": {"alice": {"servers": {"relay": {"effects": "everything"}}}}}`,
		`{"clients": {"alice": {"servers": {"relay": {"tools": ["["]}}}}}`,
	} {
		write(bad)
		eventually(t, 10*time.Second, "the bad config is refused", func() bool {
			return strings.Count(pg.log.String(), "config reload refused") > i
		})
		r := callAlpha()
		require.False(t, r.IsError, "bad config %d: %s", i, text(t, r, 0))
	}
	require.NoError(t, os.WriteFile(pg.path, []byte(`{"mcpServers": `), 0o644))
	eventually(t, 10*time.Second, "a file that is not JSON is refused", func() bool {
		return strings.Count(pg.log.String(), "config reload refused") > 4
	})
	require.False(t, callAlpha().IsError)

	// A change to the servers is reported; it waits for a restart, while
	// the file's policy is applied.
	require.NoError(t, os.WriteFile(pg.path, []byte(policyConfig("http://127.0.0.1:1/",
		`{"clients": {"alice": {"servers": {"steady": {"effects": "read"}, "relay": {"effects": "write"}}}}}`)), 0o644))
	eventually(t, 10*time.Second, "the server change is reported", func() bool {
		return strings.Contains(pg.log.String(), "the servers changed; that takes effect when the gateway restarts")
	})
	require.False(t, callAlpha().IsError, "the relay serves from where it was started")

	// The signal reloads at once, even with the file unchanged since the
	// last read: stop the watcher's polling and use the signal alone.
	cancel()
	<-done
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan struct{})
	go func() { pg.g.WatchConfig(ctx2, pg.path, 0, hup); close(done2) }()
	t.Cleanup(func() { cancel2(); <-done2 })
	write(`{"clients": {"alice": {"servers": {"steady": {}}}}}`)
	time.Sleep(100 * time.Millisecond)
	require.False(t, callAlpha().IsError, "without the signal nothing is reloaded")
	hup <- os.Interrupt
	eventually(t, 10*time.Second, "the signal reloads the policy", func() bool {
		r := callAlpha()
		return r.IsError && strings.Contains(text(t, r, 0), `"reason":"policy_denied"`)
	})
}

// Config keys of the policy are checked when the file loads.
func TestPolicyConfigErrors(t *testing.T) {
	for name, policy := range map[string]string{
		"unknown server":    `{"clients": {"a": {"servers": {"nosuch": {}}}}}`,
		"unknown key":       `{"client": {}}`,
		"unknown rule key":  `{"default": {"server": {}}}`,
		"bad effect":        `{"default": {"servers": {"relay": {"effects": "all"}}}}`,
		"bad glob":          `{"default": {"servers": {"relay": {"denyTools": ["a["]}}}}`,
		"empty tools":       `{"default": {"servers": {"relay": {"tools": []}}}}`,
		"empty client name": `{"clients": {"": {}}}`,
		"scope with spaces": `{"scopes": {"read write": {}}}`,
		"bad scope rule":    `{"scopes": {"read": {"servers": {"relay": {"effects": "none"}}}}}`,
	} {
		_, err := gateway.ParseConfig([]byte(policyConfig("http://127.0.0.1:1/", policy)))
		var ce *gateway.ConfigError
		require.ErrorAs(t, err, &ce, name)
	}
	cfg, err := gateway.ParseConfig([]byte(policyConfig("http://127.0.0.1:1/", `{"clients": {"a": {"servers": {"*": {"effects": "write", "tools": ["get_*"]}}}}}`)))
	require.NoError(t, err)
	require.True(t, cfg.Policy.Restricts())
	cfg, err = gateway.ParseConfig([]byte(`{"mcpServers": {"x": {"command": "x"}}}`))
	require.NoError(t, err)
	require.False(t, cfg.Policy.Restricts(), "no policy key: everything, as before")
}

// Policy swaps under load (run by make race): while the policy flips
// between two rules for alice, every search answers exactly one rule's
// view, never a mix, and every call is either served or policy_denied.
func TestConcurrentPolicySwaps(t *testing.T) {
	steadyOnly := `{"clients": {"alice": {"servers": {"steady": {"effects": "read"}}}}}`
	relayOnly := `{"clients": {"alice": {"servers": {"relay": {"effects": "write"}}}}}`
	pg := startPolicyGateway(t, steadyOnly)
	var policies []*gateway.Policy
	for _, p := range []string{steadyOnly, relayOnly} {
		cfg, err := gateway.ParseConfig([]byte(policyConfig("http://127.0.0.1:1/", p)))
		require.NoError(t, err)
		policies = append(policies, cfg.Policy)
	}
	views := [][]string{{"steady.echo", "steady.sleep"}, {"relay.alpha"}}

	stop := make(chan struct{})
	swapped := make(chan int)
	errs := make(chan error, 64)
	go func() {
		n := 0
		defer func() { swapped <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			pg.g.SetPolicy(policies[n%2])
			n++
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		cs := httpClient(t, pg.authURL, "alice-token")
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := 0; i < 25; i++ {
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20}})
				if err != nil {
					errs <- err
					return
				}
				var a searchAnswer
				if r.IsError || json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &a) != nil {
					errs <- fmt.Errorf("search failed: %v", r.Content)
					return
				}
				var got []string
				for _, c := range a.Candidates {
					got = append(got, c.CanonicalPath)
				}
				slices.Sort(got)
				if !slices.Equal(got, views[0]) && !slices.Equal(got, views[1]) {
					errs <- fmt.Errorf("a search saw %v: neither rule's view", got)
					return
				}
				r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{
					"path": "relay.alpha", "source_hash": a.Catalog.SourceHash, "surface_hash": a.Catalog.SurfaceHash}})
				if err != nil {
					errs <- err
					return
				}
				body := r.Content[0].(*mcp.TextContent).Text
				if body != "alpha done" && !strings.Contains(body, `"reason":"policy_denied"`) {
					errs <- fmt.Errorf("call answered %s", body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	require.Greater(t, <-swapped, 10, "the policy swapped while the clients ran")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A shadowing flag names the other servers' tools of the same name: a
// client whose rule hides one of them does not read its path there.
func TestPolicyShadowNotesNameVisibleToolsOnly(t *testing.T) {
	self, _ := json.Marshal(os.Args[0])
	path := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{"mcpServers": {
  "steady": {"command": %s, "env": {"TOOLSIFT_GATEWAY_TEST_SERVER": "steady"}},
  "copy":   {"command": %s, "env": {"TOOLSIFT_GATEWAY_TEST_SERVER": "steady"}}
}, "policy": {"clients": {"alice": {"servers": {"copy": {}}}, "bob": {"servers": {"*": {}}}}}}`, self, self)), 0o644))
	cfg, err := gateway.LoadConfig(path)
	require.NoError(t, err)
	s := startGatewayConfig(t, cfg, gateway.Options{Timeout: 10 * time.Second})
	authed := httptest.NewServer(auth.RequireBearerToken(testVerifier, nil)(s.g.HTTPHandler()))
	t.Cleanup(authed.Close)

	rendering := func(cs *mcp.ClientSession) string {
		r := call(t, cs, "search_tools", map[string]any{"query": "echo a message back", "limit": 3})
		require.False(t, r.IsError, text(t, r, 0))
		return text(t, r, 1)
	}
	all := rendering(s.client) // the stdio rule: everything
	require.Contains(t, all, "steady.echo")
	require.Contains(t, all, "copy.echo")
	require.Contains(t, all, "SHADOWS")

	alice := rendering(httpClient(t, authed.URL, "alice-token"))
	require.Contains(t, alice, "copy.echo")
	require.NotContains(t, alice, "steady", "alice's rule hides the steady server: %s", alice)

	bob := rendering(httpClient(t, authed.URL, "bob-token"))
	require.Contains(t, bob, "SHADOWS", "bob sees both: the whole flag")
	require.Contains(t, bob, "steady.echo")
}

// catalog_empty names every server's state: a client whose rule hides
// some servers gets it without their names.
func TestPolicyCatalogEmptyHidesServerNames(t *testing.T) {
	self, _ := json.Marshal(os.Args[0])
	path := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{"mcpServers": {
  "secret-backend": {"command": %s, "env": {"TOOLSIFT_GATEWAY_TEST_SERVER": "hang-init"}}
}, "policy": {"clients": {"alice": {"servers": {}}}}}`, self)), 0o644))
	cfg, err := gateway.LoadConfig(path)
	require.NoError(t, err)
	s := startGatewayConfig(t, cfg, gateway.Options{Timeout: 5 * time.Second, StartupWait: 100 * time.Millisecond})
	authed := httptest.NewServer(auth.RequireBearerToken(testVerifier, nil)(s.g.HTTPHandler()))
	t.Cleanup(authed.Close)

	r := call(t, s.client, "search_tools", map[string]any{"query": "anything"})
	require.Equal(t, "catalog_empty", errorReason(t, r))
	require.Contains(t, text(t, r, 0), "secret-backend", "the operator's rule sees everything")
	alice := httpClient(t, authed.URL, "alice-token")
	ref := map[string]any{"path": "secret-backend.x", "source_hash": "sha256:0", "surface_hash": "sha256:0"}
	for tool, args := range map[string]map[string]any{"search_tools": {"query": "anything"}, "inspect_tool": ref, "call_tool": ref} {
		r = call(t, alice, tool, args)
		require.Equal(t, "catalog_empty", errorReason(t, r), tool)
		require.NotContains(t, text(t, r, 0), "secret", tool)
	}
}

// A client without its own entry is given the rules of its token's
// scopes, the union of several; an entry of its own comes first, and a
// token whose scopes name no rule gets the default rule.
func TestPolicyByScopes(t *testing.T) {
	pg := startPolicyGateway(t, `{
  "clients": {"erin": {"servers": {"steady": {"effects": "read", "tools": ["echo"]}}}},
  "scopes": {"steady-read": {"servers": {"steady": {"effects": "read"}}}, "relay-write": {"servers": {"relay": {"effects": "write"}}}},
  "default": {"servers": {}}
}`)
	query := map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20}
	got, h := searchPaths(t, httpClient(t, pg.authURL, "dave-token"), query)
	require.ElementsMatch(t, []string{"relay.alpha", "steady.echo", "steady.sleep"}, got, "dave: both scopes' rules")
	dave := httpClient(t, pg.authURL, "dave-token")
	r := call(t, dave, "call_tool", h.args(map[string]any{"path": "relay.alpha"}))
	require.Equal(t, "alpha done", text(t, r, 0))
	r = call(t, dave, "call_tool", h.args(map[string]any{"path": "steady.freeze"}))
	require.Equal(t, "policy_denied", errorReason(t, r))
	require.NotContains(t, text(t, r, 0), "scopes", "the rule is the operator's to read")
	require.Contains(t, pg.log.String(), `none of the rules of scopes \"relay-write\", \"steady-read\"`)

	got, _ = searchPaths(t, httpClient(t, pg.authURL, "erin-token"), query)
	require.Equal(t, []string{"steady.echo"}, got, "erin's own entry, not her scope's")
	r = call(t, httpClient(t, pg.authURL, "carol-token"), "search_tools", query)
	require.Equal(t, "catalog_empty", errorReason(t, r), "carol's scope names no rule: the default")
}

// --expose found adds found tools to one tools/list that every session
// shares: each client is listed, and may call directly, only those its
// rule shows.
func TestPolicyFiltersExposedTools(t *testing.T) {
	pg := startPolicyGatewayWith(t, testPolicy, gateway.Options{Timeout: 10 * time.Second, ExposeFound: true})
	anonymous := httpClient(t, pg.openURL, "")
	alice := httpClient(t, pg.authURL, "alice-token")
	found, _ := searchPaths(t, anonymous, map[string]any{"query": "send echo signal sleep wipe crash freeze records", "limit": 20})
	require.Len(t, found, 6)
	listed := func(cs *mcp.ClientSession) []string {
		var names []string
		for tool, err := range cs.Tools(context.Background(), nil) {
			require.NoError(t, err)
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}
	eventually(t, 10*time.Second, "the found tools are exposed", func() bool { return len(listed(anonymous)) == 3+6 })
	require.Equal(t, []string{"call_tool", "inspect_tool", "search_tools", "steady.echo", "steady.sleep"}, listed(alice))

	r := call(t, alice, "steady.echo", map[string]any{"message": "direct"})
	require.Equal(t, "echo: direct", text(t, r, 0))
	r = call(t, alice, "relay.alpha", nil)
	require.Equal(t, "policy_denied", errorReason(t, r), "a direct call of a tool alice is not listed")
	r = call(t, anonymous, "relay.alpha", nil)
	require.Equal(t, "alpha done", text(t, r, 0))
}

// An HTTP endpoint made without authentication cannot start requiring it
// in place: a reload that adds an "auth" block is refused (the operator is
// told a restart is needed) and changes nothing, the policy included.
func TestReloadCannotTurnAuthenticationOn(t *testing.T) {
	pg := startPolicyGateway(t, `{"clients": {"alice": {"servers": {"steady": {"effects": "read"}}}}}`)
	data, err := os.ReadFile(pg.path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	doc["policy"] = map[string]any{"default": map[string]any{}}
	doc["auth"] = map[string]any{"tokens": map[string]any{"ci": map[string]any{"sha256": strings.Repeat("ab", 32)}}}
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pg.path, data, 0o644))
	_, err = pg.g.ReloadConfig(pg.path)
	require.ErrorContains(t, err, "needs a restart")

	alice := httpClient(t, pg.authURL, "alice-token")
	got, _ := searchPaths(t, alice, map[string]any{"query": "echo"})
	require.Contains(t, got, "steady.echo", "the policy serving is kept")
}
