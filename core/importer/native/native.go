// Package native is the catalog format of this project (toolsift-catalog.v1)
// and the hub of every generic importer: the MCP, OpenAI, Anthropic and
// BEIR importers translate their input into a Document, and Build turns a
// Document into a catalog.Catalog. One path from a Document to a catalog
// means one set of rules for names, limits, defaults and hashes, whatever
// the source format was.
//
// The JSON form is described by docs/catalog.schema.json. Build normalises a
// document (defaults filled in, parameters derived from the input schema,
// everything sorted) and the catalog's source hash is the SHA-256 of that
// normalised document encoded by AppendJSON: two inputs that mean the same
// catalog get the same hash, whichever format they came in.
package native

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/text"
)

// Format is the name of this importer; Version is the document version the
// JSON form must carry.
const (
	Format  = "toolsift"
	Version = "toolsift-catalog.v1"
)

// DefaultProduct is the product of tools whose source format names none (a
// single MCP tools/list result, OpenAI tools outside a namespace, Anthropic
// tools, BEIR corpus entries without a "server::" prefix).
const DefaultProduct = "tools"

// ProductID derives a product ID from a name that a foreign format uses for
// grouping (an MCP server name, a ToolBench tool name): surrounding white
// space is trimmed and each "." becomes "_", since a canonical path is
// "<product>.<name>". The importer keeps the original as the display name.
func ProductID(name string) string {
	return strings.ReplaceAll(strings.TrimSpace(name), ".", "_")
}

// Limits of one catalog. They bound the work and memory of a build, and keep
// a hostile or mistaken input (a 10 MB description) from becoming a huge
// index: an input over a limit is refused with an error that names it.
const (
	MaxTools          = 131072   // the snapshot's per-list limit
	MaxNameBytes      = 256      // product IDs, tool names, aliases
	MaxTextBytes      = 64 << 10 // each description, summary or other prose
	MaxParameters     = 1024     // per tool, after flattening the input schema
	MaxSchemaBytes    = 1 << 20  // each input schema, compact
	MaxParameterDepth = 3        // nested object properties flattened as a.b.c
)

// Document is one catalog in the native model.
type Document struct {
	Products []Product
}

// Product groups tools: an MCP server, an OpenAI namespace, or DefaultProduct.
type Product struct {
	ID          string // no '.', since a canonical path is "<product>.<name>"
	Name        string // display name; "" means the ID
	Description string
	Tools       []Tool
}

// Tool is one callable tool.
type Tool struct {
	Name        string // unique within its product; may contain '.'
	Title       string
	Summary     string // one line for an agent choosing among tools
	Description string
	Aliases     []string // other exact names the identity guard accepts
	Interface   string   // InterfaceFunction (default) or InterfaceMCP
	// InputSchema is the tool's JSON Schema (compact, keys sorted), returned
	// by Inspect verbatim; Parameters are derived from it when absent.
	InputSchema catalog.RawJSON
	Parameters  []Parameter
	Safety      catalog.Safety
	// Availability is catalog.Available (default) or "unavailable", with
	// UnavailableReason saying why.
	Availability      string
	UnavailableReason string
	UseWhen           []string
	AvoidWhen         []string
	Examples          []string
	Keywords          []string // labels that are not prose: categories, tags
	// Extra is the tool's text no other field has a role for (return
	// values, metadata, a BEIR record's rendering…), space-joined.
	Extra string
	// Deprecated marks a tool its source calls deprecated; Build also sets
	// it when the title, summary or description says so (MarkedDeprecated).
	Deprecated bool

	// Origin names the tool as its input does (`line 7 (_id "17")`) for
	// messages; "" names it by canonical path. It is not part of the
	// document (nor of its hash).
	Origin string
	// SchemaField is the input's name of the field InputSchema came from
	// ("doc.parameters"), for messages; "" means "input_schema".
	SchemaField string
	// Original is the tool's definition in its provider format (compact,
	// keys sorted), kept by an import for provider tool search and stored
	// as catalog.Tool.Original; nil otherwise. It is not part of the
	// document's JSON form, and enters the source hash only when present.
	Original catalog.RawJSON

	// fromSchema is what ParametersFromSchema derives from InputSchema, when
	// the importer had the schema decoded already (ReadSchemaField): Build
	// takes it instead of decoding InputSchema a second time (about a fifth
	// of a 3,608-tool MCP import in the module). nil: Build decodes.
	fromSchema *derivedParameters
}

// derivedParameters is the result of ParametersFromSchema, kept for Build.
type derivedParameters struct {
	parameters []Parameter
	err        error
}

