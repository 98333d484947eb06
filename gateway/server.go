package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

func (g *Gateway) newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolsift-gateway", Title: "toolsift MCP gateway", Version: Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// No SDK logger: the gateway logs what it does itself, and the
		// SDK's "server run cancelled" error on every normal shutdown
		// would only mislead. No logging capability (the SDK's default);
		// tools with list_changed, which --expose found uses.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.AddTool(searchToolsTool, g.searchTools)
	s.AddTool(inspectToolTool, g.inspectTool)
	s.AddTool(callToolTool, g.callTool)
	s.AddReceivingMiddleware(g.filterToolsList) // --expose found's tools, per client (policy.go)
	return s
}

// searchTools answers with the engine's tool-search.v1 bytes unchanged (the
// first text content, and the structured content), then a short rendering
// for models that read text.
func (g *Gateway) searchTools(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args searchArgs
	if werr := decodeArgs(req.Params.Arguments, &args); werr != nil {
		return errorResult(werr), nil
	}
	gen, werr := g.serving()
	if werr != nil {
		return errorResult(g.maskForClient(ctx, req, werr)), nil
	}
	products := make([]string, len(args.Servers))
	for i, s := range args.Servers {
		products[i] = hostapi.ProductID(s)
	}
	sr := wire.SearchRequest{
		Version: wire.SearchVersion, Query: args.Query, Subqueries: args.Subqueries, Limit: args.Limit,
		ProductIDs: products, Effects: args.Effects, ExcludeCanonical: args.Exclude,
	}
	view, werr := g.restrictSearch(ctx, req, gen, &sr)
	if werr != nil {
		return errorResult(werr), nil
	}
	request, err := json.Marshal(sr)
	if err != nil {
		return errorResult(wire.Internal("encode_failed", err.Error())), nil
	}
	answer, err := gen.engine.Search(ctx, request)
	if err != nil {
		return errorResult(engineError(err)), nil
	}
	if shared := view.visibleShared(gen.shadows.shared(args.Query)); len(shared) > 1 && len(args.Subqueries) == 0 {
		answer = preferExact(ctx, gen, answer, sr, shared)
	}
	// The answer goes out as the engine's bytes; the gateway reads it once,
	// for the text rendering and the tools --expose found adds (an answer
	// it cannot read gets neither).
	rendered := ""
	var a searchAnswer
	if json.Unmarshal(answer, &a) == nil {
		if g.opts.ExposeFound {
			g.expose(gen, &a)
		}
		rendered = g.renderSearch(gen, &a, view)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(answer)}, &mcp.TextContent{Text: rendered}},
		StructuredContent: json.RawMessage(answer),
	}, nil
}

// inspectTool answers with the engine's schema-inspect.v1 bytes unchanged.
func (g *Gateway) inspectTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args inspectArgs
	if werr := decodeArgs(req.Params.Arguments, &args); werr != nil {
		return errorResult(werr), nil
	}
	_, r, answer, werr := g.resolve(ctx, args.Path, args.SourceHash, args.SurfaceHash)
	if werr == nil {
		werr = g.checkPolicy(ctx, req, r)
	} else {
		werr = g.maskForClient(ctx, req, werr)
	}
	if werr != nil {
		return errorResult(werr), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(answer)}},
		StructuredContent: json.RawMessage(answer),
	}, nil
}

// callTool is the one place a call leaves the gateway. In order: the
// arguments decode; the catalog is neither stale nor empty; the path
// resolves under the caller's hashes, those serving or a recent catalog's
// in which the tool is the same (resolve: catalog_changed, unknown_path);
// then forward: a destructive tool's server allows it, the arguments match
// the tool's input schema, an untrusted server still lists the same
// definition, and the call answers within the server's timeout. The
// server's result comes back unchanged, its isError included.
func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args callArgs
	if werr := decodeArgs(req.Params.Arguments, &args); werr != nil {
		return errorResult(werr), nil
	}
	_, r, _, werr := g.resolve(ctx, args.Path, args.SourceHash, args.SurfaceHash)
	if werr == nil {
		werr = g.checkPolicy(ctx, req, r)
	} else {
		werr = g.maskForClient(ctx, req, werr)
	}
	if werr != nil {
		return errorResult(werr), nil
	}
	return g.forward(ctx, r, args.Arguments), nil
}

// allowed is the safety rule: a search result never widens what an agent
// may do, so a destructive tool is forwarded only where the operator's
// config says "allowDestructive": true for its server. The effect is the
// guard's (trust.go): for an untrusted server, the riskier of the
// annotations' and the words'.
func allowed(r route) *wire.Error {
	if r.effect == "destructive" && !r.server.cfg.AllowDestructive {
		why := "by its annotations, or their absence"
		if r.tool.Effect != "destructive" {
			why = fmt.Sprintf("by its name or description: its annotations say %s, which the gateway does not believe of an untrusted server", r.tool.Effect)
		}
		return wire.Validation("destructive_not_allowed", fmt.Sprintf(
			"%s is destructive (%s) and server %q is not configured with \"allowDestructive\": true; the gateway does not forward it",
			r.tool.CanonicalPath, why, r.server.cfg.Name))
	}
	return nil
}

