package gateway

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The config keys of a gateway that serves a team over HTTP, beside
// "mcpServers" in the same file:
//
//	"auth": {
//	  "tokens": {"alice": {"sha256": "<hex>"}, "ci": {"env": "CI_TOKEN", "scopes": ["tools"]}},
//	  "oauth":  {"resource": "https://mcp.example.com/", "issuer": "https://idp.example.com/",
//	             "jwksUrl": "https://idp.example.com/jwks.json", "scopes": ["mcp:tools"]}
//	},
//	"tls":   {"cert": "tls.crt", "key": "tls.key"} | {"terminatedByProxy": true},
//	"audit": {"logArguments": false, "file": ""}
//
// They are decoded strictly (an unknown key is refused): a misspelt
// "scope" that silently dropped a required scope would open the gateway.

// AuthConfig is the "auth" block: static bearer tokens, OAuth 2.1
// resource-server mode, or both. Zero: no authentication.
type AuthConfig struct {
	Tokens []StaticToken // sorted by Name
	OAuth  *OAuthConfig
}

// Enabled reports whether any authentication is configured.
func (a AuthConfig) Enabled() bool { return len(a.Tokens) > 0 || a.OAuth != nil }

// StaticToken is one client's bearer token, kept only as its SHA-256.
type StaticToken struct {
	Name   string   // the client identity (auth.TokenInfo.UserID)
	SHA256 [32]byte // of the token's bytes
	// Scopes are the token's scopes (auth.TokenInfo.Scopes). Default: the
	// OAuth block's required scopes, so that a static token passes the
	// same scope check as a JWT.
	Scopes []string
}

// OAuthConfig is the "oauth" block: the gateway as an OAuth 2.1 resource
// server (the MCP authorization specification), taking JWT access tokens
// signed by one issuer.
type OAuthConfig struct {
	// Resource is this gateway's public URL, the resource identifier of
	// its protected-resource metadata (RFC 9728). Required.
	Resource string
	// Issuer is the authorization server; a token's "iss" must equal it.
	// Required.
	Issuer string
	// JWKSURL is where the issuer publishes its signing keys. Required;
	// https, or http on a loopback host.
	JWKSURL string
	// Audience must be one of a token's "aud" values. Default: Resource.
	Audience string
	// Scopes must all be in a token's "scope" (or "scp"). Default: none.
	Scopes []string
	// Algorithms are the JWS algorithms accepted. Default: every
	// asymmetric one (RS*, PS*, ES*, EdDSA); "none" and the HMAC ones are
	// refused in the config, since a JWKS holds public keys.
	Algorithms []string
	// AuthorizationServers are listed in the metadata. Default: [Issuer].
	AuthorizationServers []string
	// ClockSkew is the leeway on exp, nbf and iat. Default 30 s.
	ClockSkew time.Duration
	// JWKSCache is how long a fetched key set is used before it is
	// fetched again. Default 5 minutes.
	JWKSCache time.Duration
	// JWKSRefresh is the least time between two fetches caused by a token
	// whose key ID is not in the set (a rotation), so that tokens with
	// made-up key IDs cannot make the gateway hammer the issuer. Default
	// 30 s.
	JWKSRefresh time.Duration
}

// TLSConfig is the "tls" block.
type TLSConfig struct {
	Cert, Key string // PEM files; relative to the config file's folder
	// TerminatedByProxy is the operator's word that a proxy in front
	// terminates TLS, so the gateway itself may serve plain HTTP on a
	// non-loopback address.
	TerminatedByProxy bool
}

// Enabled reports whether the gateway serves TLS itself.
func (t TLSConfig) Enabled() bool { return t.Cert != "" }