// Parameter is one input of a tool. Nested object properties are flattened
// to dotted names ("filter.state"), array items to "items[].name".
type Parameter struct {
	Name        string
	Type        string // JSON Schema type(s), "|"-joined
	Description string
	Required    bool
	Enum        []string // enum values; non-strings as their JSON text
	Default     catalog.RawJSON
}

// Interfaces say how a tool is called: a function the agent's runtime
// executes, or an MCP tool on the server named by its product.
const (
	InterfaceFunction = catalog.ModeFunction
	InterfaceMCP      = catalog.ModeMCP
)

var (
	effects      = []string{"", "read", "write", "destructive"}
	risks        = []string{"", "low", "medium", "high"}
	confirmation = []string{"", "not_required", "user_required"}
	idempotency  = []string{"", "idempotent", "non_idempotent", "unknown"}
)

// Build validates and normalises doc and returns its catalog, recording
// format as the importer's name. doc is normalised in place. Errors name the
// product, the tool and the field.
func Build(doc *Document, format string) (*catalog.Catalog, error) {
	return BuildWith(doc, format, nil)
}

// BuildWith is Build that hands each tool that breaks a rule to t.Skip: a
// strict (or nil) tally refuses the catalog as Build does, any other leaves
// the tool out, and a product whose tools are all left out with it.
func BuildWith(doc *Document, format string, t *tally.Tally) (*catalog.Catalog, error) {
	if err := normalize(doc, t); err != nil {
		return nil, err
	}
	sum := sourceHash(doc)

	cat := &catalog.Catalog{Format: format, Products: make([]catalog.Product, len(doc.Products))}
	var all []*catalog.Tool
	for i := range doc.Products {
		p := &doc.Products[i]
		product := catalog.Product{ID: p.ID, Name: p.Name, Description: p.Description, Tools: make([]catalog.Tool, len(p.Tools))}
		if product.Name == "" {
			product.Name = p.ID
		}
		for j := range p.Tools {
			t.Tick()
			product.Tools[j] = catalogTool(p.ID, &p.Tools[j])
		}
		cat.Products[i] = product
		for j := range cat.Products[i].Tools {
			all = append(all, &cat.Products[i].Tools[j])
		}
	}
	cat.Version = catalog.VersionRef{
		SourceHash:  "sha256:" + hex.EncodeToString(sum),
		SurfaceHash: catalog.SurfaceHash(all),
	}
	return cat, nil
}

// sourceHash is SHA-256 over the document's canonical JSON (AppendJSON)
// and its tools' original definitions (appendOriginals), written into the
// hash in pieces of about hashChunk bytes instead of one buffer of them all.
func sourceHash(doc *Document) []byte {
	h := sha256.New()
	flush := func(dst []byte) []byte {
		if len(dst) < hashChunk {
			return dst
		}
		h.Write(dst)
		return dst[:0]
	}
	buf := appendJSON(make([]byte, 0, 2*hashChunk), doc, flush)
	buf = appendOriginals(buf, doc, flush)
	h.Write(buf)
	return h.Sum(nil)
}

// hashChunk is how many bytes sourceHash gathers before it hashes them.
const hashChunk = 32 << 10

// appendOriginals appends, when any tool keeps its original definition, a
// newline and then each tool's canonical path and definition in document
// order, one per line: the definitions are what a provider receives, so a
// change to one is a new catalog generation. A document without them hashes
// as it always did.
func appendOriginals(dst []byte, doc *Document, flush func([]byte) []byte) []byte {
	any := false
	for i := range doc.Products {
		for j := range doc.Products[i].Tools {
			any = any || len(doc.Products[i].Tools[j].Original) > 0
		}
	}
	if !any {
		return dst
	}
	for i := range doc.Products {
		p := &doc.Products[i]
		for j := range p.Tools {
			dst = append(dst, '\n')
			dst = append(dst, p.ID+"."+p.Tools[j].Name...)
			dst = append(dst, ' ')
			dst = flush(append(dst, p.Tools[j].Original...))
		}
	}
	return dst
}

