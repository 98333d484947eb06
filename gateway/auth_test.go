package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// issuer is an OAuth authorization server in the test process: ES256 keys
// of its own, published as a JWKS over HTTP, and tokens signed with them.
type issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // every key it can sign with
	public  []string                     // the key IDs its JWKS publishes
	fetches atomic.Int32
}

func newIssuer(t *testing.T, kids ...string) *issuer {
	t.Helper()
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	for _, kid := range kids {
		is.addKey(t, kid, true)
	}
	is.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		is.fetches.Add(1)
		is.mu.Lock()
		var set jose.JSONWebKeySet
		for _, kid := range is.public {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: is.keys[kid].Public(), KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(is.srv.Close)
	return is
}

// addKey makes a signing key; published puts it in the JWKS.
func (is *issuer) addKey(t *testing.T, kid string, published bool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = key
	if published {
		is.public = append(is.public, kid)
	}
}

func (is *issuer) url() string     { return is.srv.URL }
func (is *issuer) jwksURL() string { return is.srv.URL + "/jwks.json" }

// claims are a valid token's claims for the gateway at resource; change
// them to make an invalid one.
func (is *issuer) claims(resource string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": is.url(), "aud": resource, "sub": "agent-7", "scope": "mcp:tools profile",
		"exp": now.Add(5 * time.Minute).Unix(), "nbf": now.Add(-time.Minute).Unix(), "iat": now.Unix(),
		"team": "search",
	}
}

// sign signs claims with the key kid (ES256).
func (is *issuer) sign(t *testing.T, kid string, claims map[string]any) string {
	t.Helper()
	is.mu.Lock()
	key := is.keys[kid]
	is.mu.Unlock()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	require.NoError(t, err)
	token, err := jwt.Signed(signer).Claims(claims).Serialize()
	require.NoError(t, err)
	return token
}

// unsigned is a token with header alg (none, or HS256 keyed with the
// bytes given), written by hand: no library makes such a token.
func unsigned(t *testing.T, header map[string]any, claims map[string]any, hmacKey []byte) string {
	t.Helper()
	h, err := json.Marshal(header)
	require.NoError(t, err)
	c, err := json.Marshal(claims)
	require.NoError(t, err)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	if hmacKey == nil {
		return input + "."
	}
	mac := hmac.New(sha256.New, hmacKey)
	mac.Write([]byte(input))
	return input + "." + enc.EncodeToString(mac.Sum(nil))
}

const testResource = "https://gateway.test/mcp"

// staticSecret is the token of the static client "ci"; its SHA-256 goes in
// the config.
const staticSecret = "s3cret-token-for-the-ci-client-0123456789"

// authGateway is a real gateway (one child server) behind a real HTTP
// server, with static tokens and OAuth configured.
type authGateway struct {
	*started
	srv   *httptest.Server
	is    *issuer
	audit *syncBuffer
	authn *gateway.Authenticator
	cfg   *gateway.Config
}

func startAuthGateway(t *testing.T, oauthExtra string) *authGateway {
	t.Helper()
	is := newIssuer(t, "k1")
	sum := sha256.Sum256([]byte(staticSecret))
	t.Setenv("TOOLSIFT_TEST_OPS_TOKEN", "env-token-for-the-ops-client-abcdef")
	config := fmt.Sprintf(`{
	  "mcpServers": {"steady": {"command": %q, "env": {%q: "steady"}, "allowDestructive": false}},
	  "auth": {
	    "tokens": {"ci": {"sha256": %q}, "ops": {"env": "TOOLSIFT_TEST_OPS_TOKEN", "scopes": ["ops"]}},
	    "oauth": {"resource": %q, "issuer": %q, "jwksUrl": %q, "scopes": ["mcp:tools"]%s}
	  },
	  "audit": {"logArguments": true}
	}`, os.Args[0], "TOOLSIFT_GATEWAY_TEST_SERVER", hex.EncodeToString(sum[:]), testResource, is.url(), is.jwksURL(), oauthExtra)
	cfg, err := gateway.ParseConfig([]byte(config))
	require.NoError(t, err)
	audit := &syncBuffer{}
	s := startGatewayConfig(t, cfg, gateway.Options{AuditLogger: slog.New(slog.NewJSONHandler(audit, nil))})
	authn, err := gateway.NewAuthenticator(cfg.Auth, nil)
	require.NoError(t, err)
	srv := httptest.NewServer(s.g.HTTPHandlerWith(gateway.HTTPOptions{Auth: authn}))
	t.Cleanup(srv.Close)
	return &authGateway{started: s, srv: srv, is: is, audit: audit, authn: authn, cfg: cfg}
}

