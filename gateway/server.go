package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/native"
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
		return errorResult(werr), nil
	}
	products := make([]string, len(args.Servers))
	for i, s := range args.Servers {
		products[i] = native.ProductID(s)
	}
	request, err := json.Marshal(wire.SearchRequest{
		Version: wire.SearchVersion, Query: args.Query, Subqueries: args.Subqueries, Limit: args.Limit,
		ProductIDs: products, Effects: args.Effects, ExcludeCanonical: args.Exclude,
	})
	if err != nil {
		return errorResult(wire.Internal("encode_failed", err.Error())), nil
	}
	answer, err := gen.engine.Search(ctx, request)
	if err != nil {
		return errorResult(engineError(err)), nil
	}
	if g.opts.ExposeFound {
		g.expose(gen, answer)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(answer)}, &mcp.TextContent{Text: g.renderSearch(answer)}},
		StructuredContent: json.RawMessage(answer),
	}, nil
}

// inspectTool answers with the engine's schema-inspect.v1 bytes unchanged.
func (g *Gateway) inspectTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args inspectArgs
	if werr := decodeArgs(req.Params.Arguments, &args); werr != nil {
		return errorResult(werr), nil
	}
	gen, werr := g.serving()
	if werr != nil {
		return errorResult(werr), nil
	}
	answer, werr := inspect(ctx, gen, args.Path, args.SourceHash, args.SurfaceHash)
	if werr != nil {
		return errorResult(werr), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(answer)}},
		StructuredContent: json.RawMessage(answer),
	}, nil
}

// callTool is the one place a call leaves the gateway. In order: the
// arguments decode; the catalog is not empty; the module's Inspect accepts
// the path under the caller's hashes (catalog_changed when stale,
// unknown_path for a tool that is not in it); the path is a tool of a
// server that is up; a destructive tool's server allows it; the call
// answers within the server's timeout. The server's result comes back
// unchanged, its isError included.
func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args callArgs
	if werr := decodeArgs(req.Params.Arguments, &args); werr != nil {
		return errorResult(werr), nil
	}
	gen, werr := g.serving()
	if werr != nil {
		return errorResult(werr), nil
	}
	if _, werr := inspect(ctx, gen, args.Path, args.SourceHash, args.SurfaceHash); werr != nil {
		return errorResult(werr), nil
	}
	r, ok := gen.routes[args.Path]
	if !ok {
		return errorResult(wire.Validation("unknown_path", fmt.Sprintf("%q is not a tool of a connected server (a server's name is not a tool: search for one of its tools)", args.Path))), nil
	}
	return g.forward(ctx, r, args.Arguments), nil
}

// forward checks the safety rule and sends the call to the owning server.
func (g *Gateway) forward(ctx context.Context, r route, arguments json.RawMessage) *mcp.CallToolResult {
	if werr := allowed(r); werr != nil {
		return errorResult(werr)
	}
	if a := bytes.TrimSpace(arguments); len(a) > 0 && a[0] != '{' && !bytes.Equal(a, []byte("null")) {
		return errorResult(wire.Validation("invalid_arguments", `"arguments" must be an object`))
	}
	var sent any
	if len(bytes.TrimSpace(arguments)) > 0 && !bytes.Equal(bytes.TrimSpace(arguments), []byte("null")) {
		sent = arguments
	}
	result, err := r.server.call(ctx, r.name, sent)
	if err != nil {
		return errorResult(downstreamError(r, err))
	}
	return result
}

// allowed is the safety rule: a search result never widens what an agent
// may do, so a destructive tool is forwarded only where the operator's
// config says "allowDestructive": true for its server.
func allowed(r route) *wire.Error {
	if r.tool.Safety.Effect == "destructive" && !r.server.cfg.AllowDestructive {
		return wire.Validation("destructive_not_allowed", fmt.Sprintf(
			"%s is destructive (by its annotations, or their absence) and server %q is not configured with \"allowDestructive\": true; the gateway does not forward it",
			r.tool.Identity.CanonicalPath, r.server.cfg.Name))
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

// serving is the generation to answer from, or catalog_empty.
func (g *Gateway) serving() (*generation, *wire.Error) {
	gen := g.current()
	if gen == nil || gen.empty || gen.engine == nil {
		return nil, wire.Discovery("catalog_empty", "no connected server offers a tool yet: "+g.statusLine())
	}
	return gen, nil
}

func (g *Gateway) statusLine() string {
	var parts []string
	for _, s := range g.Status() {
		parts = append(parts, fmt.Sprintf("%s %s", s.Name, s.Status))
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
	var typed *hostapi.Error
	if errors.As(err, &typed) {
		return &wire.Error{Category: typed.Category, Code: typed.Code, Reason: typed.Reason, Message: typed.Message}
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

// searchAnswer is the part of a tool-search.v1 answer the text rendering
// shows.
type searchAnswer struct {
	Catalog struct {
		SourceHash  string `json:"source_hash"`
		SurfaceHash string `json:"surface_hash"`
	} `json:"catalog"`
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

// renderSearch is the short text form of an answer: one line a tool, the
// hashes to pass on, and the servers that are down.
func (g *Gateway) renderSearch(answer []byte) string {
	var a searchAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool(s). Pass source_hash=%s surface_hash=%s to inspect_tool and call_tool.\n",
		len(a.Candidates), a.Catalog.SourceHash, a.Catalog.SurfaceHash)
	for i, c := range a.Candidates {
		summary := c.AgentSummary
		if summary == "" {
			summary = c.Title
		}
		fmt.Fprintf(&b, "%d. %s [%s] %s\n", i+1, c.CanonicalPath, c.Effect, summary)
	}
	if a.WeakMatch {
		b.WriteString("(weak match: try other words)\n")
	}
	if a.Hint != "" {
		b.WriteString("hint: " + a.Hint + "\n")
	}
	for _, s := range g.Status() {
		if !s.Up {
			fmt.Fprintf(&b, "unavailable: server %s (%s); its tools are not in the catalog until it is up\n", s.Name, s.Status)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// toolAnnotations are the MCP hints of a catalog tool's safety, for the
// tools --expose found adds.
func toolAnnotations(t *catalog.Tool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: t.Title}
	switch t.Safety.Effect {
	case "read":
		a.ReadOnlyHint, a.DestructiveHint = true, ptr(false)
	case "write":
		a.DestructiveHint = ptr(false)
	default:
		a.DestructiveHint = ptr(true)
	}
	a.IdempotentHint = t.Safety.Idempotency == "idempotent"
	return a
}
