package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/hostapi"
	"github.com/toolsift/toolsift/internal/testskip"
)

// childEnv names the kind of MCP server this test binary runs as when the
// gateway starts it as a child (see runChildServer).
const childEnv = "TOOLSIFT_GATEWAY_TEST_SERVER"

func TestMain(m *testing.M) {
	if kind := os.Getenv(childEnv); kind != "" {
		os.Exit(runChildServer(kind))
	}
	os.Exit(m.Run())
}

// runChildServer is a small real MCP server over stdio, started by the
// gateway as a child process:
//
//	steady     echo (read), wipe (no annotations: destructive), sleep (read,
//	           never answers), crash (write: the process exits at once),
//	           freeze (write: the process stops itself with SIGSTOP)
//	hang-init  never answers initialize (exits when its stdin closes)
func runChildServer(kind string) int {
	fmt.Fprintln(os.Stderr, "child server starting:", kind)
	switch kind {
	case "hang-init":
		_, _ = bytes.NewBuffer(nil).ReadFrom(os.Stdin)
		return 0
	case "hostile":
		return runHostileServer()
	case "steady":
	default:
		fmt.Fprintln(os.Stderr, "unknown kind", kind)
		return 2
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "steady", Version: "1"}, nil)
	type echoIn struct {
		Message string `json:"message" jsonschema:"the text to send back"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a message back unchanged",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wipe", Description: "Wipe every record from the store"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep without ever answering",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "freeze", Description: "Stop the server process (SIGSTOP): alive, but it answers nothing",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false)}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			stopSelf()
			<-ctx.Done() // the stop is asynchronous: never answer meanwhile
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Crash the server process",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false)}},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "child server:", err)
	}
	return 0
}

func ptr[T any](v T) *T { return &v }

// childServer is the config of a child server of the given kind.
func childServer(name, kind string) gateway.ServerConfig {
	return gateway.ServerConfig{Name: name, Command: os.Args[0], Env: map[string]string{childEnv: kind}}
}

// npmServers is the config of the two npm servers (installed by `npm ci`
// in examples/mcp), the filesystem server over root. Without node or the
// packages the test is skipped (and the skip recorded), or fails under
// CI=true: testskip.Missing.
func npmServers(t testing.TB, root string) []gateway.ServerConfig {
	t.Helper()
	modules, err := filepath.Abs("../examples/mcp/node_modules/@modelcontextprotocol")
	require.NoError(t, err)
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(modules, "server-filesystem", "dist", "index.js")); err != nil {
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

// syncBuffer is a log sink the gateway writes from many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// started is a running gateway with an SDK client connected to it in
// memory.
type started struct {
	g      *gateway.Gateway
	client *mcp.ClientSession
	log    *syncBuffer
}

func startGateway(t testing.TB, servers []gateway.ServerConfig, opts gateway.Options) *started {
	t.Helper()
	return startGatewayConfig(t, &gateway.Config{Servers: servers}, opts)
}

func startGatewayConfig(t testing.TB, cfg *gateway.Config, opts gateway.Options) *started {
	t.Helper()
	log := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	opts.HostOptions = append(opts.HostOptions, sharedCompilationCache(t)...)
	g := gateway.New(cfg, opts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, g.Start(ctx))
	t.Cleanup(g.Close)
	client := connect(t, g, nil)
	return &started{g: g, client: client, log: log}
}

// sharedCompilationCache is wasmhost's default cache of compiled module
// code: a run after the first (and every run under the race detector,
// where compiling the module takes most of a minute) skips the compile.
func sharedCompilationCache(t testing.TB) []hostapi.Option {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "toolsift", "wazero"))
	if err != nil {
		return nil
	}
	t.Cleanup(func() { _ = cache.Close(context.Background()) })
	return []hostapi.Option{hostapi.WithCompilationCache(cache)}
}

// connect is an SDK client of g's upstream surface over in-memory
// transports.
func connect(t testing.TB, g *gateway.Gateway, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := g.Server().Connect(ctx, serverEnd, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, clientEnd, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// call calls one gateway tool and returns its result.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	result, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return result
}

func text(t testing.TB, r *mcp.CallToolResult, i int) string {
	t.Helper()
	require.Greater(t, len(r.Content), i, "content %d of %v", i, r.Content)
	tc, ok := r.Content[i].(*mcp.TextContent)
	require.True(t, ok, "content %d is %T", i, r.Content[i])
	return tc.Text
}

// hashes are the catalog hashes of a tool-search.v1 answer.
type hashes struct{ source, surface string }

type searchAnswer struct {
	Catalog struct {
		SourceHash  string `json:"source_hash"`
		SurfaceHash string `json:"surface_hash"`
	} `json:"catalog"`
	Candidates []struct {
		CanonicalPath string `json:"canonical_path"`
		Effect        string `json:"effect"`
	} `json:"candidates"`
}

// search runs search_tools and returns the answer bytes, the paths found
// and the hashes.
func search(t testing.TB, cs *mcp.ClientSession, args map[string]any) (string, []string, hashes) {
	t.Helper()
	r := call(t, cs, "search_tools", args)
	require.False(t, r.IsError, "search_tools failed: %s", text(t, r, 0))
	answer := text(t, r, 0)
	var a searchAnswer
	require.NoError(t, json.Unmarshal([]byte(answer), &a))
	var paths []string
	for _, c := range a.Candidates {
		paths = append(paths, c.CanonicalPath)
	}
	return answer, paths, hashes{a.Catalog.SourceHash, a.Catalog.SurfaceHash}
}

func (h hashes) args(extra map[string]any) map[string]any {
	out := map[string]any{"source_hash": h.source, "surface_hash": h.surface}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// errorReason is the reason of an isError result's {"error":{…}}.
func errorReason(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	require.True(t, r.IsError, "want an error, got %s", text(t, r, 0))
	var doc struct {
		Error struct {
			Reason string `json:"reason"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(text(t, r, 0)), &doc))
	return doc.Error.Reason
}

// eventually polls cond until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var _ = strings.Contains
