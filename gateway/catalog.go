package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer"
	mcpimport "github.com/toolsift/toolsift/core/importer/mcp"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/hostapi"
)

// generation is one catalog the gateway serves: the hashes every answer
// carries, and a route from each canonical path to the server that owns the
// tool. It is replaced whole, never edited.
type generation struct {
	empty       bool // no server up offers a tool: nothing to search
	sourceHash  string
	surfaceHash string
	toolCount   int
	routes      map[string]route // canonical path → owner
	catalogJSON []byte           // the mcp-format catalog it was built from
	engine      *hostapi.Engine  // serves this catalog (nil when empty before any build)
}

// route is where call_tool sends a canonical path, and what it may do.
type route struct {
	server *downstream
	name   string // the tool's name on its server (tools/call "name")
	tool   *catalog.Tool
}

// AssembleCatalog is the mcp-format catalog of the given tool lists:
// {"servers": {"<server>": {"tools": […]}}}, the bytes that
// `wasmhost snapshot build --format mcp` takes. encoding/json writes map
// keys sorted, so the same lists always give the same bytes.
func AssembleCatalog(lists map[string][]*mcp.Tool) ([]byte, error) {
	type toolsList struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	doc := struct {
		Servers map[string]toolsList `json:"servers"`
	}{Servers: map[string]toolsList{}}
	for name, tools := range lists {
		if tools == nil {
			tools = []*mcp.Tool{}
		}
		doc.Servers[name] = toolsList{Tools: tools}
	}
	return json.Marshal(doc)
}

// rebuild assembles the catalog from every server that is up, and if it
// differs from the one serving, builds a snapshot natively, opens or swaps
// it into the engine and publishes the new generation. A catalog that
// fails to build leaves the old one serving (fail closed) and is logged.
func (g *Gateway) rebuild(ctx context.Context) {
	g.buildMu.Lock()
	defer g.buildMu.Unlock()
	lists := map[string][]*mcp.Tool{}
	owners := map[string]*downstream{} // product ID → server
	tools := 0
	for _, d := range g.servers {
		session, list, _ := d.state()
		if session == nil {
			continue
		}
		lists[d.cfg.Name] = list
		owners[native.ProductID(d.cfg.Name)] = d
		tools += len(list)
	}
	data, err := AssembleCatalog(lists)
	if err != nil {
		g.log.Error("catalog: assemble", "error", err.Error())
		return
	}
	if current := g.current(); current != nil && bytes.Equal(current.catalogJSON, data) {
		return
	}
	if tools == 0 {
		empty := &generation{empty: true, routes: map[string]route{}, catalogJSON: data}
		g.genMu.Lock()
		g.gen = empty
		g.genMu.Unlock()
		g.swapped(empty)
		g.log.Warn("catalog: no server up offers a tool; search_tools answers catalog_empty until one does")
		return
	}
	started := time.Now()
	snap, report, err := snapshot.FromCatalog(mcpimport.Format, data, importer.Options{})
	if err != nil {
		g.log.Error("catalog: build refused; the previous catalog keeps serving", "error", err.Error())
		return
	}
	if report != nil && report.ToolsSkipped > 0 {
		g.log.Warn("catalog: tools skipped by the importer", "report", report.Summary())
	}
	body, err := snapshot.Decode(snap)
	if err != nil {
		g.log.Error("catalog: decode own snapshot", "error", err.Error())
		return
	}
	next := &generation{routes: map[string]route{}, catalogJSON: data}
	for pi := range body.Catalog.Products {
		product := &body.Catalog.Products[pi]
		for ti := range product.Tools {
			t := &product.Tools[ti]
			ref := t.Interface.Ref
			if ref == nil || owners[ref.ProductID] == nil {
				continue
			}
			next.routes[t.Identity.CanonicalPath] = route{server: owners[ref.ProductID], name: ref.RPCName, tool: t}
			next.toolCount++
		}
	}
	// The swap and the new routes are published together: call_tool never
	// sees the engine of one catalog with the routes of another.
	g.genMu.Lock()
	err = g.load(ctx, snap)
	if err == nil {
		info := g.engine.Info()
		next.sourceHash, next.surfaceHash, next.engine = info.SourceHash, info.SurfaceHash, g.engine
		g.gen = next
	}
	g.genMu.Unlock()
	if err != nil {
		g.log.Error("catalog: the engine refused the snapshot; the previous catalog keeps serving", "error", err.Error())
		return
	}
	g.swapped(next)
	g.log.Info("catalog swapped", "tools", next.toolCount, "servers", len(lists),
		"source_hash", next.sourceHash, "surface_hash", next.surfaceHash, "build", time.Since(started).Round(time.Millisecond).String())
}

// load opens the first snapshot, or swaps a later one in atomically.
func (g *Gateway) load(ctx context.Context, snap []byte) error {
	if g.engine == nil {
		engine, err := hostapi.Open(ctx, snap, g.opts.HostOptions...)
		if err != nil {
			return err
		}
		g.engine = engine
		return nil
	}
	return g.engine.Swap(ctx, snap)
}

// swapped runs after a new generation is published: the exposed tools
// follow it, and tests waiting for a swap are told.
func (g *Gateway) swapped(gen *generation) {
	if g.opts.ExposeFound {
		g.syncExposed(gen)
	}
	if g.onSwap != nil {
		g.onSwap(gen)
	}
}

func (g *Gateway) current() *generation {
	g.genMu.RLock()
	defer g.genMu.RUnlock()
	return g.gen
}

// CatalogJSON is the mcp-format catalog the gateway serves now (nil before
// the first build): build it with `wasmhost snapshot build --format mcp` to
// get the same snapshot, hashes and answers.
func (g *Gateway) CatalogJSON() []byte {
	if gen := g.current(); gen != nil {
		return gen.catalogJSON
	}
	return nil
}

// Hashes are the catalog hashes serving now ("" for an empty catalog).
func (g *Gateway) Hashes() (source, surface string) {
	if gen := g.current(); gen != nil {
		return gen.sourceHash, gen.surfaceHash
	}
	return "", ""
}

func (gen *generation) String() string {
	return fmt.Sprintf("%d tools, source_hash %s", gen.toolCount, gen.sourceHash)
}