// Load reads the certificate and key into a server TLS config (TLS 1.2
// or later); nil when the gateway serves no TLS itself.
func (t TLSConfig) Load() (*tls.Config, error) {
	if !t.Enabled() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, configErrorf("tls: %v", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

func (t *TLSConfig) resolve(dir string) {
	if t.Cert != "" && !filepath.IsAbs(t.Cert) {
		t.Cert = filepath.Join(dir, t.Cert)
	}
	if t.Key != "" && !filepath.IsAbs(t.Key) {
		t.Key = filepath.Join(dir, t.Key)
	}
}

// AuditConfig is the "audit" block.
type AuditConfig struct {
	// LogArguments puts each call_tool's arguments in its audit line.
	// Default false: arguments often carry what the audit log's readers
	// should not see.
	LogArguments bool
	// File receives the audit lines (appended). Default "": stderr.
	File string
}

// Defaults of the "oauth" block.
const (
	DefaultClockSkew   = 30 * time.Second
	DefaultJWKSCache   = 5 * time.Minute
	DefaultJWKSRefresh = 30 * time.Second
)

// asymmetricAlgorithms are the JWS algorithms a JWKS of public keys can
// verify; the default of "algorithms".
var asymmetricAlgorithms = []string{"EdDSA", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"}

type rawAuth struct {
	Tokens map[string]rawToken `json:"tokens"`
	OAuth  *rawOAuth           `json:"oauth"`
}

type rawToken struct {
	SHA256 string   `json:"sha256"`
	Env    string   `json:"env"`
	Scopes []string `json:"scopes"`
}

type rawOAuth struct {
	Resource             string   `json:"resource"`
	Issuer               string   `json:"issuer"`
	JWKSURL              string   `json:"jwksUrl"`
	Audience             string   `json:"audience"`
	Scopes               []string `json:"scopes"`
	Algorithms           []string `json:"algorithms"`
	AuthorizationServers []string `json:"authorizationServers"`
	ClockSkewSeconds     *float64 `json:"clockSkewSeconds"`
	JWKSCacheSeconds     *float64 `json:"jwksCacheSeconds"`
	JWKSRefreshSeconds   *float64 `json:"jwksRefreshSeconds"`
}

type rawTLS struct {
	Cert              string `json:"cert"`
	Key               string `json:"key"`
	TerminatedByProxy bool   `json:"terminatedByProxy"`
}

type rawAudit struct {
	LogArguments bool   `json:"logArguments"`
	File         string `json:"file"`
}

// decodeBlock decodes one top-level block, refusing unknown keys.
func decodeBlock(block string, data json.RawMessage, v any) error {
	if err := strictDecode(data, v); err != nil {
		return configErrorf("%q: %v", block, err)
	}
	return nil
}

// parseServingKeys reads the "auth", "tls" and "audit" blocks into cfg.
func parseServingKeys(data []byte, cfg *Config) error {
	var doc struct {
		Auth  json.RawMessage `json:"auth"`
		TLS   json.RawMessage `json:"tls"`
		Audit json.RawMessage `json:"audit"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return configErrorf("not a JSON object: %v", err)
	}
	if doc.Auth != nil {
		var raw rawAuth
		if err := decodeBlock("auth", doc.Auth, &raw); err != nil {
			return err
		}
		a, err := checkAuth(raw)
		if err != nil {
			return err
		}
		cfg.Auth = a
	}
	if doc.TLS != nil {
		var raw rawTLS
		if err := decodeBlock("tls", doc.TLS, &raw); err != nil {
			return err
		}
		if (raw.Cert == "") != (raw.Key == "") {
			return configErrorf(`"tls": give both "cert" and "key"`)
		}
		if raw.Cert != "" && raw.TerminatedByProxy {
			return configErrorf(`"tls": "cert"/"key" (the gateway serves TLS) and "terminatedByProxy" (a proxy does) exclude each other`)
		}
		cfg.TLS = TLSConfig{Cert: raw.Cert, Key: raw.Key, TerminatedByProxy: raw.TerminatedByProxy}
	}
	if doc.Audit != nil {
		var raw rawAudit
		if err := decodeBlock("audit", doc.Audit, &raw); err != nil {
			return err
		}
		cfg.Audit = AuditConfig{LogArguments: raw.LogArguments, File: raw.File}
	}
	return nil
}

// minEnvToken is the shortest token read from the environment: a static
// token is a shared secret, and a short one can be guessed.
const minEnvToken = 16

func checkAuth(raw rawAuth) (AuthConfig, error) {
	var a AuthConfig
	if raw.OAuth != nil {
		o, err := checkOAuth(*raw.OAuth)
		if err != nil {
			return a, err
		}
		a.OAuth = o
	}
	seen := map[[32]byte]string{}
	for _, name := range slices.Sorted(maps.Keys(raw.Tokens)) {
		t := raw.Tokens[name]
		if strings.TrimSpace(name) == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return a, configErrorf("auth token name %q: empty or with control characters", name)
		}
		st := StaticToken{Name: name, Scopes: t.Scopes}
		switch {
		case t.SHA256 != "" && t.Env != "":
			return a, configErrorf(`auth token %q: give "sha256" or "env", not both`, name)
		case t.SHA256 != "":
			b, err := hex.DecodeString(t.SHA256)
			if err != nil || len(b) != sha256.Size {
				return a, configErrorf(`auth token %q: "sha256" must be 64 hex digits (sha256sum of the token)`, name)
			}
			copy(st.SHA256[:], b)
		case t.Env != "":
			value := os.Getenv(t.Env)
			if len(value) < minEnvToken {
				return a, configErrorf("auth token %q: environment variable %s is unset or shorter than %d characters", name, t.Env, minEnvToken)
			}
			st.SHA256 = sha256.Sum256([]byte(value))
		default:
			return a, configErrorf(`auth token %q: needs "sha256" (of the token) or "env" (the variable holding it)`, name)
		}
		if other, dup := seen[st.SHA256]; dup {
			return a, configErrorf("auth tokens %q and %q are the same token: one token, one client", other, name)
		}
		seen[st.SHA256] = name
		if st.Scopes == nil && a.OAuth != nil {
			st.Scopes = a.OAuth.Scopes
		}
		a.Tokens = append(a.Tokens, st)
	}
	if raw.Tokens != nil && len(a.Tokens) == 0 && a.OAuth == nil {
		return a, configErrorf(`"auth": no token and no "oauth": leave "auth" out for no authentication`)
	}
	return a, nil
}

func checkOAuth(raw rawOAuth) (*OAuthConfig, error) {
	o := &OAuthConfig{
		Resource: raw.Resource, Issuer: raw.Issuer, JWKSURL: raw.JWKSURL, Audience: raw.Audience,
		Scopes: raw.Scopes, AuthorizationServers: raw.AuthorizationServers,
		ClockSkew: DefaultClockSkew, JWKSCache: DefaultJWKSCache, JWKSRefresh: DefaultJWKSRefresh,
	}
	if o.Resource == "" || o.Issuer == "" || o.JWKSURL == "" {
		return nil, configErrorf(`"auth.oauth": "resource", "issuer" and "jwksUrl" are required`)
	}
	u, err := url.Parse(o.Resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, configErrorf(`"auth.oauth": "resource" %q must be the gateway's absolute http(s) URL, without query or fragment`, o.Resource)
	}
	j, err := url.Parse(o.JWKSURL)
	if err != nil || j.Host == "" || (j.Scheme != "https" && !(j.Scheme == "http" && isLoopbackHost(j.Hostname()))) {
		return nil, configErrorf(`"auth.oauth": "jwksUrl" %q must be an https URL (http only on a loopback host)`, o.JWKSURL)
	}
	if o.Audience == "" {
		o.Audience = o.Resource
	}
	if len(o.AuthorizationServers) == 0 {
		o.AuthorizationServers = []string{o.Issuer}
	}
	o.Algorithms = raw.Algorithms
	if len(o.Algorithms) == 0 {
		o.Algorithms = asymmetricAlgorithms
	}
	for _, alg := range o.Algorithms {
		if !slices.Contains(asymmetricAlgorithms, alg) {
			return nil, configErrorf(`"auth.oauth": algorithm %q is not accepted (one of %s; never "none" or HMAC, which a public key set cannot verify)`,
				alg, strings.Join(asymmetricAlgorithms, ", "))
		}
	}
	for _, d := range []struct {
		key string
		v   *float64
		to  *time.Duration
		min float64
	}{
		{"clockSkewSeconds", raw.ClockSkewSeconds, &o.ClockSkew, 0},
		{"jwksCacheSeconds", raw.JWKSCacheSeconds, &o.JWKSCache, 1},
		{"jwksRefreshSeconds", raw.JWKSRefreshSeconds, &o.JWKSRefresh, 0},
	} {
		if d.v == nil {
			continue
		}
		if *d.v < d.min || *d.v > 86400 {
			return nil, configErrorf(`"auth.oauth": %q %g is outside %g to 86400`, d.key, *d.v, d.min)
		}
		*d.to = time.Duration(*d.v * float64(time.Second))
	}
	return o, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckListen says whether the gateway may serve HTTP on addr with cfg: a
// loopback address always; any other only with authentication configured,
// and with TLS served by the gateway or a TLS-terminating proxy in front
// (tls is cfg.TLS with the command line's flags applied).
func CheckListen(addr string, auth AuthConfig, tls TLSConfig) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v (want HOST:PORT)", addr, err)
	}
	if isLoopbackHost(host) {
		return nil
	}
	if !auth.Enabled() {
		return fmt.Errorf(`--listen %q is not a loopback address: configure authentication first ("auth" in the config: static tokens or OAuth), since the endpoint runs tools`, addr)
	}
	if !tls.Enabled() && !tls.TerminatedByProxy {
		return fmt.Errorf(`--listen %q is not a loopback address: serve TLS (--tls-cert/--tls-key or "tls" in the config) or say a proxy in front terminates it (--tls-terminated-by-proxy), since bearer tokens must not cross a network in clear`, addr)
	}
	return nil
}