func catalogTool(productID string, t *Tool) catalog.Tool {
	canonical := productID + "." + t.Name
	tool := catalog.Tool{
		Identity: catalog.Identity{
			CanonicalPath: canonical,
			Path:          canonical,
			Name:          t.Name,
			ProductID:     productID,
			Aliases:       catalog.SortedUnique(t.Aliases),
		},
		Title:       t.Title,
		Description: t.Description,
		Safety:      t.Safety,
		Interface:   catalog.Interface{Mode: t.Interface, Availability: t.Availability, Reason: t.UnavailableReason},
		Selection: catalog.Selection{
			AgentSummary: t.Summary,
			UseWhen:      t.UseWhen,
			AvoidWhen:    t.AvoidWhen,
			Examples:     t.Examples,
			Keywords:     t.Keywords,
		},
		InputSchema: t.InputSchema,
		Original:    t.Original,
		Extra:       t.Extra,
		Deprecated:  t.Deprecated,
	}
	if t.Interface == InterfaceMCP {
		tool.Interface.Ref = &catalog.InterfaceRef{ProductID: productID, RPCName: t.Name}
	}
	for _, p := range t.Parameters {
		tool.Parameters = append(tool.Parameters, catalog.Parameter{
			Name:        p.Name,
			Property:    p.Name,
			Type:        p.Type,
			Description: p.Description,
			Required:    p.Required,
			Enum:        p.Enum,
			Default:     p.Default,
		})
	}
	return tool
}

// normalize checks every limit and rule, fills defaults, derives parameters
// from input schemas and sorts products, tools and parameters. A tool that
// breaks a rule goes to skip.Skip, which decides whether the catalog fails.
func normalize(doc *Document, skip *tally.Tally) error {
	tools := 0
	for i := range doc.Products {
		tools += len(doc.Products[i].Tools)
	}
	if tools == 0 {
		return noTools(skip)
	}
	if tools > MaxTools {
		return fmt.Errorf("the catalog has %d tools; the limit is %d", tools, MaxTools)
	}
	sort.SliceStable(doc.Products, func(i, j int) bool { return doc.Products[i].ID < doc.Products[j].ID })
	kept := doc.Products[:0]
	for i := range doc.Products {
		p := doc.Products[i]
		err := checkProduct(&p)
		if err != nil {
			err = fmt.Errorf("product %q: %w", p.ID, err)
		} else if len(kept) > 0 && p.ID == kept[len(kept)-1].ID {
			err = fmt.Errorf("product %q appears twice", p.ID)
		}
		if err != nil {
			if len(p.Tools) == 0 {
				if err := skip.Skip(fmt.Sprintf("product %q", p.ID), err); err != nil {
					return err
				}
			}
			for j := range p.Tools {
				if err := skip.Skip(label(p.ID, &p.Tools[j]), err); err != nil {
					return err
				}
			}
			continue
		}
		sort.SliceStable(p.Tools, func(a, b int) bool { return p.Tools[a].Name < p.Tools[b].Name })
		good := p.Tools[:0]
		for j := range p.Tools {
			skip.Tick()
			t := p.Tools[j]
			err := normalizeTool(&t, skip, p.ID)
			if err == nil && len(good) > 0 && t.Name == good[len(good)-1].Name {
				err = fmt.Errorf("product %q: tool name %q appears twice", p.ID, t.Name)
			} else if err != nil {
				err = fmt.Errorf("%s: %w", label(p.ID, &t), err)
			}
			if err != nil {
				if err := skip.Skip(label(p.ID, &t), err); err != nil {
					return err
				}
				continue
			}
			good = append(good, t)
		}
		if p.Tools = good; len(good) > 0 {
			kept = append(kept, p)
		}
	}
	doc.Products = kept
	if err := refuseLookalikes(doc, skip); err != nil {
		return err
	}
	if len(doc.Products) == 0 {
		return noTools(skip)
	}
	return nil
}

// refuseLookalikes hands to skip every product whose ID, and every tool
// whose canonical path or alias, displays like an earlier one's (the same
// catalog.LookalikeKey): "GitHub" after "github", "tools.Read_File" after
// "tools.read_file". Products and tools are sorted, so which one is the
// second does not depend on the input's order.
func refuseLookalikes(doc *Document, skip *tally.Tally) error {
	products := map[string]string{} // key → product ID
	names := map[string]string{}    // key → canonical path
	aliases := map[string]string{}  // key → canonical path
	kept := doc.Products[:0]
	for _, p := range doc.Products {
		if other, clash := products[catalog.LookalikeKey(p.ID)]; clash {
			err := fmt.Errorf("product %q: the id looks like product %q's (equal after NFKC, case folding and removing invisible characters)", p.ID, other)
			for j := range p.Tools {
				if err := skip.Skip(label(p.ID, &p.Tools[j]), err); err != nil {
					return err
				}
			}
			continue
		}
		products[catalog.LookalikeKey(p.ID)] = p.ID
		good := p.Tools[:0]
		for _, t := range p.Tools {
			canonical := p.ID + "." + t.Name
			err := error(nil)
			nameKey := catalog.LookalikeKey(canonical)
			if other, clash := names[nameKey]; clash {
				err = fmt.Errorf("%s: the name looks like tool %q's (equal after NFKC, case folding and removing invisible characters)", label(p.ID, &t), other)
			}
			aliasKeys := make([]string, 0, len(t.Aliases))
			for _, alias := range t.Aliases {
				key := catalog.LookalikeKey(catalog.NormalizeCLIPath(alias))
				if other, clash := aliases[key]; err == nil && clash && other != canonical {
					err = fmt.Errorf("%s: alias %q looks like an alias of tool %q (equal after NFKC, case folding and removing invisible characters)", label(p.ID, &t), alias, other)
				}
				aliasKeys = append(aliasKeys, key)
			}
			if err != nil {
				if err := skip.Skip(label(p.ID, &t), err); err != nil {
					return err
				}
				continue
			}
			names[nameKey] = canonical
			for _, key := range aliasKeys {
				aliases[key] = canonical
			}
			good = append(good, t)
		}
		if p.Tools = good; len(good) > 0 {
			kept = append(kept, p)
		}
	}
	doc.Products = kept
	return nil
}

