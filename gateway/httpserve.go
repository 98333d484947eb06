package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions tune the streamable HTTP endpoint; the zero value is the
// defaults.
type HTTPOptions struct {
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served. A request carrying any other Origin header is
	// refused with 403: the gateway runs tools and has no authentication
	// of its own, so a web page the user happens to visit must not drive
	// it (a DNS-rebinding page included, whose Origin is its own). Clients
	// that are not browsers send no Origin and are served. Default: none.
	AllowedOrigins []string
	// SessionIdle closes a session that has had no request for this long;
	// its client must initialize again. Default 30 minutes; negative: never.
	SessionIdle time.Duration
	// BodyTimeout bounds the reading of a request's body: a client that
	// sends its body too slowly gets 408 and its connection is closed,
	// rather than holding a handler. Default 10 s.
	BodyTimeout time.Duration
	// Stateless serves every request on its own, with no session: any
	// replica of the gateway can answer any request (the catalog hashes
	// are the same in every replica with the same config and servers).
	// There is then no GET stream for server notifications, and
	// SessionIdle does not apply. Default false.
	Stateless bool
	// Auth, when set, requires a bearer token of every MCP request
	// (auth.go); the health endpoints and the protected-resource metadata
	// are served without one. Default: none.
	Auth *Authenticator
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	switch {
	case o.SessionIdle == 0:
		o.SessionIdle = 30 * time.Minute
	case o.SessionIdle < 0:
		o.SessionIdle = 0 // the SDK's "never"
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 10 * time.Second
	}
	return o
}

// HTTPHandler serves MCP over streamable HTTP with the default
// HTTPOptions.
func (g *Gateway) HTTPHandler() http.Handler { return g.HTTPHandlerWith(HTTPOptions{}) }

// HTTPHandlerWith serves MCP over streamable HTTP, every session from the
// same server and engine. In order: a request from a browser origin not
// allowed is refused (403); the body is read within BodyTimeout (408) and
// up to the SDK's 4 MiB (413); then the SDK, which also refuses requests
// to a loopback address that carry another Host header (DNS rebinding),
// and closes sessions idle for SessionIdle. An origin that is not
// scheme://host[:port] is an error.
func (g *Gateway) HTTPHandlerWith(opts HTTPOptions) http.Handler {
	g.http.Store(true)
	opts = opts.withDefaults()
	allowed := map[string]bool{}
	for _, o := range opts.AllowedOrigins {
		allowed[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server },
		&mcp.StreamableHTTPOptions{SessionTimeout: opts.SessionIdle, Stateless: opts.Stateless})
	guard := &httpGuard{allowed: allowed, bodyTimeout: opts.BodyTimeout, next: sdk}
	guard.authenticated = http.HandlerFunc(guard.serveBody)
	if opts.Auth != nil {
		guard.authenticated = g.authenticate(opts.Auth, guard.authenticated)
	}
	return g.withOperations(guard, opts.Auth)
}

// CheckOrigin reports whether o is an origin HTTPOptions.AllowedOrigins
// can hold: scheme://host[:port], nothing more.
func CheckOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || strings.TrimRight(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("origin %q: want scheme://host[:port], as a browser sends it", o)
	}
	return nil
}

type httpGuard struct {
	allowed     map[string]bool
	bodyTimeout time.Duration
	next        http.Handler
	// authenticated is serveBody, behind the authentication gate when
	// there is one: a request's origin is checked first, its token before
	// its body is read.
	authenticated http.Handler
}

func (h *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin != "" && !h.allowed[strings.ToLower(origin)] {
		http.Error(w, fmt.Sprintf("cross-origin request refused: Origin %q is not allowed (wasmhost mcp --allow-origin)", origin), http.StatusForbidden)
		return
	}
	if origin != "" {
		// An allowed origin is a browser client the operator chose: it
		// gets the CORS answers without which its browser would not let
		// it read a response or send MCP's headers.
		allowCORS(w.Header(), origin)
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	if origin == "" {
		// A browser that sends no Origin still names a request from
		// another site (a navigation, a form) in Sec-Fetch-Site.
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			http.Error(w, "cross-site request refused", http.StatusForbidden)
			return
		}
	}
	h.authenticated.ServeHTTP(w, r)
}

// serveBody reads the body within the timeout and hands the request to
// the SDK.
func (h *httpGuard) serveBody(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
		body, status := readBody(w, r, h.bodyTimeout)
		if status != 0 {
			if status == http.StatusRequestTimeout {
				w.Header().Set("Connection", "close")
			}
			http.Error(w, http.StatusText(status), status)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	h.next.ServeHTTP(w, r)
}

// readBody reads a request's body within timeout and the SDK's size
// bound, or says which status refuses it. The read deadline is lifted
// afterwards: a response may stream for long.
func readBody(w http.ResponseWriter, r *http.Request, timeout time.Duration) ([]byte, int) {
	rc := http.NewResponseController(w)
	limited := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	var netErr net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		// The deadline stays: net/http would otherwise wait for the rest
		// of the body before closing the connection.
		return nil, http.StatusRequestTimeout
	}
	if limited {
		_ = rc.SetReadDeadline(time.Time{})
	}
	switch {
	case err != nil:
		return nil, http.StatusBadRequest
	case len(body) > mcp.DefaultMaxRequestBodyBytes:
		return nil, http.StatusRequestEntityTooLarge
	}
	return body, 0
}

// allowCORS sets the headers that let a page of origin use the endpoint:
// MCP's methods, and the session and protocol headers both ways.
func allowCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	h.Set("Access-Control-Max-Age", "600")
}
