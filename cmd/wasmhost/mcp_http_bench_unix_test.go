//go:build unix

package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestMCPHTTPLatency measures search_tools through a built wasmhost mcp
// over streamable HTTP on loopback, three ways in the same run: without
// authentication (the loopback figure), with a static bearer token, and
// over HTTPS with an OAuth JWT (ES256, checked against an in-process
// issuer's JWKS). The calls go round the three in turn, so that the
// machine's load falls on them alike. It runs only with
// TOOLSIFT_MCP_BENCH=N (N calls each); docs/BENCHMARKS.md has its figures.
func TestMCPHTTPLatency(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TOOLSIFT_MCP_BENCH"))
	if n <= 0 {
		t.Skip("set TOOLSIFT_MCP_BENCH=N to measure")
	}
	root := t.TempDir()
	servers := npmServerConfigs(t, root)
	dir := t.TempDir()
	bin := filepath.Join(dir, "wasmhost")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	pool := selfSigned(t, dir)

	// The issuer: one ES256 key, its JWKS on loopback.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	const resource = "https://127.0.0.1/"
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, nil)
	require.NoError(t, err)
	jwtToken, err := jwt.Signed(signer).Claims(map[string]any{"iss": jwks.URL, "aud": resource, "sub": "bench",
		"scope": "mcp:tools", "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	require.NoError(t, err)
	const static = "a-static-token-for-the-benchmark-0123"
	sum := sha256.Sum256([]byte(static))

	entries := map[string]any{}
	for _, s := range servers {
		entries[s.Name] = map[string]any{"command": s.Command, "args": s.Args}
	}
	write := func(name string, doc map[string]any) string {
		doc["mcpServers"] = entries
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	cache := filepath.Join(dir, "cache")
	start := func(config string) string {
		cmd := exec.Command(bin, "mcp", "--config", config, "--listen", "127.0.0.1:0", "--cache-dir", cache)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if _, url, ok := strings.Cut(lines.Text(), "serving streamable HTTP on "); ok {
				go func() {
					for lines.Scan() { // keep the pipe drained
					}
				}()
				return url
			}
		}
		t.Fatal("no address printed")
		return ""
	}
	plainURL := start(write("plain.json", map[string]any{}))
	staticURL := start(write("static.json", map[string]any{"auth": map[string]any{"tokens": map[string]any{"bench": map[string]any{"sha256": hex.EncodeToString(sum[:])}}}}))
	oauthURL := start(write("oauth.json", map[string]any{
		"auth": map[string]any{"oauth": map[string]any{"resource": resource, "issuer": jwks.URL, "jwksUrl": jwks.URL, "scopes": []string{"mcp:tools"}}},
		"tls":  map[string]any{"cert": "tls/crt.pem", "key": "tls/key.pem"},
	}))

	ctx := context.Background()
	connect := func(url string, rt http.RoundTripper) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	tlsTransport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	kinds := []struct {
		name string
		cs   *mcp.ClientSession
	}{
		{"HTTP on loopback, no authentication", connect(plainURL, http.DefaultTransport)},
		{"HTTP on loopback, static bearer token", connect(staticURL, bearerTransport{static, http.DefaultTransport})},
		{"HTTPS, OAuth JWT (ES256) checked against the issuer's JWKS", connect(oauthURL, bearerTransport{jwtToken, tlsTransport})},
	}
	queries := []string{"read the contents of a text file", "add two numbers", "list a directory with sizes", "echo a message",
		"move or rename a file", "get a tiny image", "search files matching a pattern", "toggle simulated logging"}
	took := make([][]time.Duration, len(kinds))
	for i := -10; i < n; i++ { // ten rounds of warm-up
		for k, kind := range kinds {
			began := time.Now()
			r, err := kind.cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": queries[(i+10)%len(queries)]}})
			d := time.Since(began)
			require.NoError(t, err)
			require.False(t, r.IsError, kind.name)
			if i >= 0 {
				took[k] = append(took[k], d)
			}
		}
	}
	p50 := make([]time.Duration, len(kinds))
	for k, kind := range kinds {
		t.Logf("search_tools, %s, %d calls: %s", kind.name, n, percentiles(took[k]))
		p50[k] = took[k][(len(took[k])-1)/2] // sorted by percentiles
	}
	for k := 1; k < len(kinds); k++ {
		t.Logf("p50 ratio, %s / %s: %.2f×", kinds[k].name, kinds[0].name, float64(p50[k])/float64(p50[0]))
	}
}