// noTools is the error of an empty catalog, saying why when the importer
// skipped every tool.
func noTools(skip *tally.Tally) error {
	if n, listed := skip.Skipped(); n > 0 {
		first := listed[0].Reason
		if !strings.Contains(first, listed[0].Tool) {
			first = listed[0].Tool + ": " + first // where, when the reason does not say
		}
		return fmt.Errorf("the catalog has no tools: all %d were skipped (first: %s)", n, first)
	}
	return fmt.Errorf("the catalog has no tools")
}

// label names a tool in messages: as its input did, else by canonical path.
func label(productID string, t *Tool) string {
	if t.Origin != "" {
		return t.Origin
	}
	return fmt.Sprintf("tool %q", productID+"."+t.Name)
}

func checkProduct(p *Product) error {
	if err := checkName("id", p.ID); err != nil {
		return err
	}
	if strings.Contains(p.ID, ".") {
		return fmt.Errorf(`field "id": must not contain "." (a canonical path is <product>.<name>)`)
	}
	if len(p.Tools) == 0 {
		return fmt.Errorf("has no tools")
	}
	return checkTexts(prose("description", p.Description), prose("name", p.Name))
}

func normalizeTool(t *Tool, skip *tally.Tally, productID string) error {
	if err := checkName("name", t.Name); err != nil {
		return err
	}
	for _, alias := range t.Aliases {
		if err := checkName("aliases", alias); err != nil {
			return err
		}
	}
	t.Aliases = catalog.SortedUnique(t.Aliases)
	t.Keywords = catalog.SortedUnique(t.Keywords)
	if err := checkTexts(
		prose("avoid_when", t.AvoidWhen...), prose("description", t.Description), prose("examples", t.Examples...),
		prose("extra", t.Extra), prose("keywords", t.Keywords...), prose("summary", t.Summary), prose("title", t.Title),
		prose("unavailable_reason", t.UnavailableReason), prose("use_when", t.UseWhen...),
	); err != nil {
		return err
	}

	t.Deprecated = t.Deprecated || MarkedDeprecated(t.Title) || MarkedDeprecated(t.Summary) || MarkedDeprecated(t.Description)

	switch t.Interface {
	case "":
		t.Interface = InterfaceFunction
	case InterfaceFunction, InterfaceMCP:
	default:
		return fmt.Errorf(`field "interface": %q is not one of %q, %q`, t.Interface, InterfaceFunction, InterfaceMCP)
	}
	switch t.Availability {
	case "":
		t.Availability = catalog.Available
	case catalog.Available, "unavailable":
	default:
		return fmt.Errorf(`field "availability": %q is not "available" or "unavailable"`, t.Availability)
	}
	if t.Availability == catalog.Available && t.UnavailableReason != "" {
		return fmt.Errorf(`field "unavailable_reason": set on an available tool`)
	}
	for _, c := range []struct {
		field, value string
		allowed      []string
	}{
		{"safety.effect", t.Safety.Effect, effects},
		{"safety.risk", t.Safety.Risk, risks},
		{"safety.confirmation", t.Safety.Confirmation, confirmation},
		{"safety.idempotency", t.Safety.Idempotency, idempotency},
	} {
		if !contains(c.allowed, c.value) {
			return fmt.Errorf("field %q: %q is not one of %s", c.field, c.value, strings.Join(c.allowed[1:], ", "))
		}
	}

	schemaField := t.SchemaField
	if schemaField == "" {
		schemaField = "input_schema"
	}
	if len(t.InputSchema) > MaxSchemaBytes {
		return fmt.Errorf(`field %q: %d bytes; the limit is %d`, schemaField, len(t.InputSchema), MaxSchemaBytes)
	}
	if t.Parameters == nil && len(t.InputSchema) > 0 {
		var parameters []Parameter
		var err error
		if d := t.fromSchema; d != nil {
			parameters, err = d.parameters, d.err
		} else if skip.Lenient() {
			parameters, err = lenientParameters(t, skip, productID, schemaField)
		} else {
			parameters, err = ParametersFromSchema(t.InputSchema)
		}
		if err != nil {
			return fmt.Errorf(`field %q: %w`, schemaField, err)
		}
		t.Parameters = parameters
	}
	if len(t.Parameters) > MaxParameters {
		return fmt.Errorf("%d parameters; the limit is %d", len(t.Parameters), MaxParameters)
	}
	sort.SliceStable(t.Parameters, func(a, b int) bool { return t.Parameters[a].Name < t.Parameters[b].Name })
	kept := t.Parameters[:0]
	for i := range t.Parameters {
		p := &t.Parameters[i]
		// Parameter names come from schemas as they are (" asset_id " occurs
		// in real catalogs); they are bounded, not judged. A bad one costs
		// the parameter, not the tool, unless the import is strict.
		var err error
		if p.Name == "" || len(p.Name) > MaxNameBytes {
			err = fmt.Errorf("parameter %q: the name must have 1 to %d bytes", p.Name, MaxNameBytes)
		} else if len(kept) > 0 && p.Name == kept[len(kept)-1].Name {
			err = fmt.Errorf("parameter %q appears twice", p.Name)
		}
		if err != nil {
			if err := skip.Repair("parameters", fmt.Errorf("%s: %w; dropped", label(productID, t), err)); err != nil {
				return err
			}
			continue
		}
		kept = append(kept, *p)
	}
	t.Parameters = kept
	for i := range t.Parameters {
		p := &t.Parameters[i]
		if err := checkTexts(prose("description", p.Description), prose("enum", p.Enum...), prose("type", p.Type)); err != nil {
			return fmt.Errorf("parameter %q: %w", p.Name, err)
		}
	}
	return nil
}

