package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/wire"
)

// resolve checks path under the caller's hashes and returns the generation
// and route a call uses, with the module's schema-inspect.v1 answer for it.
//
// Under the hashes serving now the module checks them and the path, as
// `wasmhost inspect` does. Under the hashes of a recent catalog
// (history.go) the tool must be the same there and now (its server and its
// definition hash); then the module answers under the current hashes.
// Hashes of no recent catalog, or a tool that changed, answer
// catalog_changed. A swap between reading the generation and the module's
// answer (the module then answers catalog_changed) is retried on the new
// generation.
func (g *Gateway) resolve(ctx context.Context, path, sourceHash, surfaceHash string) (*generation, route, []byte, *wire.Error) {
	for attempt := 0; ; attempt++ {
		gen, werr := g.serving()
		if werr != nil {
			return nil, route{}, nil, werr
		}
		source, surface := sourceHash, surfaceHash
		current := source == gen.sourceHash && surface == gen.surfaceHash
		if !current && source != "" && surface != "" {
			if werr := g.sameTool(gen, path, source, surface); werr != nil {
				return nil, route{}, nil, werr
			}
			source, surface = gen.sourceHash, gen.surfaceHash
		}
		answer, werr := inspect(ctx, gen, path, source, surface)
		if werr != nil {
			if werr.Reason == "catalog_changed" && g.current() != gen && attempt < 3 {
				continue
			}
			return nil, route{}, nil, werr
		}
		r, ok := gen.routes[path]
		if !ok {
			return nil, route{}, nil, wire.Validation("unknown_path", fmt.Sprintf("%q is not a tool of a connected server (a server's name is not a tool: search for one of its tools)", path))
		}
		return gen, r, answer, nil
	}
}

// sameTool accepts path under the hashes of a recent catalog when the tool
// is the same there and in gen.
func (g *Gateway) sameTool(gen *generation, path, source, surface string) *wire.Error {
	g.genMu.RLock()
	then, known := g.history.find(source, surface)
	g.genMu.RUnlock()
	if !known {
		return wire.Discovery("catalog_changed", "these hashes are not those of the catalog serving or of a recent one; search again")
	}
	was, before := then[path]
	is, now := gen.routes[path]
	switch {
	case !before && !now:
		return nil // the module answers unknown_path
	case !now:
		return wire.Discovery("catalog_changed", path+" left the catalog since the search; search again")
	case !before:
		return wire.Discovery("catalog_changed", path+" joined the catalog after the search; search again")
	case was.server != is.server || was.def.hash != is.def.hash:
		return wire.Discovery("catalog_changed", path+" changed since the search (its definition on its server differs); search again")
	}
	return nil
}

// forward is the last part of the one checked call path, after resolve:
// the safety rule; the arguments' shape and, where the tool's schema
// compiles, their validity; for an untrusted server, that the tool's
// definition on the server is still the one in the catalog; then the call,
// within the server's timeout.
func (g *Gateway) forward(ctx context.Context, r route, arguments json.RawMessage) *mcp.CallToolResult {
	if werr := allowed(r); werr != nil {
		return errorResult(werr)
	}
	trimmed := bytes.TrimSpace(arguments)
	if len(trimmed) > 0 && trimmed[0] != '{' && !bytes.Equal(trimmed, []byte("null")) {
		return errorResult(wire.Validation("invalid_arguments", `"arguments" must be an object`))
	}
	message, compiled := r.def.schema.validate(r.def.tool.InputSchema, trimmed)
	if !compiled {
		g.warnSchemaOnce(r)
	}
	if message != "" {
		return errorResult(wire.Validation("invalid_arguments", fmt.Sprintf("the arguments do not match %s's input schema: %s", r.tool.CanonicalPath, message)))
	}
	if !r.server.cfg.Trusted {
		if werr := g.stillListed(ctx, r); werr != nil {
			return errorResult(werr)
		}
	}
	var sent any
	if len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		sent = json.RawMessage(trimmed)
	}
	result, err := r.server.call(ctx, r.name, sent)
	if err != nil {
		return errorResult(downstreamError(r, err))
	}
	return result
}

// stillListed re-checks, on an untrusted server, that the tool's current
// definition is the catalog's: a server can change a tool without sending
// list_changed (a rug pull), and the call must not reach a tool the agent
// did not inspect. The listing is at most RelistCache old.
func (g *Gateway) stillListed(ctx context.Context, r route) *wire.Error {
	l, err := r.server.fresh(ctx, g.opts.RelistCache)
	if err != nil {
		var unavailable *unavailableError
		if errors.As(err, &unavailable) {
			return wire.Internal("server_unavailable", unavailable.Error())
		}
		return wire.Internal("relist_failed", fmt.Sprintf("server %q: its tools could not be listed again before the call, so the call was not sent: %v", r.server.cfg.Name, err))
	}
	if l.hashOf(r.name) != r.def.hash {
		return wire.Discovery("catalog_changed", fmt.Sprintf("%s changed on server %q since the catalog was built (no list_changed was sent); the call was not sent; search again",
			r.tool.CanonicalPath, r.server.cfg.Name))
	}
	return nil
}

// warnSchemaOnce logs, once per definition, that a tool's schema does not
// compile and its calls go unchecked.
func (g *Gateway) warnSchemaOnce(r route) {
	r.def.schema.warned.Do(func() {
		g.log.Warn("input schema does not compile: calls go unchecked", "server", r.server.cfg.Name, "tool", r.name, "error", r.def.schema.err.Error())
	})
}
