package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Authentication of the HTTP endpoint. The gate is the Go SDK's
// auth.RequireBearerToken with the verifier below, so a verified request
// carries its auth.TokenInfo where the SDK (its session binding to
// TokenInfo.UserID) and the gateway's handlers read it:
// auth.TokenInfoFromContext, or the tool request's Extra.TokenInfo.
//
// The client's identity in TokenInfo:
//   - UserID: a static token's name, or a JWT's "sub";
//   - Scopes: the static token's "scopes", or the JWT's "scope"/"scp";
//   - Expiration: the JWT's "exp" (zero for a static token);
//   - Extra: a JWT's claims, and AuthMethodKey = "static" or "oauth" (set
//     by the gateway over any claim of that name), so that a static
//     token named "alice" and a JWT whose subject is "alice" can be told
//     apart.

// AuthMethodKey is the TokenInfo.Extra key naming how a client
// authenticated: "static" or "oauth".
const AuthMethodKey = "toolsift.auth"

// Limits of a JWKS fetch: a key set is a few kilobytes, and an issuer that
// hangs or answers without end must not hold a request or the memory.
const (
	jwksTimeout  = 10 * time.Second
	jwksMaxBytes = 1 << 20
)

// Authenticator checks bearer tokens for the HTTP endpoint. Its checks
// can be replaced while it serves (Reload), as a catalog is swapped: each
// request is checked wholly under the checks it began with.
type Authenticator struct {
	checks atomic.Pointer[authChecks]
	client *http.Client
	// resource is the OAuth resource ("" without OAuth); metadataURL is
	// where its protected-resource metadata is served, and metadataPath
	// its path on this endpoint. Fixed for the Authenticator's life: the
	// endpoint routes the path.
	resource, metadataURL, metadataPath string
	rejected                            func(reason string) // metrics; may be nil
}

// authChecks are one config's checks.
type authChecks struct {
	tokens []StaticToken
	jwt    *jwtVerifier // nil without "oauth"
	oauth  *OAuthConfig
	gate   *auth.RequireBearerTokenOptions
}

// NewAuthenticator makes the checks of cfg (nil when cfg configures none).
// client fetches the issuer's key set; nil: a client of its own.
func NewAuthenticator(cfg AuthConfig, client *http.Client) (*Authenticator, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	if client == nil {
		client = &http.Client{Timeout: jwksTimeout}
	}
	a := &Authenticator{client: client}
	if cfg.OAuth != nil {
		u, err := url.Parse(cfg.OAuth.Resource)
		if err != nil {
			return nil, configErrorf(`"auth.oauth": "resource": %v`, err)
		}
		a.resource = cfg.OAuth.Resource
		// RFC 9728 §3.1: the well-known segment goes between the host and
		// the resource's path.
		a.metadataPath = "/.well-known/oauth-protected-resource" + strings.TrimRight(u.EscapedPath(), "/")
		a.metadataURL = (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + a.metadataPath
	}
	a.checks.Store(a.compile(cfg, nil))
	return a, nil
}

// compile makes cfg's checks, keeping the key set held by old when the
// issuer's key set is fetched the same way.
func (a *Authenticator) compile(cfg AuthConfig, old *authChecks) *authChecks {
	c := &authChecks{tokens: cfg.Tokens, oauth: cfg.OAuth, gate: &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: a.metadataURL,
		// A static token has no expiry; a JWT without "exp" is refused by
		// the verifier itself.
		AllowMissingExpiration: true,
	}}
	if o := cfg.OAuth; o != nil {
		c.gate.Scopes, c.gate.ClockSkew = o.Scopes, o.ClockSkew
		algs := make([]jose.SignatureAlgorithm, len(o.Algorithms))
		for i, alg := range o.Algorithms {
			algs[i] = jose.SignatureAlgorithm(alg)
		}
		keys := &jwksCache{url: o.JWKSURL, client: a.client, ttl: o.JWKSCache, minRefresh: o.JWKSRefresh}
		if old != nil && old.jwt != nil {
			if k := old.jwt.keys; k.url == keys.url && k.ttl == keys.ttl && k.minRefresh == keys.minRefresh {
				keys = k
			}
		}
		c.jwt = &jwtVerifier{issuer: o.Issuer, audience: o.Audience, algs: algs, skew: o.ClockSkew, keys: keys}
	}
	return c
}

