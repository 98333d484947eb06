package hostapi

import (
	"errors"
	"iter"
	"strings"
	"sync"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/snapshot"
)

// The typed, read-only view of a served catalog, for hosts that act on
// tools rather than only answer searches about them (the MCP gateway routes
// call_tool by it). Search and Inspect answers stay the module's bytes; this
// view is the same catalog decoded natively in the process, from the same
// snapshot, so its hashes are those of every answer.

// Catalog is a read-only view of one snapshot's catalog: its hashes, its
// products and its tools, in the catalog's order (products by ID, tools by
// canonical path within each). It is immutable and safe for concurrent use;
// every value it hands out is a copy or a string, so no caller can change
// what another sees. It holds its own copy of the text it shows (not the
// snapshot, whose index is most of its size).
type Catalog struct {
	format, profile         string
	sourceHash, surfaceHash string
	skipped                 int    // tools the import skipped
	importSummary           string // the stored import report's Summary, "" when none
	products                []Product
	tools                   []Tool
	byPath                  map[string]int // canonical path → index in tools
}

// Product is one product of a catalog: for an MCP catalog, one server (ID
// is ProductID of its name, Name the name itself).
type Product struct {
	ID          string
	Name        string // display name
	Description string
	Tools       int // how many tools it has in the catalog
}

// Tool is one tool of a catalog: what an agent is told of it and how it is
// reached. Every field is a string, a number or a bool, so a Tool is a
// value its holder cannot share by mistake.
type Tool struct {
	CanonicalPath string // "<product ID>.<name>": what search answers name and Inspect takes
	ProductID     string
	Name          string // the tool's name within its product
	Title         string
	Description   string
	AgentSummary  string
	// InputSchema is the tool's JSON Schema of arguments as the catalog
	// stores it (compact, keys sorted), "" when it has none (DWS tools,
	// whose parameters are command-line flags).
	InputSchema string
	// Safety, as the catalog gives it: Effect is read, write or
	// destructive; Risk low, medium or high; Confirmation not_required or
	// user_required; Idempotency idempotent, non_idempotent or unknown.
	Effect, Risk, Confirmation, Idempotency string
	// Mode is how the tool is implemented (mcp, local, composite,
	// function) and Availability whether an agent may run it ("available").
	Mode, Availability string
	// RPCProductID and RPCName name the remote procedure behind the tool
	// when its source gives one: for an MCP catalog, the server's product
	// ID and the tool's name on that server (what tools/call takes), which
	// may differ from Name. Both "" otherwise.
	RPCProductID, RPCName string
	Deprecated            bool
}

// Format is the importer the catalog came from ("dws", "mcp", "openai", …).
func (c *Catalog) Format() string { return c.format }

// Profile is the ranking profile the snapshot records ("dws-v1", …).
func (c *Catalog) Profile() string { return c.profile }

// Hashes are the catalog hashes every search answer of this snapshot
// carries (catalog.source_hash, catalog.surface_hash) and Inspect expects.
func (c *Catalog) Hashes() (source, surface string) { return c.sourceHash, c.surfaceHash }

// ToolsSkipped is how many tools of the source the import that made the
// catalog skipped (each named, with why, in ImportSummary); 0 also when the
// snapshot stores no import report (a DWS catalog, whose import is strict).
func (c *Catalog) ToolsSkipped() int { return c.skipped }

// ImportSummary is the stored import report in a few lines for a log or a
// terminal: the counts, the skipped tools with why, the source fields some
// tool ignored; "" when the snapshot stores none.
func (c *Catalog) ImportSummary() string { return c.importSummary }

// Len is the number of tools.
func (c *Catalog) Len() int { return len(c.tools) }

// Tools yields every tool, products in ID order and tools in canonical path
// order within each.
func (c *Catalog) Tools() iter.Seq[Tool] {
	return func(yield func(Tool) bool) {
		for i := range c.tools {
			if !yield(c.tools[i]) {
				return
			}
		}
	}
}

// Products yields every product in ID order.
func (c *Catalog) Products() iter.Seq[Product] {
	return func(yield func(Product) bool) {
		for i := range c.products {
			if !yield(c.products[i]) {
				return
			}
		}
	}
}

// Tool is the tool with this canonical path (exactly, as search answers
// spell it), and whether there is one. Cost: a map lookup.
func (c *Catalog) Tool(canonicalPath string) (Tool, bool) {
	i, ok := c.byPath[canonicalPath]
	if !ok {
		return Tool{}, false
	}
	return c.tools[i], true
}

// DecodeCatalog is the view of a snapshot's catalog, decoded natively in the
// process: the snapshot is checked as Open checks it (header, checksum,
// body), and a bad one is a *wire.Error (invalid_snapshot,
// unsupported_snapshot_version). snapshot is not retained. Cost: a native
// decode of the whole snapshot and a copy of the catalog's text (for the
// generic MCP catalog's 527 tools, 2.6 to 3.6 ms and 0.5 to 1 ms on a loaded
// machine, BenchmarkDecodeCatalog); the decoded index is dropped at once.
func DecodeCatalog(snapshot []byte) (*Catalog, error) {
	body, report, err := snapshotDecode(snapshot)
	if err != nil {
		return nil, err
	}
	return viewOf(body.Profile, &body.Catalog, report), nil
}

