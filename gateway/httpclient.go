package gateway

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// MaxResponseBody caps the body of every response a "url" server sends
// that is not an event stream (a JSON answer, an error page): past it the
// read fails and the request with it. The SDK reads such a body whole
// before decoding it, so without a cap a server answering with an endless
// body holds the gateway's memory to ransom. An event stream is long-lived
// and is bounded per event instead (the SDK's MaxEventSize, 16 MiB).
const MaxResponseBody = 64 << 20

// maxRedirects bounds a chain of same-origin redirects.
const maxRedirects = 10

// newHTTPClient is the HTTP client of one "url" server. The configured
// headers (Authorization, API keys) go only to the configured origin
// (scheme, host and port): redirects are followed only within that origin,
// and the transport adds the headers to no request for another. A
// redirect elsewhere fails the request, so a compromised or misconfigured
// server cannot send the gateway, with its secrets, to a host of its
// choosing.
func newHTTPClient(cfg ServerConfig, log *slog.Logger, base http.RoundTripper) *http.Client {
	configured, _ := url.Parse(cfg.URL) // checked by ParseConfig
	origin := originOf(configured)
	return &http.Client{
		Transport: &downstreamTransport{origin: origin, headers: cfg.Headers, base: base, log: log},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if to := originOf(req.URL); to != origin {
				return &redirectError{from: origin, to: to}
			}
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			return nil
		},
	}
}

// redirectError is a redirect the gateway refused to follow.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("redirected from %s to another origin (%s): not followed, so that the server's headers stay with it", e.from, e.to)
}

// downstreamTransport adds the configured headers to requests for the
// configured origin, caps response bodies, and repairs tools/list answers
// (repair.go) before the SDK decodes them.
type downstreamTransport struct {
	origin  string
	headers map[string]string
	base    http.RoundTripper
	log     *slog.Logger
}

func (t *downstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && originOf(req.URL) == t.origin {
		req = req.Clone(req.Context())
		for _, k := range sortedKeys(t.headers) {
			req.Header.Set(k, t.headers[k])
		}
	}
	listing, err := isToolsList(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	eventStream := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	if !eventStream {
		if resp.ContentLength > MaxResponseBody {
			// Declared too large: refused before a byte of it is read.
			_ = resp.Body.Close()
			return nil, errBodyTooLarge
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: MaxResponseBody}
	}
	if listing && resp.StatusCode == http.StatusOK {
		repairHTTPResponse(resp, eventStream, t.log)
	}
	return resp, nil
}

// cappedBody fails a read past its cap with errBodyTooLarge.
type cappedBody struct {
	io.ReadCloser
	left int64
}

var errBodyTooLarge = fmt.Errorf("response body larger than %d MiB (the gateway's cap)", MaxResponseBody>>20)

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, errBodyTooLarge
		}
		return b.ReadCloser.Read(p)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// originOf is scheme://host[:port] of u, lower-cased: what the gateway
// shows of a URL, and what redirects and headers are checked against.
func originOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// urlPattern finds the URLs in a message.
var urlPattern = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>\x60]+`)

// redactURLs replaces every URL in s by its origin. A down server's error
// carries its URL (the SDK and net/http quote it), and a URL may hold a
// secret (a path token, ?api_key=, user:password@): the status an agent
// reads in search_tools and catalog_empty, and the log, show scheme://host
// only.
func redactURLs(s string) string {
	return urlPattern.ReplaceAllStringFunc(s, func(m string) string {
		// Punctuation after a URL in a sentence is the sentence's.
		trimmed := strings.TrimRight(m, ").,;:]}!?")
		tail := m[len(trimmed):]
		u, err := url.Parse(trimmed)
		if err != nil || u.Host == "" {
			// Not a URL Go can read: keep the scheme only, since what
			// follows it may still be a secret.
			if i := strings.Index(m, "://"); i >= 0 {
				return m[:i+3] + "…"
			}
			return "…"
		}
		return originOf(u) + tail
	})
}

// statusText is how a server's failure is shown: cleaned of control
// characters (a server's own error text may carry them), with URLs cut
// to their origin.
func statusText(err error) string {
	return redactURLs(cleanText(err.Error()))
}

// shownError is err as the agent and the log see it (statusText), still
// matching errors.Is and errors.As for what it wraps.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

func shown(err error) error {
	if err == nil {
		return nil
	}
	var already *shownError
	if errors.As(err, &already) && already == err {
		return err
	}
	return &shownError{msg: statusText(err), err: err}
}