// Reload replaces the checks with cfg's, atomically: static tokens,
// scopes, the issuer and its keys. The OAuth resource (whose metadata the
// endpoint routes) and whether there is authentication at all are fixed
// until a restart; a cfg that changes them is refused and the checks kept.
func (a *Authenticator) Reload(cfg AuthConfig) error {
	resource := ""
	if cfg.OAuth != nil {
		resource = cfg.OAuth.Resource
	}
	switch {
	case !cfg.Enabled():
		return configErrorf(`"auth": authentication cannot be turned off without a restart`)
	case resource != a.resource:
		return configErrorf(`"auth.oauth": "resource" (or OAuth itself) cannot change without a restart: %q, was %q`, resource, a.resource)
	}
	a.checks.Store(a.compile(cfg, a.checks.Load()))
	return nil
}

// Verify is the auth.TokenVerifier: a static token by its hash, else a
// JWT when OAuth is configured.
func (a *Authenticator) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	return a.checks.Load().verify(ctx, token, nil)
}

// verify is c's auth.TokenVerifier.
func (c *authChecks) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if info := c.staticToken(token); info != nil {
		return info, nil
	}
	if c.jwt == nil {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	info, err := c.jwt.verify(ctx, token)
	if err != nil {
		return nil, err
	}
	// The policy and the SDK's sessions know a client by its UserID alone:
	// a JWT whose subject is a static client's name would get that client's
	// rule and could take over its sessions. The issuer's subjects and the
	// config's token names must not meet; such a token is refused.
	for i := range c.tokens {
		if c.tokens[i].Name == info.UserID {
			return nil, invalid("subject %q is the name of a static-token client of this gateway", info.UserID)
		}
	}
	return info, nil
}

// staticToken compares the token's hash with every configured one in
// constant time, never stopping at a match, so that the time taken says
// nothing about which token, if any, was near.
func (c *authChecks) staticToken(token string) *auth.TokenInfo {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range c.tokens {
		if subtle.ConstantTimeCompare(sum[:], c.tokens[i].SHA256[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return nil
	}
	t := c.tokens[found]
	return &auth.TokenInfo{UserID: t.Name, Scopes: t.Scopes, Extra: map[string]any{AuthMethodKey: "static"}}
}

// Wrap puts the bearer-token gate, the SDK's auth.RequireBearerToken, in
// front of next. A request without a valid token gets 401 with a
// WWW-Authenticate challenge (naming the protected-resource metadata in
// OAuth mode); one without a required scope gets 403.
func (a *Authenticator) Wrap(next http.Handler) http.Handler {
	// The passed stage hands the request on with the writer the gate was
	// given, unwrapped: a streamed response must reach the real writer
	// (its Flusher), not the challenge stage's.
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := w.(*challengeWriter); ok {
			w = c.ResponseWriter
		}
		next.ServeHTTP(w, r)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := a.checks.Load()
		_, hadToken := bearerToken(r)
		auth.RequireBearerToken(c.verify, c.gate)(passed).
			ServeHTTP(&challengeWriter{ResponseWriter: w, rejected: a.rejected, hadToken: hadToken}, r)
	})
}

// MetadataPath is the path of the protected-resource metadata ("" without
// OAuth).
func (a *Authenticator) MetadataPath() string { return a.metadataPath }

// Metadata is the protected-resource metadata (RFC 9728) of OAuth mode.
func (a *Authenticator) Metadata() *oauthex.ProtectedResourceMetadata {
	o := a.checks.Load().oauth
	if o == nil {
		return nil
	}
	return &oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   o.AuthorizationServers,
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "toolsift MCP gateway",
	}
}

// MetadataHandler serves Metadata, as it is when asked.
func (a *Authenticator) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(a.Metadata()).ServeHTTP(w, r)
	})
}

// bearerToken is the request's bearer token, as the SDK's gate reads it.
func bearerToken(r *http.Request) (string, bool) {
	fields := strings.Fields(r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
		return "", false
	}
	return fields[1], true
}

