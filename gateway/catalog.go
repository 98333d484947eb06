package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/core/wire"
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
	// unavailable are the servers that are up but whose tools are left
	// out of this catalog, with why, in config order.
	unavailable []unavailable
	shadows     shadowing // tools that share a name with another server's
}

// unavailable is a server left out of the catalog and why. The reason is
// the gateway's own words: never a URL, a header or a downstream message.
type unavailable struct{ server, reason string }

// route is where call_tool sends a canonical path, and what it may do.
type route struct {
	server *downstream
	name   string // the tool's name on its server (tools/call "name")
	tool   *hostapi.Tool
	def    *toolDef // the definition as listed, with its hash
	effect string   // the effect the destructive guard acts on (trust.go)
}

// catalogFormat is the importer of the catalog the gateway assembles: MCP
// tools/list results by server.
const catalogFormat = "mcp"

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

// rebuild builds the catalog from every server that is up, each server's
// tools imported, limited and checked on their own (isolate.go), so that a
// server that fails is left out and reported while the others serve. If
// the result differs from the catalog serving, it builds the snapshot
// natively, opens or swaps it into the engine and publishes the new
// generation. A build that fails for any other reason marks the catalog
// stale: every answer is refused (catalog_stale) until a build succeeds,
// since the old catalog no longer describes the servers.
func (g *Gateway) rebuild(ctx context.Context) {
	g.buildMu.Lock()
	defer g.buildMu.Unlock()
	began := time.Now()
	parts, left := g.importServers()
	parts, left = g.withinBudget(parts, left)
	g.log.Debug("catalog: servers imported one by one", "took", time.Since(began).Round(time.Millisecond).String())
	triedAlone := false
	for {
		err := g.publish(ctx, parts, left)
		if err == nil || ctx.Err() != nil {
			return // built, or the gateway is closing
		}
		// A catalog the engine's memory cannot hold is the budget's case:
		// the largest server is left out, and the rest tried again.
		if engineTooSmall(err) && len(parts) > 0 {
			parts, left = g.leaveOutLargest(parts, left, "the catalog with its tools does not fit the engine's memory limit (the largest server is left out first)")
			continue
		}
		// Was it one server after all? Each built alone says; those that
		// fail alone are left out and the build tried once more.
		var failed []string
		if !triedAlone && len(parts) > 1 {
			triedAlone = true
			parts, left, failed = g.buildsAlone(parts, left)
		}
		if len(failed) == 0 {
			g.markStale(err)
			return
		}
		g.log.Warn("catalog: servers that fail to build alone are left out", "servers", strings.Join(failed, ","))
	}
}

// buildSnapshot builds an assembled catalog's snapshot in the process: the
// bytes the module would build.
func buildSnapshot(ctx context.Context, data []byte) ([]byte, error) {
	return hostapi.BuildSnapshot(ctx, catalogFormat, data, hostapi.WithEngine(hostapi.NativeEngine))
}

// engineTooSmall reports whether the engine refused a snapshot for want of
// memory: hostapi's typed catalog_too_large, or the module's own out of
// memory trap when it opens one.
func engineTooSmall(err error) bool {
	if werr := typedError(err); werr != nil && werr.Reason == "catalog_too_large" {
		return true
	}
	return errors.Is(err, errEngineRefused) && strings.Contains(err.Error(), "out of memory")
}

// typedError is the module's typed error inside err, nil for a failure of
// the host (a trap, a deadline).
func typedError(err error) *wire.Error {
	var werr *wire.Error
	if errors.As(err, &werr) {
		return werr
	}
	return nil
}

// errEngineRefused marks a build the engine refused to open or swap in.
var errEngineRefused = errors.New("the engine refused the snapshot")