func downstreamError(r route, err error) *wire.Error {
	var unavailable *unavailableError
	var timeout *timeoutError
	switch {
	case errors.As(err, &unavailable):
		return wire.Internal("server_unavailable", unavailable.Error())
	case errors.As(err, &timeout):
		return wire.Internal("downstream_timeout", timeout.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return wire.Internal("deadline_exceeded", fmt.Sprintf("tools/call %q on server %q: %v", r.name, r.server.cfg.Name, err))
	}
	return wire.Internal("downstream_error", fmt.Sprintf("server %q answered tools/call %q with an error: %v", r.server.cfg.Name, r.name, err))
}

// inspect asks the module, which checks the hashes and the path exactly as
// `wasmhost inspect` does, and then checks the hashes against gen's too:
// the answer must be of the generation whose routes a call would use.
func inspect(ctx context.Context, gen *generation, path, sourceHash, surfaceHash string) ([]byte, *wire.Error) {
	request, err := json.Marshal(wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: path,
		ExpectedSourceHash: sourceHash, ExpectedSurfaceHash: surfaceHash})
	if err != nil {
		return nil, wire.Internal("encode_failed", err.Error())
	}
	answer, err := gen.engine.Inspect(ctx, request)
	if err != nil {
		return nil, engineError(err)
	}
	if sourceHash != gen.sourceHash || surfaceHash != gen.surfaceHash {
		return nil, wire.Discovery("catalog_changed", "the catalog changed while the request was answered; search again")
	}
	return answer, nil
}

// serving is the generation to answer from, or catalog_stale (a build
// failed: the catalog serving no longer describes the servers), or
// catalog_empty.
func (g *Gateway) serving() (*generation, *wire.Error) {
	g.genMu.RLock()
	gen, stale := g.gen, g.stale
	g.genMu.RUnlock()
	if stale != "" {
		return nil, wire.Discovery("catalog_stale", "the servers' tools changed and the new catalog could not be built; "+
			"nothing is answered from the old one until a build succeeds (the gateway's log says why)")
	}
	if gen == nil || gen.empty || gen.engine == nil {
		return nil, wire.Discovery("catalog_empty", "no connected server offers a tool yet: "+g.statusLine())
	}
	return gen, nil
}

func (g *Gateway) statusLine() string {
	var parts []string
	for _, s := range g.Status() {
		status := s.Status
		if s.LeftOut != "" {
			status = "unavailable: " + s.LeftOut
		}
		parts = append(parts, fmt.Sprintf("%s %s", s.Name, status))
	}
	return strings.Join(parts, "; ")
}

// decodeArgs decodes a tool's arguments strictly.
func decodeArgs(raw json.RawMessage, v any) *wire.Error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return wire.Validation("invalid_arguments", "arguments: "+err.Error())
	}
	if dec.More() {
		return wire.Validation("invalid_arguments", "arguments: trailing data")
	}
	return nil
}

// engineError is the wire error of an engine call: the module's own typed
// error, or an internal one for a host failure (a trap, a deadline).
func engineError(err error) *wire.Error {
	if werr := typedError(err); werr != nil {
		return werr
	}
	reason := "host_failure"
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		reason = "deadline_exceeded"
	}
	return wire.Internal(reason, err.Error())
}

// errorResult is a tool result the model can read: isError, with the
// compact {"error":{…}} object as text and as structured content.
func errorResult(werr *wire.Error) *mcp.CallToolResult {
	body := werr.AppendJSON(nil)
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
	}
}

// searchAnswer is the part of a tool-search.v1 answer the gateway reads:
// what the text rendering shows and --expose found adds.
type searchAnswer struct {
	Catalog    answerCatalog `json:"catalog"`
	Candidates []struct {
		CanonicalPath string `json:"canonical_path"`
		Title         string `json:"title"`
		AgentSummary  string `json:"agent_summary"`
		Effect        string `json:"effect"`
	} `json:"candidates"`
	Hint      string `json:"hint"`
	WeakMatch bool   `json:"weak_match"`
	Abstained bool   `json:"abstained"`
}

// renderSearch is the short text form of an answer: one line a tool (with
// the guard's effect where it is not the annotated one, and a flag on a
// tool that shares its name with another server's), the hashes to pass on,
// and the servers that are down or left out.
func (g *Gateway) renderSearch(gen *generation, a *searchAnswer, view *view) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool(s). Pass source_hash=%s surface_hash=%s to inspect_tool and call_tool.\n",
		len(a.Candidates), a.Catalog.SourceHash, a.Catalog.SurfaceHash)
	for i, c := range a.Candidates {
		summary := c.AgentSummary
		if summary == "" {
			summary = c.Title
		}
		effect := c.Effect
		if r, ok := gen.routes[c.CanonicalPath]; ok && r.effect != c.Effect {
			effect = fmt.Sprintf("%s; annotated %s, untrusted", r.effect, c.Effect)
		}
		fmt.Fprintf(&b, "%d. %s [%s] %s\n", i+1, c.CanonicalPath, effect, summary)
		if note := view.shadowNote(gen, c.CanonicalPath); note != "" {
			fmt.Fprintf(&b, "   (!) %s\n", note)
		}
	}
	if a.WeakMatch {
		b.WriteString("(weak match: try other words)\n")
	}
	if a.Hint != "" {
		b.WriteString("hint: " + a.Hint + "\n")
	}
	for _, s := range g.Status() {
		switch {
		case !view.showsServer(s.Name): // a client does not hear of a server its policy hides
		case !s.Up:
			fmt.Fprintf(&b, "server %s unavailable: %s; its tools are not in the catalog until it is up\n", s.Name, s.Status)
		case s.LeftOut != "":
			fmt.Fprintf(&b, "server %s unavailable: %s; its tools are left out of the catalog\n", s.Name, s.LeftOut)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// toolAnnotations are the MCP hints of a catalog tool's safety, for the
// tools --expose found adds.
func toolAnnotations(t *hostapi.Tool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: t.Title}
	switch t.Effect {
	case "read":
		a.ReadOnlyHint, a.DestructiveHint = true, ptr(false)
	case "write":
		a.DestructiveHint = ptr(false)
	default:
		a.DestructiveHint = ptr(true)
	}
	a.IdempotentHint = t.Idempotency == "idempotent"
	return a
}