// connectHTTP is the SDK's client over streamable HTTP with token.
func connectHTTP(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// rejected posts an initialize with the Authorization header given ("" for
// none) and returns the response, which must be a refusal.
func (a *authGateway) rejected(t *testing.T, authorization string, status int) *http.Response {
	t.Helper()
	resp, _ := a.rejectedBody(t, authorization, status)
	return resp
}

// rejectedBody is rejected, with the refusal's text.
func (a *authGateway) rejectedBody(t *testing.T, authorization string, status int) (*http.Response, string) {
	t.Helper()
	headers := map[string]string{}
	if authorization != "" {
		headers["Authorization"] = authorization
	}
	resp := post(t, a.srv.URL, initializeBody, headers)
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, status, resp.StatusCode, "body: %s", body)
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "no session for a refused request")
	return resp, string(body)
}

const metadataURL = "https://gateway.test/.well-known/oauth-protected-resource/mcp"

func TestHTTPAuthenticatesBearerTokens(t *testing.T) {
	a := startAuthGateway(t, `, "jwksRefreshSeconds": 0`)
	valid := a.is.claims(testResource)
	with := func(change func(map[string]any)) map[string]any {
		c := map[string]any{}
		for k, v := range valid {
			c[k] = v
		}
		change(c)
		return c
	}

	t.Run("valid JWT: a real client searches and calls, as its subject", func(t *testing.T) {
		cs, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", valid))
		require.NoError(t, err)
		_, paths, h := search(t, cs, map[string]any{"query": "echo a message"})
		require.Contains(t, paths, "steady.echo")
		r := call(t, cs, "call_tool", h.args(map[string]any{"path": "steady.echo", "arguments": map[string]any{"message": "hi"}}))
		require.False(t, r.IsError, text(t, r, 0))
		line := auditLine(t, a.audit, "steady.echo")
		require.Equal(t, "agent-7", line["client"], "the token's subject reaches the tool handler")
		require.Equal(t, "oauth", line["auth"])
		require.Equal(t, "ok", line["outcome"])
		require.Equal(t, h.source, line["source_hash"])
		require.Equal(t, map[string]any{"message": "hi"}, line["arguments"], `"logArguments": true`)
	})
	t.Run("static token right: a real client, named by the token's name", func(t *testing.T) {
		cs, err := connectHTTP(t, a.srv.URL, staticSecret)
		require.NoError(t, err)
		_, _, h := search(t, cs, map[string]any{"query": "wipe every record"})
		r := call(t, cs, "call_tool", h.args(map[string]any{"path": "steady.wipe"}))
		require.Equal(t, "destructive_not_allowed", errorReason(t, r))
		line := auditLine(t, a.audit, "steady.wipe")
		require.Equal(t, "ci", line["client"])
		require.Equal(t, "static", line["auth"])
		require.Equal(t, "destructive_not_allowed", line["outcome"])
	})
	t.Run("static token from the environment, without the required scope: 403", func(t *testing.T) {
		resp := a.rejected(t, "Bearer env-token-for-the-ops-client-abcdef", http.StatusForbidden)
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), `scope="mcp:tools"`)
	})
	t.Run("static token wrong", func(t *testing.T) {
		a.rejected(t, "Bearer "+staticSecret+"x", http.StatusUnauthorized)
		_, err := connectHTTP(t, a.srv.URL, "not-the-token")
		require.Error(t, err, "the SDK's client cannot initialize")
	})
	t.Run("missing header: 401 naming the resource metadata", func(t *testing.T) {
		resp := a.rejected(t, "", http.StatusUnauthorized)
		require.Equal(t, `Bearer resource_metadata="`+metadataURL+`", scope="mcp:tools"`, resp.Header.Get("WWW-Authenticate"),
			"no error code for a request without a token (RFC 6750 §3.1)")
		a.rejected(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("u:p")), http.StatusUnauthorized)
	})

	refused := []struct {
		name  string
		token func() string
		why   string // in the refusal's text: refused for this reason, not another
	}{
		{"expired", func() string {
			return a.is.sign(t, "k1", with(func(c map[string]any) { c["exp"] = time.Now().Add(-2 * time.Minute).Unix() }))
		}, "token is expired"},
		{"expired past the clock skew (31 s)", func() string {
			return a.is.sign(t, "k1", with(func(c map[string]any) { c["exp"] = time.Now().Add(-31 * time.Second).Unix() }))
		}, "token is expired"},
		{"not yet valid", func() string {
			return a.is.sign(t, "k1", with(func(c map[string]any) { c["nbf"] = time.Now().Add(2 * time.Minute).Unix() }))
		}, "not valid yet"},
		{"no exp", func() string { return a.is.sign(t, "k1", with(func(c map[string]any) { delete(c, "exp") })) }, "no \"exp\""},
		{"no sub", func() string { return a.is.sign(t, "k1", with(func(c map[string]any) { delete(c, "sub") })) }, "no \"sub\""},
		{"wrong audience", func() string {
			return a.is.sign(t, "k1", with(func(c map[string]any) { c["aud"] = "https://other.test/mcp" }))
		}, "invalid audience"},
		{"wrong issuer", func() string {
			return a.is.sign(t, "k1", with(func(c map[string]any) { c["iss"] = "https://evil.test/" }))
		}, "invalid issuer"},
		{"alg none", func() string {
			return unsigned(t, map[string]any{"alg": "none", "typ": "JWT", "kid": "k1"}, valid, nil)
		}, "unexpected signature algorithm"},
		{"alg HS256 keyed with the public key's bytes (algorithm confusion)", func() string {
			pub, err := json.Marshal(jose.JSONWebKey{Key: a.is.keys["k1"].Public(), KeyID: "k1"})
			require.NoError(t, err)
			return unsigned(t, map[string]any{"alg": "HS256", "typ": "JWT", "kid": "k1"}, valid, pub)
		}, "unexpected signature algorithm"},
		{"tampered signature", func() string {
			parts := strings.Split(a.is.sign(t, "k1", valid), ".")
			sig, err := base64.RawURLEncoding.DecodeString(parts[2])
			require.NoError(t, err)
			sig[len(sig)/2] ^= 0x01
			return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
		}, "signature:"},
		{"tampered claims (sub changed after signing)", func() string {
			parts := strings.Split(a.is.sign(t, "k1", valid), ".")
			claims, err := json.Marshal(with(func(c map[string]any) { c["sub"] = "admin" }))
			require.NoError(t, err)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(claims) + "." + parts[2]
		}, "signature:"},
		{"unknown kid (a key the issuer does not publish)", func() string {
			a.is.addKey(t, "rogue", false)
			return a.is.sign(t, "rogue", valid)
		}, "not in the issuer's key set"},
		{"signed by another key under a published kid", func() string {
			other := newIssuer(t, "k1")
			return other.sign(t, "k1", valid)
		}, "signature:"},
		{"not a JWT", func() string { return "abc.def" }, "compact JWS format"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := a.rejectedBody(t, "Bearer "+tc.token(), http.StatusUnauthorized)
			require.Contains(t, body, tc.why)
			require.Equal(t, `Bearer error="invalid_token", resource_metadata="`+metadataURL+`", scope="mcp:tools"`, resp.Header.Get("WWW-Authenticate"))
			_, err := connectHTTP(t, a.srv.URL, tc.token())
			require.Error(t, err)
		})
	}
	t.Run("within the clock skew", func(t *testing.T) {
		token := a.is.sign(t, "k1", with(func(c map[string]any) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() }))
		_, err := connectHTTP(t, a.srv.URL, token)
		require.NoError(t, err, "10 s past exp is within the 30 s skew")
	})
	t.Run("missing scope: 403 with the scope to ask for", func(t *testing.T) {
		token := a.is.sign(t, "k1", with(func(c map[string]any) { c["scope"] = "profile" }))
		resp := a.rejected(t, "Bearer "+token, http.StatusForbidden)
		require.Equal(t, `Bearer error="insufficient_scope", resource_metadata="`+metadataURL+`", scope="mcp:tools"`, resp.Header.Get("WWW-Authenticate"))
		token = a.is.sign(t, "k1", with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"mcp:tools"} }))
		_, err := connectHTTP(t, a.srv.URL, token)
		require.NoError(t, err, `the scopes may come as "scp"`)
	})
	t.Run("key rotation: a new published kid is fetched", func(t *testing.T) {
		a.is.addKey(t, "k2", true)
		_, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k2", valid))
		require.NoError(t, err)
	})
	t.Run("a token in a session cannot be swapped for another client's", func(t *testing.T) {
		resp := post(t, a.srv.URL, initializeBody, map[string]string{"Authorization": "Bearer " + staticSecret})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		id := resp.Header.Get("Mcp-Session-Id")
		resp = post(t, a.srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{
			"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18", "Authorization": "Bearer " + a.is.sign(t, "k1", valid)})
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "the SDK binds a session to its TokenInfo.UserID")
	})
	t.Run("a browser client of an allowed origin can read the challenge", func(t *testing.T) {
		authn, err := gateway.NewAuthenticator(a.cfg.Auth, nil)
		require.NoError(t, err)
		browser := httptest.NewServer(a.g.HTTPHandlerWith(gateway.HTTPOptions{Auth: authn, AllowedOrigins: []string{"http://localhost:6274"}}))
		defer browser.Close()
		resp := post(t, browser.URL, initializeBody, map[string]string{"Origin": "http://localhost:6274"})
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		require.Equal(t, "http://localhost:6274", resp.Header.Get("Access-Control-Allow-Origin"))
		require.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate")
		require.Contains(t, resp.Header.Get("WWW-Authenticate"), "resource_metadata=")
	})
	t.Run("protected-resource metadata (RFC 9728), without a token", func(t *testing.T) {
		for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			resp, err := http.Get(a.srv.URL + path)
			require.NoError(t, err)
			var meta map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&meta))
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, testResource, meta["resource"])
			require.Equal(t, []any{a.is.url()}, meta["authorization_servers"])
			require.Equal(t, []any{"mcp:tools"}, meta["scopes_supported"])
		}
	})
	t.Run("health without a token; metrics not on the authenticated address", func(t *testing.T) {
		for path, status := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 401} {
			resp, err := http.Get(a.srv.URL + path)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, status, resp.StatusCode, path)
		}
	})
}