// lenientParameters derives a tool's parameters from its stored input
// schema, repairing what ParametersFromSchema refuses (see
// ReadParametersWith); the text a repair keeps has no tool to go to here
// (a native document states its extra text itself).
func lenientParameters(t *Tool, skip *tally.Tally, productID, field string) ([]Parameter, error) {
	value, err := jsonread.Decode(t.InputSchema)
	if err != nil {
		return nil, err
	}
	root, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON Schema object, got %s", jsonread.TypeName(value))
	}
	return schemaParameters(root, &Reader{T: skip, Tool: label(productID, t)}, field)
}

// checkName refuses an empty name, surrounding white space, a name over
// MaxNameBytes, and any control character or text.IsInvisible character
// (default-ignorable, format, bidi control, tag, C1): a name must look
// exactly like what it matches.
func checkName(field, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("field %q: empty", field)
	case len(name) > MaxNameBytes:
		return fmt.Errorf("field %q: %d bytes; the limit is %d", field, len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return fmt.Errorf("field %q: not valid UTF-8", field)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("field %q: %q has surrounding white space", field, name)
	case UnsafeName(name):
		return fmt.Errorf("field %q: %q contains a control or invisible character", field, name)
	}
	return nil
}

// UnsafeName reports whether name holds a character the import refuses in
// a name or an ID: a control character (tab and newline included), or one
// that is invisible or changes how its neighbours display. Hosts that name
// things the catalog will hold (hostapi.UnsafeName) ask this one rule.
func UnsafeName(name string) bool {
	return text.CheckUnsafeStrict(name) != text.Safe || strings.ContainsAny(name, "\t\n")
}

// checkTexts bounds prose fields, given in key order so that the error is
// the same on every run.
func checkTexts(fields ...textSize) error {
	for _, f := range fields {
		if f.bytes > MaxTextBytes {
			return fmt.Errorf("field %q: %d bytes; the limit is %d", f.field, f.bytes, MaxTextBytes)
		}
	}
	return nil
}

// textSize is the size of a prose field: a list counts as its lines joined
// by newlines. Sizes, not a map of joined copies, because checkTexts runs on
// every tool and parameter of a catalog: with this and fromSchema, Build of
// 3,608 MCP tools in the module went from 0.98–1.18 s to 0.30–0.39 s.
type textSize struct {
	field string
	bytes int
}

func prose(field string, lines ...string) textSize {
	n := max(len(lines)-1, 0)
	for _, line := range lines {
		n += len(line)
	}
	return textSize{field, n}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