// challengeWriter completes the SDK's refusal as RFC 6750 §3 has it: a 401
// always carries a WWW-Authenticate challenge (the SDK adds one only in
// OAuth mode), with error="invalid_token" when the request had a token
// (and no error code when it had none); a 403 carries
// error="insufficient_scope". A refusal is counted.
type challengeWriter struct {
	http.ResponseWriter
	rejected func(reason string)
	hadToken bool
}

func (c *challengeWriter) WriteHeader(code int) {
	switch code {
	case http.StatusUnauthorized:
		params := c.params()
		if c.hadToken {
			params = append([]string{`error="invalid_token"`}, params...)
		}
		if len(params) == 0 {
			params = []string{`realm="toolsift"`}
		}
		c.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
		if c.rejected != nil {
			c.rejected("unauthorized")
		}
	case http.StatusForbidden:
		c.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(append([]string{`error="insufficient_scope"`}, c.params()...), ", "))
		if c.rejected != nil {
			c.rejected("insufficient_scope")
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

// params are the SDK's challenge parameters (resource_metadata, scope).
func (c *challengeWriter) params() []string {
	v := c.Header().Get("WWW-Authenticate")
	rest, ok := strings.CutPrefix(v, "Bearer ")
	if !ok || rest == "" {
		return nil
	}
	return []string{rest}
}

// jwtVerifier checks a JWT access token: its algorithm is one allowed, its
// signature by the issuer's key named in its header, then iss, aud, exp
// (required), nbf and iat, with the clock skew. go-jose does the
// cryptography and the claim checks.
type jwtVerifier struct {
	issuer, audience string
	algs             []jose.SignatureAlgorithm
	skew             time.Duration
	keys             *jwksCache
}

// scopeClaims are the two spellings of a token's scopes: "scope", a
// space-separated string (RFC 8693, RFC 9068), and "scp", a list or a
// string (Azure AD, Okta).
type scopeClaims struct {
	Scope string          `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{auth.ErrInvalidToken}, args...)...)
}

func (v *jwtVerifier) verify(ctx context.Context, raw string) (*auth.TokenInfo, error) {
	// ParseSigned refuses any algorithm not in the list; "none" is never
	// one (go-jose does not implement it).
	tok, err := jwt.ParseSigned(raw, v.algs)
	if err != nil {
		return nil, invalid("%v", err)
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("want one signature")
	}
	header := tok.Headers[0]
	key, err := v.keys.key(ctx, header.KeyID, header.Algorithm)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var scopes scopeClaims
	claims := map[string]any{}
	if err := tok.Claims(key, &std, &scopes, &claims); err != nil {
		return nil, invalid("signature: %v", err)
	}
	if std.Expiry == nil {
		return nil, invalid(`no "exp"`)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.audience}, Time: time.Now()}, v.skew); err != nil {
		return nil, invalid("%v", err)
	}
	if std.Subject == "" {
		return nil, invalid(`no "sub": the gateway names every client`)
	}
	list, err := scopes.list()
	if err != nil {
		return nil, invalid("%v", err)
	}
	claims[AuthMethodKey] = "oauth"
	return &auth.TokenInfo{UserID: std.Subject, Scopes: list, Expiration: std.Expiry.Time(), Extra: claims}, nil
}

func (s scopeClaims) list() ([]string, error) {
	out := strings.Fields(s.Scope)
	if len(s.Scp) > 0 && string(s.Scp) != "null" {
		var many []string
		var one string
		switch {
		case json.Unmarshal(s.Scp, &many) == nil:
			out = append(out, many...)
		case json.Unmarshal(s.Scp, &one) == nil:
			out = append(out, strings.Fields(one)...)
		default:
			return nil, errors.New(`"scp" is neither a string nor a list of strings`)
		}
	}
	return out, nil
}

// jwksCache holds the issuer's key set: fetched on first use, again once
// it is older than ttl, and again when a token names a key it lacks (an
// issuer rotating its keys) but at most once per minRefresh, so that
// tokens with made-up key IDs cost one fetch per minRefresh at most. A
// fetch that fails keeps the keys held.
type jwksCache struct {
	url        string
	client     *http.Client
	ttl        time.Duration
	minRefresh time.Duration

	fetchMu    sync.Mutex // one fetch at a time
	mu         sync.Mutex
	set        *jose.JSONWebKeySet
	fetched    time.Time   // of the set held
	tried      time.Time   // the last fetch, whatever its outcome
	refreshing atomic.Bool // a routine refresh is running
}

func (c *jwksCache) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	c.mu.Lock()
	set, fetched := c.set, c.fetched
	c.mu.Unlock()
	if set != nil && time.Since(fetched) > c.ttl {
		// A routine refresh: no request waits for it, the keys held serve
		// meanwhile (and stay if it fails).
		// One at a time; an issuer that is down is tried again once per
		// the shorter of ttl and minRefresh.
		if c.refreshing.CompareAndSwap(false, true) {
			go func() {
				defer c.refreshing.Store(false)
				_ = c.refresh(ctx, min(c.ttl, c.minRefresh))
			}()
		}
	}
	if set == nil {
		// A failed fetch leaves nothing to verify with; the next try waits
		// minRefresh, so an issuer that is down is not asked on every request.
		err := c.refresh(ctx, c.minRefresh)
		c.mu.Lock()
		set = c.set
		c.mu.Unlock()
		if set == nil {
			if err == nil {
				err = errors.New("the last fetch failed; retried after jwksRefreshSeconds")
			}
			return nil, invalid("the issuer's keys could not be fetched: %v", err)
		}
	}
	if k, err := c.find(kid, alg); k != nil || err != nil {
		return k, err
	}
	// An unknown key ID: maybe a rotation.
	if err := c.refresh(ctx, c.minRefresh); err != nil {
		return nil, invalid("key %q is not in the issuer's key set, which could not be fetched again: %v", kid, err)
	}
	if k, err := c.find(kid, alg); k != nil || err != nil {
		return k, err
	}
	return nil, invalid("key %q is not in the issuer's key set", kid)
}

// find is the signing key of the set held with kid (with no kid: the
// set's only signing key for alg). A key whose own "alg" differs from the
// token's is refused, as is a private or symmetric one.
func (c *jwksCache) find(kid, alg string) (*jose.JSONWebKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		return nil, nil
	}
	var match []jose.JSONWebKey
	for _, k := range c.set.Keys {
		if (kid == "" || k.KeyID == kid) && (k.Use == "" || k.Use == "sig") {
			match = append(match, k)
		}
	}
	switch {
	case len(match) == 0:
		return nil, nil
	case len(match) > 1:
		return nil, invalid("key %q: %d keys of the issuer's set match; a token must name its key (kid)", kid, len(match))
	}
	k := match[0]
	if k.Algorithm != "" && k.Algorithm != alg {
		return nil, invalid("key %q is for %s, the token says %s", kid, k.Algorithm, alg)
	}
	if !k.IsPublic() {
		return nil, invalid("key %q of the issuer's set is not a public key", kid)
	}
	return &k, nil
}

// refresh fetches the set unless another fetch began less than atLeast
// ago.
func (c *jwksCache) refresh(ctx context.Context, atLeast time.Duration) error {
	// The fetch is the cache's, not the request's: a client that goes away
	// must not cancel it, or its failure would hold the next try back.
	ctx = context.WithoutCancel(ctx)
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	c.mu.Lock()
	tried := c.tried
	c.mu.Unlock()
	if !tried.IsZero() && time.Since(tried) < atLeast {
		return nil
	}
	c.mu.Lock()
	c.tried = time.Now()
	c.mu.Unlock()
	set, err := c.fetch(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.set, c.fetched = set, time.Now()
	c.mu.Unlock()
	return nil
}

func (c *jwksCache) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, jwksTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", c.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("GET %s: the key set is larger than %d bytes", c.url, jwksMaxBytes)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("GET %s: not a JSON Web Key Set: %v", c.url, err)
	}
	return &set, nil
}

// authenticate is a's gate in front of next, its refusals counted.
func (g *Gateway) authenticate(a *Authenticator, next http.Handler) http.Handler {
	g.authn.Store(a) // ReloadConfig reloads its tokens and issuer with the policy
	if a.rejected == nil {
		a.rejected = func(reason string) { g.ops.metrics.unauthorized.WithLabelValues(reason).Inc() }
	}
	return a.Wrap(next)
}