// An issuer asked for an unknown key ID again and again is fetched at most
// once per jwksRefreshSeconds, and one that is down does not let a token
// through.
func TestJWKSRefreshIsRateLimited(t *testing.T) {
	a := startAuthGateway(t, `, "jwksRefreshSeconds": 3600`)
	valid := a.is.claims(testResource)
	_, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", valid))
	require.NoError(t, err)
	before := a.is.fetches.Load()
	require.GreaterOrEqual(t, before, int32(1))
	a.is.addKey(t, "made-up", false)
	token := a.is.sign(t, "made-up", valid)
	for range 20 {
		a.rejected(t, "Bearer "+token, http.StatusUnauthorized)
	}
	require.LessOrEqual(t, a.is.fetches.Load()-before, int32(1), "20 unknown key IDs, at most one fetch")

	a.is.srv.Close() // the issuer goes down: the keys held still verify
	cs, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", valid))
	require.NoError(t, err)
	_, paths, _ := search(t, cs, map[string]any{"query": "echo"})
	require.Contains(t, paths, "steady.echo")
}

// auditLine is the last audit line of a call to tool.
func auditLine(t *testing.T, audit *syncBuffer, tool string) map[string]any {
	t.Helper()
	var found map[string]any
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["tool"] == tool {
			found = m
		}
	}
	require.NotNil(t, found, "no audit line for %s in:\n%s", tool, audit.String())
	return found
}

