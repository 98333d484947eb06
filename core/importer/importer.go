// Package importer turns catalog bytes of a named format into a catalog and
// the profile that ranks it. It is the one entry point the snapshot-building
// ABI call, the command-line host and the tests use, so that every host can
// import every format.
//
//	format     input                                         profile
//	dws        DWS dump: gzip'd tar or JSON object of files   dws-v1
//	toolsift   this project's toolsift-catalog.v1 JSON        generic-v3
//	mcp        MCP tools/list result(s)                       generic-v3
//	openai     OpenAI function tools (both API shapes)        generic-v3
//	anthropic  Anthropic tools                                generic-v3
//	beir       BEIR corpus.jsonl (benchmarks)                 generic-v3
//	openapi    OpenAPI 3.0/3.1 or Swagger 2.0, JSON or YAML   generic-v3
package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/importer/internal/anthropic"
	"github.com/toolsift/toolsift/core/importer/internal/mcp"
	"github.com/toolsift/toolsift/core/importer/internal/openai"
	"github.com/toolsift/toolsift/core/importer/internal/openapi"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
)

// generic lists the formats that translate into a native document, in the
// order Formats reports them. A translator counts what it reads into its
// tally and hands each entry that is not a tool to the tally's Skip.
var generic = []struct {
	name      string
	translate func([]byte, *tally.Tally) (*native.Document, error)
	// forToolSearch is the translator of Options.ToolSearch (nil: the
	// format has no provider tool definitions to keep).
	forToolSearch func([]byte, *tally.Tally) (*native.Document, []string, error)
}{
	{native.Format, func(data []byte, _ *tally.Tally) (*native.Document, error) { return native.Decode(data) }, nil},
	{mcp.Format, mcp.ImportWith, mcp.ImportForToolSearch},
	{openai.Format, openai.ImportWith, openai.ImportForToolSearch},
	{anthropic.Format, anthropic.ImportWith, anthropic.ImportForToolSearch},
	{beir.Format, beir.ImportWith, nil},
	// The product is the document's info.title unless Options.Product
	// names one (ImportWith passes it to openapi.Read).
	{openapi.Format, openapi.ImportWith, nil},
}

// Formats lists the format names Import accepts.
func Formats() []string {
	names := []string{dws.Format}
	for _, g := range generic {
		names = append(names, g.name)
	}
	return names
}

// UnknownFormatError is the error of Import for a format it does not know.
type UnknownFormatError struct{ Format string }

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown catalog format %q (known: %s)", e.Format, strings.Join(Formats(), ", "))
}

// Options tune ImportWith.
type Options struct {
	// Strict refuses the catalog when one tool is bad, instead of skipping
	// the tool and listing it in the report. The dws format is always strict.
	Strict bool
	// Profile names the ranking profile; "" is the format's default.
	Profile string
	// Product names the product of the tools whose input names none (a
	// single MCP tools/list result, OpenAI tools outside a namespace,
	// Anthropic tools, BEIR ids without "server::"), instead of
	// native.DefaultProduct ("tools"): their canonical paths become
	// "<product>.<tool>". It is the display name; the ID is
	// native.ProductID of it. Formats dws and toolsift name every product
	// themselves and refuse it. An OpenAPI document's product (its
	// info.title) is replaced by it.
	Product string
	// ToolSearch imports for provider tool search (core/provider): each
	// tool keeps its original definition, and of a list that marks any tool
	// defer_loading only the deferred tools are imported (the report's
	// AlwaysLoaded names the rest). Formats mcp, openai and anthropic only.
	ToolSearch bool
	// Checkpoint, when not nil, is called as each tool is read, checked and
	// built (and indexed, in compile.FromCatalog), so that work between two
	// calls is about one tool's; the catalog's JSON, or one DWS file, is
	// decoded between two calls. It is for a host that can stop a
	// long build only at a call it sees, such as the module's WASI calls
	// under wazero (hostapi's stopAtHostCall); natively nothing needs it.
	Checkpoint func()
}