// publish assembles parts into the catalog, builds and swaps it in unless it
// is the catalog serving; left are the servers up but left out.
func (g *Gateway) publish(ctx context.Context, parts []*serverTools, left []unavailable) error {
	lists := map[string][]*mcp.Tool{}
	owners := map[string]*serverTools{} // product ID → server
	tools := 0
	for _, p := range parts {
		lists[p.d.cfg.Name] = p.listing.tools
		owners[hostapi.ProductID(p.d.cfg.Name)] = p
		tools += len(p.listing.tools)
	}
	slices.SortFunc(left, func(a, b unavailable) int { return g.order(a.server) - g.order(b.server) })
	data, err := AssembleCatalog(lists)
	if err == nil && g.buildFault != nil {
		err = g.buildFault() // tests only: a failure no server explains
	}
	if err != nil {
		return fmt.Errorf("assemble: %w", err)
	}
	if current := g.current(); current != nil && !g.isStale() && bytes.Equal(current.catalogJSON, data) {
		if !slices.Equal(current.unavailable, left) {
			same := *current
			same.unavailable = left
			g.publishGeneration(&same)
		}
		return nil
	}
	if tools == 0 {
		empty := &generation{empty: true, routes: map[string]route{}, catalogJSON: data, unavailable: left}
		g.publishGeneration(empty)
		g.log.Warn("catalog: no server up offers a tool; search_tools answers catalog_empty until one does")
		return nil
	}
	started := time.Now()
	// The snapshot is built natively (the module's bytes, many times
	// faster), and its catalog's view is what the routes are made from.
	snap, err := buildSnapshot(ctx, data)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	view, err := hostapi.DecodeCatalog(snap)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if view.ToolsSkipped() > 0 {
		g.log.Warn("catalog: tools skipped by the importer", "report", view.ImportSummary())
	}
	next := &generation{routes: map[string]route{}, catalogJSON: data, unavailable: left}
	for t := range view.Tools() {
		owner := owners[t.RPCProductID] // none for a tool without one ("")
		if owner == nil {
			continue
		}
		def := owner.defs[t.RPCName]
		if def == nil {
			continue
		}
		next.routes[t.CanonicalPath] = route{server: owner.d, name: t.RPCName, tool: &t, def: def,
			effect: guardEffect(t.Effect, owner.d.cfg.Trusted, t.RPCName, def.tool.Description)}
		next.toolCount++
	}
	next.shadows = g.findShadows(next.routes)
	g.logRaised(next.routes)
	// The swap and the new routes are published together: call_tool never
	// sees the engine of one catalog with the routes of another.
	g.genMu.Lock()
	err = g.load(ctx, snap)
	if err == nil {
		info := g.engine.Info()
		next.sourceHash, next.surfaceHash, next.engine = info.SourceHash, info.SurfaceHash, g.engine
		g.gen, g.stale = next, ""
		g.history.add(next)
	}
	g.genMu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %w", errEngineRefused, err)
	}
	g.swapped(next)
	g.log.Info("catalog swapped", "tools", next.toolCount, "servers", len(lists), "left_out", len(left),
		"source_hash", next.sourceHash, "surface_hash", next.surfaceHash, "build", time.Since(started).Round(time.Millisecond).String())
	return nil
}

// publishGeneration serves gen, which needs no engine change (an empty
// catalog, or the same one with other servers left out).
func (g *Gateway) publishGeneration(gen *generation) {
	g.genMu.Lock()
	g.gen, g.stale = gen, ""
	if !gen.empty {
		g.history.add(gen)
	}
	g.genMu.Unlock()
	g.swapped(gen)
}

// markStale refuses every answer until a build succeeds: the catalog
// serving no longer describes the servers, so its hashes must not let a
// call through to a tool that changed.
func (g *Gateway) markStale(err error) {
	g.genMu.Lock()
	g.stale = err.Error()
	g.genMu.Unlock()
	g.log.Error("catalog: build failed; every answer is refused (catalog_stale) until a build succeeds", "error", err.Error())
}

func (g *Gateway) isStale() bool {
	g.genMu.RLock()
	defer g.genMu.RUnlock()
	return g.stale != ""
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