// The key set is fetched again once older than jwksCacheSeconds, in the
// background: a key the issuer withdrew stops verifying, one it added
// starts, and no request waits for the fetch.
func TestJWKSCacheExpires(t *testing.T) {
	a := startAuthGateway(t, `, "jwksCacheSeconds": 1, "jwksRefreshSeconds": 3600`)
	valid := a.is.claims(testResource)
	_, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", valid))
	require.NoError(t, err)
	a.is.addKey(t, "k2", true)
	a.is.mu.Lock()
	a.is.public = []string{"k2"} // k1 withdrawn
	a.is.mu.Unlock()
	a.rejected(t, "Bearer "+a.is.sign(t, "k2", valid), http.StatusUnauthorized) // within the hour: no fetch for an unknown kid
	time.Sleep(1100 * time.Millisecond)
	eventually(t, 10*time.Second, "k1 refused once the set is fetched again", func() bool {
		resp := post(t, a.srv.URL, initializeBody, map[string]string{"Authorization": "Bearer " + a.is.sign(t, "k1", valid)})
		return resp.StatusCode == http.StatusUnauthorized
	})
	_, err = connectHTTP(t, a.srv.URL, a.is.sign(t, "k2", valid))
	require.NoError(t, err)
}

// Many clients at once, while the issuer rotates its keys and the cache
// expires every second: each valid token is served, each token of a
// withdrawn key refused, and (under make race) the key cache and the
// metrics are shared without a race.
func TestConcurrentAuthentication(t *testing.T) {
	a := startAuthGateway(t, `, "jwksCacheSeconds": 1, "jwksRefreshSeconds": 0`)
	valid := a.is.claims(testResource)
	rogue := func() string {
		a.is.addKey(t, "never-published", false)
		return a.is.sign(t, "never-published", valid)
	}()
	done := make(chan struct{})
	go func() { // rotation: a new key published every 150 ms, k1 kept
		defer close(done)
		for i := range 8 {
			a.is.addKey(t, fmt.Sprintf("r%d", i), true)
			time.Sleep(150 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	failures := make(chan string, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				token, want := a.is.sign(t, "k1", valid), http.StatusOK
				switch {
				case i%3 == 1:
					token = staticSecret
				case i%3 == 2:
					token, want = rogue, http.StatusUnauthorized
				}
				req, _ := http.NewRequest(http.MethodPost, a.srv.URL, strings.NewReader(initializeBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failures <- err.Error()
					return
				}
				resp.Body.Close()
				if resp.StatusCode != want {
					failures <- fmt.Sprintf("worker %d request %d: %d, want %d", w, i, resp.StatusCode, want)
				}
			}
		}()
	}
	wg.Wait()
	<-done
	close(failures)
	for f := range failures {
		t.Error(f)
	}
}

// Reload swaps the checks while the endpoint serves: a static token
// rotated out is refused and its successor served, a new required scope
// applies to the next request and shows in the metadata, and the key set
// held is kept; turning authentication off or moving the resource needs a
// restart.
func TestAuthenticatorReload(t *testing.T) {
	a := startAuthGateway(t, "")
	valid := a.is.claims(testResource)
	_, err := connectHTTP(t, a.srv.URL, staticSecret)
	require.NoError(t, err)
	_, err = connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", valid))
	require.NoError(t, err)
	fetches := a.is.fetches.Load()
	require.Equal(t, int32(1), fetches)

	const next = "the-next-token-of-the-ci-client-0123456789"
	sum := sha256.Sum256([]byte(next))
	reload := func(tokens, scopes string, resource string) error {
		cfg, err := gateway.ParseConfig([]byte(fmt.Sprintf(`{"mcpServers": {"a": {"command": "x"}}, "auth": {%s
		  "oauth": {"resource": %q, "issuer": %q, "jwksUrl": %q, "scopes": %s}}}`, tokens, resource, a.is.url(), a.is.jwksURL(), scopes)))
		require.NoError(t, err)
		return a.authn.Reload(cfg.Auth)
	}
	require.NoError(t, reload(`"tokens": {"ci": {"sha256": "`+hex.EncodeToString(sum[:])+`"}},`, `["mcp:tools", "mcp:call"]`, testResource))
	a.rejected(t, "Bearer "+staticSecret, http.StatusUnauthorized)
	resp := a.rejected(t, "Bearer "+a.is.sign(t, "k1", valid), http.StatusForbidden)
	require.Contains(t, resp.Header.Get("WWW-Authenticate"), `scope="mcp:tools mcp:call"`)
	_, err = connectHTTP(t, a.srv.URL, next)
	require.NoError(t, err, "the static token's scopes default to the new required ones")
	withBoth := a.is.claims(testResource)
	withBoth["scope"] = "mcp:tools mcp:call"
	_, err = connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", withBoth))
	require.NoError(t, err)
	require.Equal(t, fetches, a.is.fetches.Load(), "the key set held is kept across the reload")
	status, body := get(t, a.srv.URL+"/.well-known/oauth-protected-resource/mcp")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `"scopes_supported":["mcp:tools","mcp:call"]`)

	require.Error(t, reload("", `[]`, "https://elsewhere.test/"), "the resource is routed: a restart")
	require.Error(t, a.authn.Reload(gateway.AuthConfig{}), "authentication cannot be turned off by a reload")
	_, err = connectHTTP(t, a.srv.URL, next)
	require.NoError(t, err, "a refused reload keeps the checks")
}

// A token removed from the config file stops working at the gateway's own
// reload (ReloadConfig: SIGHUP or a changed file), with the policy, and a
// file whose auth block Reload refuses changes neither.
func TestReloadConfigRevokesAStaticToken(t *testing.T) {
	a := startAuthGateway(t, "")
	_, err := connectHTTP(t, a.srv.URL, staticSecret)
	require.NoError(t, err)

	const next = "the-replacement-token-of-the-ci-client-987654"
	sum := sha256.Sum256([]byte(next))
	write := func(auth string) string {
		path := filepath.Join(t.TempDir(), "gateway.json")
		config := fmt.Sprintf(`{"mcpServers": {"steady": {"command": %q, "env": {%q: "steady"}, "allowDestructive": false}}, "auth": %s}`,
			os.Args[0], "TOOLSIFT_GATEWAY_TEST_SERVER", auth)
		require.NoError(t, os.WriteFile(path, []byte(config), 0o600))
		return path
	}
	oauth := fmt.Sprintf(`"oauth": {"resource": %q, "issuer": %q, "jwksUrl": %q, "scopes": ["mcp:tools"]}`, testResource, a.is.url(), a.is.jwksURL())
	_, err = a.g.ReloadConfig(write(`{"tokens": {"ci": {"sha256": "` + hex.EncodeToString(sum[:]) + `"}}, ` + oauth + `}`))
	require.NoError(t, err)
	a.rejected(t, "Bearer "+staticSecret, http.StatusUnauthorized)
	_, err = connectHTTP(t, a.srv.URL, next)
	require.NoError(t, err, "the new token serves after the reload")

	_, err = a.g.ReloadConfig(write(`{"tokens": {"ci": {"sha256": "` + hex.EncodeToString(sum[:]) + `"}}}`))
	require.Error(t, err, "dropping OAuth (the routed resource) needs a restart: the reload is refused")
	_, err = connectHTTP(t, a.srv.URL, next)
	require.NoError(t, err, "a refused reload keeps the checks serving")
}

// Attack: the issuer's key-set endpoint (a real HTTP server here) answers
// without end, or never answers. A token that needs the key set is refused
// (401) within the client's timeout and after at most 1 MiB read, and a
// static token is still served meanwhile: a hostile or broken issuer
// costs the OAuth clients, not the gateway.
func TestHostileKeySetIsBounded(t *testing.T) {
	is := newIssuer(t, "k1")
	var served atomic.Int64
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang.json" {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"keys":[{"kty":"EC","x":"`)
		chunk := []byte(strings.Repeat("A", 64<<10))
		for served.Load() < 1<<30 {
			n, err := w.Write(chunk)
			served.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(hostile.Close)
	sum := sha256.Sum256([]byte(staticSecret))

	for _, path := range []string{"/endless.json", "/hang.json"} {
		t.Run(strings.TrimSuffix(path[1:], ".json"), func(t *testing.T) {
			cfg, err := gateway.ParseConfig([]byte(fmt.Sprintf(`{"mcpServers": {"a": {"command": "x"}}, "auth": {
			  "tokens": {"ci": {"sha256": %q}},
			  "oauth": {"resource": %q, "issuer": %q, "jwksUrl": %q, "scopes": ["mcp:tools"]}}}`,
				hex.EncodeToString(sum[:]), testResource, is.url(), hostile.URL+path)))
			require.NoError(t, err)
			authn, err := gateway.NewAuthenticator(cfg.Auth, &http.Client{Timeout: 500 * time.Millisecond})
			require.NoError(t, err)
			srv := httptest.NewServer(authn.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			})))
			t.Cleanup(srv.Close)
			status := func(token string) int {
				req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{}`))
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			}
			started := time.Now()
			require.Equal(t, http.StatusUnauthorized, status(is.sign(t, "k1", is.claims(testResource))))
			require.Less(t, time.Since(started), 5*time.Second, "the key-set fetch is bounded in time")
			require.Equal(t, http.StatusNoContent, status(staticSecret), "a static token is served while the issuer misbehaves")
		})
	}
	// The endless key set was read to its cap and no further: what the
	// server wrote is the cap plus the sockets' buffers.
	require.Less(t, served.Load(), int64(1<<20)+socketBuffers()+(2<<20), "bytes the hostile key set wrote")
}

// Attack: a token from the issuer whose subject is a static client's name
// ("ci") would be that client to the policy and to the SDK's sessions. It
// is refused; the same issuer's other subjects are served.
func TestJWTCannotTakeAStaticClientsName(t *testing.T) {
	a := startAuthGateway(t, "")
	claims := a.is.claims(testResource)
	claims["sub"] = "ci"
	_, body := a.rejectedBody(t, "Bearer "+a.is.sign(t, "k1", claims), http.StatusUnauthorized)
	require.NotContains(t, body, staticSecret)
	_, err := connectHTTP(t, a.srv.URL, a.is.sign(t, "k1", a.is.claims(testResource)))
	require.NoError(t, err, "another subject of the same issuer is served")
	_, err = connectHTTP(t, a.srv.URL, staticSecret)
	require.NoError(t, err, "the static client itself is served")
}
