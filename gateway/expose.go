package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// exposedTools are the tools --expose found added to the gateway's own
// tools/list: canonical path → the definition added, so that a swap can
// drop the ones that left the catalog and update the ones that changed.
// The SDK sends notifications/tools/list_changed on every AddTool and
// RemoveTools.
type exposedTools struct {
	mu    sync.Mutex
	added map[string]*mcp.Tool
}

// expose adds the tools an answer references that are not exposed yet.
func (g *Gateway) expose(gen *generation, a *searchAnswer) {
	g.exposed.mu.Lock()
	defer g.exposed.mu.Unlock()
	if g.exposed.added == nil {
		g.exposed.added = map[string]*mcp.Tool{}
	}
	for _, c := range a.Candidates {
		if g.exposed.added[c.CanonicalPath] != nil {
			continue
		}
		r, ok := gen.routes[c.CanonicalPath]
		if !ok {
			continue
		}
		def, err := exposedDefinition(r.tool)
		if err != nil {
			g.log.Warn("expose: tool left out", "tool", c.CanonicalPath, "why", err.Error())
			continue
		}
		g.server.AddTool(def, g.exposedHandler(c.CanonicalPath))
		g.exposed.added[c.CanonicalPath] = def
	}
}

// syncExposed follows a swap: an exposed tool no longer in the catalog is
// removed, one whose definition changed is replaced.
func (g *Gateway) syncExposed(gen *generation) {
	g.exposed.mu.Lock()
	defer g.exposed.mu.Unlock()
	paths := make([]string, 0, len(g.exposed.added))
	for p := range g.exposed.added {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var gone []string
	for _, p := range paths {
		r, ok := gen.routes[p]
		var def *mcp.Tool
		var err error
		if ok {
			def, err = exposedDefinition(r.tool)
		}
		if !ok || err != nil {
			gone = append(gone, p)
			delete(g.exposed.added, p)
			continue
		}
		if !sameDefinition(def, g.exposed.added[p]) {
			g.server.AddTool(def, g.exposedHandler(p))
			g.exposed.added[p] = def
		}
	}
	if len(gone) > 0 {
		g.server.RemoveTools(gone...)
	}
}

// exposedHandler forwards a direct call of an exposed tool through the
// same checks as call_tool, against the catalog serving at call time.
func (g *Gateway) exposedHandler(path string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		gen, werr := g.serving()
		if werr != nil {
			return errorResult(werr), nil
		}
		r, ok := gen.routes[path]
		if !ok {
			return errorResult(wire.Discovery("catalog_changed", path+" is no longer in the catalog; search again")), nil
		}
		return g.forward(ctx, r, req.Params.Arguments), nil
	}
}

// exposedDefinition is the MCP tool for a catalog tool, named by its
// canonical path; a name or schema the SDK would refuse leaves it out.
func exposedDefinition(t *hostapi.Tool) (*mcp.Tool, error) {
	name := t.CanonicalPath
	if len(name) == 0 || len(name) > 128 {
		return nil, fmt.Errorf("name of %d bytes (1-128 allowed)", len(name))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return nil, fmt.Errorf("name has %q, which MCP tool names may not", r)
		}
	}
	schema := json.RawMessage(`{"type":"object"}`)
	if len(t.InputSchema) > 0 {
		var probe struct {
			Type any `json:"type"`
		}
		if err := json.Unmarshal([]byte(t.InputSchema), &probe); err != nil || probe.Type != "object" {
			return nil, fmt.Errorf(`input schema is not of type "object"`)
		}
		schema = json.RawMessage(t.InputSchema)
	}
	return &mcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: schema, Annotations: toolAnnotations(t)}, nil
}

func sameDefinition(a, b *mcp.Tool) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
