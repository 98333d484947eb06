//go:build unix

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir and
// returns a pool that trusts it.
func selfSigned(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gateway test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls", "crt.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls", "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// wasmhost mcp with a static token from the environment, TLS from the
// config and an operations address: a client with the token is served
// over HTTPS, one without is refused, the operations address answers
// probes and scrapes, each call_tool is in the audit file, and SIGTERM
// drains and exits 0.
func TestMCPListenWithAuthAndTLS(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	require.NoError(t, os.WriteFile(file, []byte("over https\n"), 0o644))
	fs := npmServerConfigs(t, root)[1]
	dir := t.TempDir()
	pool := selfSigned(t, dir)
	const token = "the-ci-client-token-0123456789abcdef"
	t.Setenv("WASMHOST_TEST_TOKEN", token)
	config := filepath.Join(dir, "servers.json")
	audit := filepath.Join(dir, "audit.log")
	data, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{fs.Name: map[string]any{"command": fs.Command, "args": fs.Args}},
		"auth":       map[string]any{"tokens": map[string]any{"ci": map[string]any{"env": "WASMHOST_TEST_TOKEN"}}},
		"tls":        map[string]any{"cert": "tls/crt.pem", "key": "tls/key.pem"},
		"audit":      map[string]any{"file": audit},
	})
	require.NoError(t, os.WriteFile(config, data, 0o644))

	var stderr lockedBuffer
	exited := make(chan int, 1)
	go func() {
		exited <- runMCP([]string{"--config", config, "--listen", "127.0.0.1:0", "--ops-listen", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	var url, ops string
	deadline := time.Now().Add(30 * time.Second)
	for (url == "" || ops == "") && time.Now().Before(deadline) {
		if _, rest, ok := strings.Cut(stderr.String(), "serving streamable HTTP on "); ok {
			url, _, _ = strings.Cut(rest, "\n")
		}
		if _, rest, ok := strings.Cut(stderr.String(), "serving /healthz, /readyz and /metrics on "); ok {
			ops, _, _ = strings.Cut(rest, "\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), "address in %q", stderr.String())
	tlsTransport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tlsTransport.CloseIdleConnections()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "https", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token, tlsTransport}}}, nil)
	require.NoError(t, err)
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "read a text file"}})
	require.NoError(t, err)
	var answer searchAnswerHashes
	require.NoError(t, json.Unmarshal([]byte(r.Content[0].(*mcp.TextContent).Text), &answer))
	r, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"path": "filesystem.read_text_file",
		"arguments": map[string]any{"path": file}, "source_hash": answer.Catalog.SourceHash, "surface_hash": answer.Catalog.SurfaceHash}})
	require.NoError(t, err)
	require.Equal(t, "over https\n", r.Content[0].(*mcp.TextContent).Text)
	cs.Close()

	resp, err := (&http.Client{Transport: tlsTransport}).Post(url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, `Bearer realm="toolsift"`, resp.Header.Get("WWW-Authenticate"))
	resp, err = (&http.Client{Transport: bearerTransport{"wrong-token", tlsTransport}}).Post(url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, `Bearer error="invalid_token"`, resp.Header.Get("WWW-Authenticate"))

	for path, want := range map[string]string{"/readyz": "ready", "/metrics": `toolsift_gateway_tool_calls_total{outcome="ok",tool="call_tool"} 1`} {
		resp, err := http.Get(ops + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		require.Contains(t, string(body), want, path)
	}

	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-exited:
		require.Equal(t, 0, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("wasmhost mcp --listen did not stop on SIGTERM")
	}
	lines, err := os.ReadFile(audit)
	require.NoError(t, err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(lines, &line), "one line: %s", lines)
	require.Equal(t, "call_tool", line["msg"])
	require.Equal(t, "ci", line["client"])
	require.Equal(t, "static", line["auth"])
	require.Equal(t, "filesystem.read_text_file", line["tool"])
	require.Equal(t, "ok", line["outcome"])
	require.NotContains(t, line, "arguments")
}