// snapshotDecode decodes a snapshot and its stored import report, as
// compile.Open checks them; either error is already a *wire.Error.
func snapshotDecode(snap []byte) (*snapshot.Body, *importer.Report, error) {
	body, err := snapshot.Decode(snap)
	if err != nil {
		return nil, nil, err
	}
	report, err := compile.Report(body)
	if err != nil {
		return nil, nil, err
	}
	return body, report, nil
}

// viewOf copies what the view shows of a catalog (decoded from a snapshot,
// or an engine's own), its profile's name and its import report (nil:
// none). Every string is cloned: decoded ones are views into the body's
// private copy, which would otherwise stay alive, index and all, as long as
// one of them does.
func viewOf(profile string, cat *catalog.Catalog, report *importer.Report) *Catalog {
	c := &Catalog{
		format: strings.Clone(cat.Format), profile: strings.Clone(profile),
		sourceHash:  strings.Clone(cat.Version.SourceHash),
		surfaceHash: strings.Clone(cat.Version.SurfaceHash),
		products:    make([]Product, 0, len(cat.Products)),
	}
	if report != nil {
		c.skipped, c.importSummary = report.ToolsSkipped, report.Summary()
	}
	n := 0
	for i := range cat.Products {
		n += len(cat.Products[i].Tools)
	}
	c.tools = make([]Tool, 0, n)
	c.byPath = make(map[string]int, n)
	for pi := range cat.Products {
		p := &cat.Products[pi]
		c.products = append(c.products, Product{ID: strings.Clone(p.ID), Name: strings.Clone(p.Name),
			Description: strings.Clone(p.Description), Tools: len(p.Tools)})
		for ti := range p.Tools {
			t := toolOf(&p.Tools[ti])
			c.byPath[t.CanonicalPath] = len(c.tools)
			c.tools = append(c.tools, t)
		}
	}
	return c
}

func toolOf(t *catalog.Tool) Tool {
	v := Tool{
		CanonicalPath: strings.Clone(t.Identity.CanonicalPath),
		ProductID:     strings.Clone(t.Identity.ProductID),
		Name:          strings.Clone(t.Identity.Name),
		Title:         strings.Clone(t.Title),
		Description:   strings.Clone(t.Description),
		AgentSummary:  strings.Clone(t.Selection.AgentSummary),
		InputSchema:   string(t.InputSchema),
		Effect:        strings.Clone(t.Safety.Effect),
		Risk:          strings.Clone(t.Safety.Risk),
		Confirmation:  strings.Clone(t.Safety.Confirmation),
		Idempotency:   strings.Clone(t.Safety.Idempotency),
		Mode:          strings.Clone(t.Interface.Mode),
		Availability:  strings.Clone(t.Interface.Availability),
		Deprecated:    t.Deprecated,
	}
	if ref := t.Interface.Ref; ref != nil {
		v.RPCProductID, v.RPCName = strings.Clone(ref.ProductID), strings.Clone(ref.RPCName)
	}
	return v
}

// catalogView is Engine.Catalog's view of one generation, made on first
// use: most hosts never ask for it, and it costs a native decode.
type catalogView struct {
	mu   sync.Mutex
	view *Catalog
}

// Catalog is the view of the catalog serving now, the same snapshot every
// answer that starts after it returns comes from until the next Swap. It is
// made once per snapshot, on the first call after the snapshot was opened
// or swapped in (a native decode of the snapshot, read from an instance's
// memory where the host keeps no copy; see DecodeCatalog), and kept as long
// as the snapshot serves. Calls after Close fail with ErrClosed.
func (e *Engine) Catalog() (*Catalog, error) {
	for {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return nil, ErrClosed
		}
		g := e.gen
		e.mu.Unlock()
		if e.native != nil {
			return e.native.catalog()
		}
		if g == nil {
			// Neither engine: refused, never a nil dereference.
			return nil, errNoCatalogView
		}
		view, err, swapped := g.catalog(e)
		if !swapped {
			return view, err
		}
		// g was swapped out before its snapshot could be read: the view
		// asked for is the one serving now.
	}
}

// errNoCatalogView: the engine keeps no generation of the module's kind.
var errNoCatalogView = errors.New("toolsift: this engine has no catalog view")

// catalog is g's view, made now if it was not yet; swapped reports that g
// no longer serves and nothing holds its snapshot.
func (g *generation) catalog(e *Engine) (view *Catalog, err error, swapped bool) {
	g.view.mu.Lock()
	defer g.view.mu.Unlock()
	if g.view.view != nil {
		return g.view.view, nil, false
	}
	snap, done, lent := e.lend(g)
	if lent != g {
		if done != nil {
			done()
		}
		return nil, nil, true
	}
	if snap == nil {
		return nil, e.closedOr(errNoSnapshot), false // Close may have taken the last holder meanwhile
	}
	body, report, err := snapshotDecode(snap)
	done()
	if err != nil {
		// The module opened these very bytes: a refusal here is a bug.
		return nil, errors.Join(errors.New("toolsift: the snapshot serving does not decode natively"), err), false
	}
	g.view.view = viewOf(body.Profile, &body.Catalog, report)
	return g.view.view, nil, false
}

// ProductID is the product ID a catalog import gives a group of tools that
// its source names (an MCP server's name, for one): the name with its
// surrounding white space trimmed and each "." replaced by "_", since a
// canonical path is "<product ID>.<name>". A host that filters searches by
// server (wire.SearchRequest.ProductIDs) or routes by product uses it to
// agree with the importer.
func ProductID(name string) string { return native.ProductID(name) }
