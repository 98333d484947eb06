package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ServeOptions are where and how ListenAndServe serves.
type ServeOptions struct {
	// Listen is the MCP endpoint's address (CheckListen says which are
	// allowed). Listener, when set, is used instead (tests).
	Listen   string
	Listener net.Listener
	// OpsListen, when set, serves /healthz, /readyz and /metrics on a
	// second address, without authentication and without TLS (a
	// cluster-internal port). OpsListener is its listener (tests).
	OpsListen   string
	OpsListener net.Listener
	// TLS serves HTTPS with this certificate and key (PEM files).
	TLS TLSConfig
	// DrainTimeout bounds how long a stop waits for the requests in flight
	// to finish. Default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Log receives one line per address served; nil: none.
	Log io.Writer
}

// DefaultDrainTimeout is under Kubernetes' default grace period (30 s),
// so that the process exits on its own before it is killed.
const DefaultDrainTimeout = 25 * time.Second

// ListenAndServe serves handler (HTTPHandlerWith's) until ctx ends, then
// drains: /readyz turns 503, the listeners close (no new connection), the
// requests in flight (a call_tool waiting on its server) finish within
// DrainTimeout, and then the streams still open (a client's standing GET
// for notifications, which never ends by itself) are cut. It returns nil
// after a drain, or the error that stopped it serving.
func (g *Gateway) ListenAndServe(ctx context.Context, handler http.Handler, opts ServeOptions) error {
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	tlsConfig, err := opts.TLS.Load()
	if err != nil {
		return err
	}
	ln := opts.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", opts.Listen); err != nil {
			return err
		}
	}
	scheme := "http"
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		scheme = "https"
	}
	opsLn := opts.OpsListener
	if opsLn == nil && opts.OpsListen != "" {
		if opsLn, err = net.Listen("tcp", opts.OpsListen); err != nil {
			ln.Close()
			return err
		}
	}

	// Every request's context derives from streams: cancelling it ends
	// the handlers still running once the drain's time is up.
	streams, cut := context.WithCancel(context.Background())
	defer cut()
	var inflight sync.WaitGroup
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A GET is a standing stream of notifications: it never ends by
		// itself, so a drain does not wait for it.
		if r.Method != http.MethodGet {
			inflight.Add(1)
			defer inflight.Done()
		}
		handler.ServeHTTP(w, r)
	})
	newServer := func(h http.Handler) *http.Server {
		// Slow headers and idle keep-alive connections are the server's to
		// bound; slow bodies are the handler's (408).
		return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
			BaseContext: func(net.Listener) context.Context { return streams }}
	}
	endpoint := newServer(counted)
	servers := []*http.Server{endpoint}
	done := make(chan error, 2)
	go func() { done <- endpoint.Serve(ln) }()
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "wasmhost mcp: serving streamable HTTP on %s://%s/\n", scheme, ln.Addr())
	}
	if opsLn != nil {
		opsServer := newServer(g.OpsHandler())
		servers = append(servers, opsServer)
		go func() { done <- opsServer.Serve(opsLn) }()
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "wasmhost mcp: serving /healthz, /readyz and /metrics on http://%s/\n", opsLn.Addr())
		}
	}

	select {
	case err := <-done:
		for _, s := range servers {
			_ = s.Close()
		}
		return err
	case <-ctx.Done():
	}
	g.Drain()
	deadline, cancel := context.WithTimeout(context.Background(), opts.DrainTimeout)
	defer cancel()
	// Shutdown closes the listeners and the idle connections at once and
	// returns when every connection is idle; the requests in flight are
	// waited for (up to the deadline), then the streams are cut.
	shut := make(chan error, 1)
	go func() { shut <- endpoint.Shutdown(deadline) }()
	finished := make(chan struct{})
	go func() { inflight.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-deadline.Done():
	}
	cut()
	select {
	case err = <-shut:
	case <-time.After(time.Second):
		err = endpoint.Close()
	}
	for _, s := range servers[1:] {
		_ = s.Close()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		_ = endpoint.Close()
		return nil // the drain's time was up: what was still running is cut
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
