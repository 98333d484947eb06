package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/hostapi"
)

// Isolation. Each server's tools are imported and checked on their own,
// so that one server (hostile, broken or merely huge) can only take its own
// tools out of the catalog, never the others': its listing is capped while
// it is read (listing.go), its import is tried alone, and the catalog's
// byte budget leaves the largest server out first.

// serverTools is one server's tools as a catalog took them: immutable, and
// shared by every generation in which the server's list did not change.
type serverTools struct {
	d       *downstream
	listing *listing
	defs    map[string]*toolDef // by the tool's name on its server
}

// toolDef is one tool's definition as the server listed it.
type toolDef struct {
	tool   *mcp.Tool
	hash   string     // SHA-256 of its JSON (listing.go)
	schema toolSchema // its inputSchema, compiled on the first call
}

// importServers imports each server that is up on its own: those whose
// list imports are the parts of the next catalog, the others are left out
// with why. An import is cached by the list's digest, so a rebuild
// re-imports only the servers that changed.
func (g *Gateway) importServers() ([]*serverTools, []unavailable) {
	var parts []*serverTools
	var left []unavailable
	imported := map[string]*serverTools{}
	failedNow := map[string]importFailure{}
	for _, d := range g.servers {
		session, l, excluded := d.listed()
		switch {
		case session == nil:
			continue // down: its status says why
		case excluded != "":
			left = append(left, unavailable{d.cfg.Name, excluded})
			continue
		case l == nil || len(l.tools) == 0:
			continue
		}
		if cached := g.imported[d.cfg.Name]; cached != nil && cached.listing.digest == l.digest {
			parts = append(parts, cached)
			imported[d.cfg.Name] = cached
			continue
		}
		if failed, ok := g.importFailed[d.cfg.Name]; ok && failed.digest == l.digest {
			left = append(left, unavailable{d.cfg.Name, failed.reason})
			failedNow[d.cfg.Name] = failed
			continue
		}
		p, err := importAlone(d, l)
		if err != nil {
			// The importer's message quotes the server's own text: it goes
			// to the log, and the agent reads the gateway's words only.
			reason := "its tool list does not import (the gateway's log says why)"
			g.log.Warn("catalog: server left out: its tool list does not import", "server", d.cfg.Name, "error", err.Error())
			left = append(left, unavailable{d.cfg.Name, reason})
			failedNow[d.cfg.Name] = importFailure{l.digest, reason}
			continue
		}
		parts = append(parts, p)
		imported[d.cfg.Name] = p
	}
	g.imported, g.importFailed = imported, failedNow
	return parts, left
}

// importFailure is a list that did not import, kept so that the same list
// is not imported again on every rebuild the other servers cause.
type importFailure struct{ digest, reason string }

// importAlone runs the MCP importer over one server's list, as the catalog
// build will (a tool it refuses is skipped there too, not fatal).
func importAlone(d *downstream, l *listing) (*serverTools, error) {
	data, err := AssembleCatalog(map[string][]*mcp.Tool{d.cfg.Name: l.tools})
	if err != nil {
		return nil, err
	}
	if err := hostapi.CheckCatalog(catalogFormat, data); err != nil {
		return nil, err
	}
	p := &serverTools{d: d, listing: l, defs: make(map[string]*toolDef, len(l.tools))}
	for i, t := range l.tools {
		if p.defs[t.Name] == nil { // a name listed twice: the importer keeps the first
			p.defs[t.Name] = &toolDef{tool: t, hash: l.hashes[i]}
		}
	}
	return p, nil
}

// withinBudget leaves servers out, the largest first (the last in config
// order among equals), until the parts' lists fit the catalog budget.
func (g *Gateway) withinBudget(parts []*serverTools, left []unavailable) ([]*serverTools, []unavailable) {
	total := 0
	for _, p := range parts {
		total += p.listing.bytes
	}
	for total > g.opts.CatalogBudget && len(parts) > 0 {
		total -= parts[g.largest(parts)].listing.bytes
		parts, left = g.leaveOutLargest(parts, left, fmt.Sprintf(
			"its tools would take the catalog past its budget of %d bytes (the largest server is left out first)", g.opts.CatalogBudget))
	}
	return parts, left
}

// largest is the index of the part with the most bytes of tools, the last
// in config order among equals.
func (g *Gateway) largest(parts []*serverTools) int {
	largest := 0
	for i, p := range parts {
		q := parts[largest]
		if p.listing.bytes > q.listing.bytes || p.listing.bytes == q.listing.bytes && g.order(p.d.cfg.Name) > g.order(q.d.cfg.Name) {
			largest = i
		}
	}
	return largest
}

// leaveOutLargest leaves the largest part out, with why.
func (g *Gateway) leaveOutLargest(parts []*serverTools, left []unavailable, why string) ([]*serverTools, []unavailable) {
	i := g.largest(parts)
	p := parts[i]
	reason := fmt.Sprintf("%s: %d bytes of tools", why, p.listing.bytes)
	g.log.Warn("catalog: server left out", "server", p.d.cfg.Name, "why", reason)
	return slices.Delete(parts, i, i+1), append(left, unavailable{p.d.cfg.Name, reason})
}

// buildsAlone builds each part's snapshot alone: the parts that fail are
// left out (with why) and named in failed.
func (g *Gateway) buildsAlone(parts []*serverTools, left []unavailable) (kept []*serverTools, _ []unavailable, failed []string) {
	for _, p := range parts {
		data, err := AssembleCatalog(map[string][]*mcp.Tool{p.d.cfg.Name: p.listing.tools})
		if err == nil {
			_, err = buildSnapshot(context.Background(), data)
		}
		if err != nil {
			g.log.Warn("catalog: server left out: its tools do not build into a catalog", "server", p.d.cfg.Name, "error", err.Error())
			left = append(left, unavailable{p.d.cfg.Name, "its tools do not build into a catalog (the gateway's log says why)"})
			failed = append(failed, p.d.cfg.Name)
			delete(g.imported, p.d.cfg.Name)
			continue
		}
		kept = append(kept, p)
	}
	return kept, left, failed
}

// order is a server's place in the config file (0 first), for preferring
// the first listed and for reporting in the file's order.
func (g *Gateway) order(name string) int {
	if i, ok := g.position[name]; ok {
		return i
	}
	return len(g.position)
}
