package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolsift/toolsift/hostapi"
)

// operations are what an operator watches: metrics, the audit log, and
// whether the gateway is draining.
type operations struct {
	metrics      *metrics
	audit        *slog.Logger
	logArguments bool
	draining     atomic.Bool
}

func newOperations(g *Gateway, cfg *Config) *operations {
	audit := g.opts.AuditLogger
	if audit == nil {
		audit = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	return &operations{metrics: newMetrics(g), audit: audit, logArguments: cfg.Audit.LogArguments}
}

// observe is the upstream server's receiving middleware: every tools/call
// is counted by tool and outcome and timed, and every call_tool (and
// direct call of an exposed tool) writes one audit line. Other methods
// pass through untouched.
func (g *Gateway) observe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		began := time.Now()
		result, err := next(ctx, method, req)
		took := time.Since(began)
		outcome := outcomeOf(result, err)
		m := g.ops.metrics
		tool := call.Params.Name
		switch tool {
		case searchToolsTool.Name:
			m.search.Observe(took.Seconds())
		case inspectToolTool.Name:
		case callToolTool.Name:
			m.callLatency.Observe(took.Seconds())
		default:
			tool = "exposed" // a canonical path: one label per tool would grow without bound
		}
		m.calls.WithLabelValues(tool, outcome).Inc()
		if outcome == "destructive_not_allowed" {
			m.refused.WithLabelValues(RefusedByGuard).Inc()
		}
		if tool != searchToolsTool.Name && tool != inspectToolTool.Name {
			path := g.auditCall(ctx, call, outcome, took)
			m.byServer.WithLabelValues(g.serverOfPath(path), outcome).Inc()
		}
		return result, err
	}
}

// outcomeOf names how a tools/call ended: ok; tool_error (the server's own
// isError result, passed through); the gateway's refusal reason
// (destructive_not_allowed, catalog_changed, …); or protocol_error (a
// JSON-RPC error, such as an unknown tool name).
func outcomeOf(result mcp.Result, err error) string {
	if err != nil {
		return "protocol_error"
	}
	r, ok := result.(*mcp.CallToolResult)
	if !ok || r == nil || !r.IsError {
		return "ok"
	}
	// The gateway's own refusals carry {"error":{"reason":…}} as
	// structured content (errorResult); a server's isError result does
	// not have that shape, or comes through as something else.
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		var doc struct {
			Error struct {
				Reason string `json:"reason"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &doc) == nil && isReasonCode(doc.Error.Reason) {
			return doc.Error.Reason
		}
	}
	return "tool_error"
}

// isReasonCode reports whether s has the shape of the gateway's reason
// codes (snake_case, short): a metric label must come from a small set,
// whatever a result carries.
func isReasonCode(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}

// ClientOf is the identity the HTTP endpoint authenticated for a request:
// its auth.TokenInfo (from the tool request, or ctx), or nil over stdio
// and without authentication.
func ClientOf(ctx context.Context, req *mcp.CallToolRequest) *auth.TokenInfo {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo
	}
	return auth.TokenInfoFromContext(ctx)
}

// auditCall writes the audit line of one call: who, which tool, under
// which hashes (the caller's, and those serving when it ended), the
// outcome and how long it took. The arguments only if the config says so.
func (g *Gateway) auditCall(ctx context.Context, call *mcp.CallToolRequest, outcome string, took time.Duration) (path string) {
	client, method := "", "none"
	if info := ClientOf(ctx, call); info != nil {
		client = info.UserID
		if m, ok := info.Extra[AuthMethodKey].(string); ok {
			method = m
		}
	}
	var args callArgs
	direct := call.Params.Name != callToolTool.Name
	if direct {
		args.Path = call.Params.Name
		args.Arguments = call.Params.Arguments
	} else {
		// Decoded leniently: a call refused for its arguments is audited
		// with whatever it named.
		_ = json.Unmarshal(call.Params.Arguments, &args)
	}
	attrs := []slog.Attr{
		slog.String("client", client),
		slog.String("auth", method),
		slog.String("tool", args.Path),
		slog.Bool("direct", direct),
		slog.String("source_hash", args.SourceHash),
		slog.String("surface_hash", args.SurfaceHash),
	}
	if gen := g.current(); gen != nil {
		attrs = append(attrs, slog.String("serving_source_hash", gen.sourceHash), slog.String("serving_surface_hash", gen.surfaceHash))
	}
	attrs = append(attrs, slog.String("outcome", outcome), slog.Float64("duration_ms", float64(took.Microseconds())/1000))
	if call.Session != nil {
		attrs = append(attrs, slog.String("session", call.Session.ID()))
	}
	if g.ops.logArguments && len(args.Arguments) > 0 {
		attrs = append(attrs, slog.Any("arguments", args.Arguments))
	}
	g.ops.audit.LogAttrs(context.Background(), slog.LevelInfo, "call_tool", attrs...)
	return args.Path
}

// serverOfPath is the configured server a canonical path names (its
// first segment is the server's product ID), or "unknown": a label from
// the config, never from what a client sent.
func (g *Gateway) serverOfPath(path string) string {
	product, _, ok := strings.Cut(path, ".")
	if ok {
		for _, d := range g.servers {
			if hostapi.ProductID(d.cfg.Name) == product {
				return d.cfg.Name
			}
		}
	}
	return "unknown"
}

// Ready reports whether the gateway should get traffic: a catalog serves
// (built, not stale, not empty) and it is not draining; otherwise why not
// (a reason code, never a server's name or state).
func (g *Gateway) Ready() (bool, string) {
	if g.ops.draining.Load() {
		return false, "draining"
	}
	if _, werr := g.serving(); werr != nil {
		return false, werr.Reason
	}
	return true, ""
}

// Drain marks the gateway as draining: /readyz answers 503 from now on, so
// that a load balancer stops sending it requests while those in flight
// finish.
func (g *Gateway) Drain() { g.ops.draining.Store(true) }
