package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// The whole MCP authorization flow with the Go SDK's own OAuth client
// (client credentials, extauth.ClientCredentialsHandler): the client's
// first request gets 401; from its WWW-Authenticate it reads the gateway's
// protected-resource metadata, from that the authorization server's
// metadata (RFC 8414), asks the issuer's token endpoint for a token with
// the scopes the metadata names, and retries with it. Nothing in the
// client is told where the issuer is.
func TestSDKClientAuthorizesThroughTheMetadata(t *testing.T) {
	is := newIssuer(t, "k1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	resource := "http://" + ln.Addr().String() + "/mcp"

	// The issuer's authorization-server metadata and token endpoint.
	const clientID, secret = "svc-reporting", "svc-secret"
	var tokens atomic.Int32
	as := http.NewServeMux()
	as.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.url(), "token_endpoint": is.url() + "/token", "jwks_uri": is.jwksURL(),
			"authorization_endpoint": is.url() + "/authorize", "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"client_credentials"}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
		})
	})
	as.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, pw, ok := r.BasicAuth()
		if !ok || id != clientID || pw != secret || r.FormValue("grant_type") != "client_credentials" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		tokens.Add(1)
		claims := is.claims(resource)
		claims["sub"], claims["scope"], claims["client_id"] = clientID, r.FormValue("scope"), clientID
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": is.sign(t, "k1", claims), "token_type": "Bearer", "expires_in": 300})
	})
	jwks := is.srv.Config.Handler
	is.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/jwks.json" {
			jwks.ServeHTTP(w, r)
			return
		}
		as.ServeHTTP(w, r)
	})

	cfg, err := gateway.ParseConfig(fmt.Appendf(nil, `{"mcpServers": {"steady": {"command": %q, "env": {%q: "steady"}}},
	  "auth": {"oauth": {"resource": %q, "issuer": %q, "jwksUrl": %q, "scopes": ["mcp:tools"]}}}`,
		os.Args[0], "TOOLSIFT_GATEWAY_TEST_SERVER", resource, is.url(), is.jwksURL()))
	require.NoError(t, err)
	audit := &syncBuffer{}
	s := startGatewayConfig(t, cfg, gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(audit, nil))})
	authn, err := gateway.NewAuthenticator(cfg.Auth, nil)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(s.g.HTTPHandlerWith(gateway.HTTPOptions{Auth: authn}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)

	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: clientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauth-flow", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: handler}, nil)
	require.NoError(t, err)
	defer cs.Close()
	_, _, h := search(t, cs, map[string]any{"query": "echo a message"})
	r := call(t, cs, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "hi"}}))
	require.False(t, r.IsError, text(t, r, 0))
	require.Equal(t, int32(1), tokens.Load(), "one token, asked for once")
	line := auditLine(t, audit, "steady.echo")
	require.Equal(t, clientID, line["client"])
	require.Equal(t, "oauth", line["auth"])

	// A client with wrong credentials gets no token, and no session.
	bad, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: clientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "wrong"}},
	})
	require.NoError(t, err)
	_, err = mcp.NewClient(&mcp.Implementation{Name: "oauth-flow", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: bad}, nil)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "invalid_client") || strings.Contains(err.Error(), "401"), err.Error())
}