// Default reports whether every option that changes what is imported is
// at its zero value (a checkpoint changes nothing): the options of the
// module's build call, which takes none.
func (o Options) Default() bool {
	return !o.Strict && o.Profile == "" && !o.ToolSearch && o.Product == ""
}

// Import imports data in the named format strictly, with the format's
// default profile. Any other error means the input is not a valid catalog
// of that format; its message names the entry and the field.
func Import(format string, data []byte) (*catalog.Catalog, *profile.Profile, error) {
	cat, p, _, err := ImportWith(format, data, Options{Strict: true})
	return cat, p, err
}

// ImportWith imports data in the named format and reports what it read,
// used, ignored and skipped.
func ImportWith(format string, data []byte, opts Options) (*catalog.Catalog, *profile.Profile, *Report, error) {
	var p *profile.Profile
	if opts.Profile != "" {
		var ok bool
		if p, ok = profile.Lookup(opts.Profile); !ok {
			return nil, nil, nil, fmt.Errorf("unknown profile %q (known: %s)", opts.Profile, strings.Join(profile.Names(), ", "))
		}
	}
	if opts.Product != "" && (format == dws.Format || format == native.Format) {
		return nil, nil, nil, fmt.Errorf("format %q names its products itself; a product name (--product) is for formats whose tools may have none", format)
	}
	if format == dws.Format {
		if opts.ToolSearch {
			return nil, nil, nil, fmt.Errorf("format %q has no provider tool definitions to import for tool search (use mcp, openai or anthropic)", format)
		}
		cat, err := dws.ImportBytes(data, opts.Checkpoint)
		if err != nil {
			return nil, nil, nil, err
		}
		return cat, orDefault(p, profile.DWSV1), &Report{Format: format, ToolsRead: cat.ToolCount(), ToolsImported: cat.ToolCount()}, nil
	}
	for _, g := range generic {
		if g.name != format {
			continue
		}
		t := tally.New(opts.Strict)
		t.Checkpoint = opts.Checkpoint
		var doc *native.Document
		var alwaysLoaded []string
		var err error
		switch {
		case format == openapi.Format && !opts.ToolSearch:
			doc, err = openapi.Read(data, t, openapi.Options{Product: opts.Product})
		case !opts.ToolSearch:
			doc, err = g.translate(data, t)
		case g.forToolSearch == nil:
			err = fmt.Errorf("format %q has no provider tool definitions to import for tool search (use mcp, openai or anthropic)", format)
		default:
			doc, alwaysLoaded, err = g.forToolSearch(data, t)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if opts.Product != "" {
			nameDefaultProduct(doc, opts.Product)
		}
		cat, err := native.BuildWith(doc, format, t)
		if err != nil {
			return nil, nil, nil, err
		}
		report := newReport(format, t, cat.ToolCount())
		report.AlwaysLoaded = alwaysLoaded
		return cat, orDefault(p, profile.GenericV3), report, nil
	}
	return nil, nil, nil, &UnknownFormatError{Format: format}
}

// nameDefaultProduct renames the product the importer filled with tools
// that had none. A product of that name already in the input takes them
// in (Build refuses a product listed twice, so they are merged here).
func nameDefaultProduct(doc *native.Document, name string) {
	id := native.ProductID(name)
	if id == native.DefaultProduct {
		return
	}
	var loose *native.Product
	named := -1
	for i := range doc.Products {
		switch doc.Products[i].ID {
		case native.DefaultProduct:
			loose = &doc.Products[i]
		case id:
			named = i
		}
	}
	if loose == nil {
		return
	}
	if named < 0 {
		loose.ID, loose.Name = id, name
		return
	}
	doc.Products[named].Tools = append(doc.Products[named].Tools, loose.Tools...)
	doc.Products = slices.DeleteFunc(doc.Products, func(p native.Product) bool { return p.ID == native.DefaultProduct })
}

func orDefault(p, def *profile.Profile) *profile.Profile {
	if p == nil {
		return def
	}
	return p
}
