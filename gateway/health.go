package gateway

import (
	"fmt"
	"net/http"
)

// The operations endpoints, none behind authentication:
//
//	/healthz  200 while the process serves (liveness)
//	/readyz   200 once a catalog serves and until draining; 503 otherwise,
//	          with a reason code only (readiness)
//	/metrics  Prometheus metrics: on the MCP address only when it has no
//	          authentication (a loopback gateway); with authentication, on
//	          the operations address (--ops-listen) only, since they name
//	          the servers, which a client's policy may hide from it
//
// Probes and scrapers carry no token, and what the two health endpoints
// answer says nothing a client could use.

// OpsHandler serves /healthz, /readyz and /metrics, for the operations
// address.
func (g *Gateway) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	g.healthRoutes(mux)
	mux.Handle("GET /metrics", g.MetricsHandler())
	return mux
}

func (g *Gateway) healthRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if ready, why := g.Ready(); !ready {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready:", why)
			return
		}
		fmt.Fprintln(w, "ready")
	})
}

// withOperations routes the MCP endpoint's own paths: the health
// endpoints, the protected-resource metadata in OAuth mode, /metrics
// without authentication; everything else is MCP (mcp, behind the guard
// and the authentication gate).
func (g *Gateway) withOperations(mcp http.Handler, authn *Authenticator) http.Handler {
	mux := http.NewServeMux()
	g.healthRoutes(mux)
	if authn == nil {
		mux.Handle("GET /metrics", g.MetricsHandler())
	} else if path := authn.MetadataPath(); path != "" {
		metadata := authn.MetadataHandler()
		mux.Handle(path, metadata)
		if path != "/.well-known/oauth-protected-resource" {
			// A client that looks at the root well-known path first finds
			// it too.
			mux.Handle("/.well-known/oauth-protected-resource", metadata)
		}
	}
	mux.Handle("/", mcp)
	return mux
}
