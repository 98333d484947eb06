package gateway_test

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

const oneServer = `"mcpServers": {"a": {"command": "x"}}`

var hash64 = strings.Repeat("ab", 32)

func TestAuthConfigDefaults(t *testing.T) {
	cfg, err := gateway.ParseConfig([]byte(`{` + oneServer + `, "auth": {
	  "tokens": {"ci": {"sha256": "` + strings.ToUpper(hash64) + `"}, "ops": {"sha256": "` + strings.Repeat("cd", 32) + `", "scopes": []}},
	  "oauth": {"resource": "https://gw.example/", "issuer": "https://idp.example/", "jwksUrl": "https://idp.example/keys", "scopes": ["mcp"]}}}`))
	require.NoError(t, err)
	o := cfg.Auth.OAuth
	require.Equal(t, "https://gw.example/", o.Audience, "audience defaults to the resource")
	require.Equal(t, []string{"https://idp.example/"}, o.AuthorizationServers)
	require.Equal(t, gateway.DefaultClockSkew, o.ClockSkew)
	require.Equal(t, gateway.DefaultJWKSCache, o.JWKSCache)
	require.Equal(t, gateway.DefaultJWKSRefresh, o.JWKSRefresh)
	require.NotContains(t, o.Algorithms, "none")
	require.NotContains(t, o.Algorithms, "HS256")
	require.Len(t, cfg.Auth.Tokens, 2)
	require.Equal(t, "ci", cfg.Auth.Tokens[0].Name)
	require.Equal(t, []string{"mcp"}, cfg.Auth.Tokens[0].Scopes, "a static token's scopes default to the required ones")
	require.Empty(t, cfg.Auth.Tokens[1].Scopes, "unless it names its own")
	require.False(t, cfg.Audit.LogArguments)
	require.False(t, cfg.TLS.Enabled())

	cfg, err = gateway.ParseConfig([]byte(`{` + oneServer + `}`))
	require.NoError(t, err)
	require.False(t, cfg.Auth.Enabled(), "no \"auth\": no authentication")
}

func TestAuthTokenFromEnvironment(t *testing.T) {
	t.Setenv("GW_TEST_TOKEN", "a-long-enough-secret-token")
	cfg, err := gateway.ParseConfig([]byte(`{` + oneServer + `, "auth": {"tokens": {"ci": {"env": "GW_TEST_TOKEN"}}}}`))
	require.NoError(t, err)
	require.Equal(t, sha256.Sum256([]byte("a-long-enough-secret-token")), cfg.Auth.Tokens[0].SHA256, "kept as its hash")
}

func TestAuthConfigRefusals(t *testing.T) {
	t.Setenv("GW_SHORT_TOKEN", "short")
	oauth := func(extra string) string {
		return `"oauth": {"resource": "https://gw.example/", "issuer": "https://idp.example/", "jwksUrl": "https://idp.example/keys"` + extra + `}`
	}
	for block, want := range map[string]string{
		`"auth": {"tokens": {"ci": {"sha256": "` + hash64 + `", "scope": ["x"]}}}`: `unknown field "scope"`,
		`"auth": {"token": {}}`:                                                                                       `unknown field "token"`,
		`"auth": {"tokens": {"ci": {"sha256": "abc"}}}`:                                                               "64 hex digits",
		`"auth": {"tokens": {"ci": {}}}`:                                                                              `needs "sha256"`,
		`"auth": {"tokens": {"ci": {"sha256": "` + hash64 + `", "env": "X"}}}`:                                        "not both",
		`"auth": {"tokens": {"ci": {"env": "GW_UNSET_TOKEN_VARIABLE"}}}`:                                              "unset or shorter",
		`"auth": {"tokens": {"ci": {"env": "GW_SHORT_TOKEN"}}}`:                                                       "unset or shorter",
		`"auth": {"tokens": {"a": {"sha256": "` + hash64 + `"}, "b": {"sha256": "` + hash64 + `"}}}`:                  "the same token",
		`"auth": {"tokens": {}}`:                                                                                      "no token",
		`"auth": {"oauth": {"issuer": "https://idp.example/"}}`:                                                       "are required",
		`"auth": {` + oauth(`, "algorithms": ["none"]`) + `}`:                                                         `algorithm "none"`,
		`"auth": {` + oauth(`, "algorithms": ["HS256"]`) + `}`:                                                        `algorithm "HS256"`,
		`"auth": {` + oauth(`, "clockSkewSeconds": -1`) + `}`:                                                         "outside",
		`"auth": {` + oauth(`, "jwksCacheSeconds": 0`) + `}`:                                                          "outside",
		`"auth": {"oauth": {"resource": "https://gw.example/", "issuer": "i", "jwksUrl": "http://idp.example/keys"}}`: "https URL",
		`"auth": {"oauth": {"resource": "gw.example", "issuer": "i", "jwksUrl": "https://idp.example/keys"}}`:         "absolute http(s) URL",
		`"tls": {"cert": "c.pem"}`:                                                                                    `both "cert" and "key"`,
		`"tls": {"cert": "c.pem", "key": "k.pem", "terminatedByProxy": true}`:                                         "exclude each other",
		`"audit": {"logArgs": true}`:                                                                                  `unknown field "logArgs"`,
	} {
		_, err := gateway.ParseConfig([]byte(`{` + oneServer + `, ` + block + `}`))
		var ce *gateway.ConfigError
		require.True(t, errors.As(err, &ce), "%s: %v", block, err)
		require.Contains(t, err.Error(), want, block)
	}
}

func TestTLSPathsAreTheConfigFolders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(`{`+oneServer+`, "tls": {"cert": "tls/crt.pem", "key": "/abs/key.pem"}}`), 0o644))
	cfg, err := gateway.LoadConfig(path)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "tls", "crt.pem"), cfg.TLS.Cert)
	require.Equal(t, "/abs/key.pem", cfg.TLS.Key)
}

func TestCheckListen(t *testing.T) {
	withAuth := gateway.AuthConfig{Tokens: []gateway.StaticToken{{Name: "ci"}}}
	served := gateway.TLSConfig{Cert: "c", Key: "k"}
	proxied := gateway.TLSConfig{TerminatedByProxy: true}
	for _, tc := range []struct {
		addr string
		auth gateway.AuthConfig
		tls  gateway.TLSConfig
		ok   bool
	}{
		{"127.0.0.1:8931", gateway.AuthConfig{}, gateway.TLSConfig{}, true},
		{"[::1]:8931", gateway.AuthConfig{}, gateway.TLSConfig{}, true},
		{"localhost:8931", gateway.AuthConfig{}, gateway.TLSConfig{}, true},
		{"0.0.0.0:8931", gateway.AuthConfig{}, served, false},
		{":8931", withAuth, gateway.TLSConfig{}, false},
		{":8931", withAuth, served, true},
		{"10.0.0.5:8931", withAuth, proxied, true},
		{"gateway.internal:8931", withAuth, gateway.TLSConfig{}, false},
		{"8931", withAuth, served, false},
	} {
		err := gateway.CheckListen(tc.addr, tc.auth, tc.tls)
		require.Equal(t, tc.ok, err == nil, "%s auth=%v tls=%+v: %v", tc.addr, tc.auth.Enabled(), tc.tls, err)
	}
}
