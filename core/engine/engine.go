// Package engine answers tool-search.v1 and schema-inspect.v1 requests over
// one immutable catalog generation. An Engine is built once (New) and is then
// read-only, so any number of goroutines may search it at once.
package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/internal/overlap"
	"github.com/toolsift/toolsift/core/internal/strcmp"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// Engine is an immutable search and inspect engine over one catalog.
type Engine struct {
	*built       // shared by every view of the same engine (see WithExplain)
	explain bool // attach score_breakdown to every candidate
	// exhaustive scores every eligible document even where index.TopBM25F
	// would find the best k without: the slower path the tests compare it
	// with (export_test.go), never set otherwise.
	exhaustive bool
}

// built is everything New derives from a catalog; it never changes after.
type built struct {
	profile   *profile.Profile
	tokenizer text.Tokenizer
	version   catalog.VersionRef
	catalog   *catalog.Catalog

	products []*catalog.Product // sorted by ID
	tools    []*catalog.Tool    // document order: canonical path ascending
	docs     []document         // per tool, same order
	// executable marks the tools an agent may run: the eligibility of a
	// search without filters.
	executable []bool
	// demotes: some tool has an avoid_when phrase that can demote it.
	demotes bool
	// deprecated counts the tools the profile demotes as deprecated.
	deprecated int
	identity   *catalog.IdentityIndex
	index      *index.Index

	productByID  map[string]int // lookup only, never iterated
	productCores []string       // per product: display-name key, "" if none
	coreRunes    []int          // per product: runes in its core
	// coresByFirstByte lists the products whose non-empty core starts
	// with each byte.
	coresByFirstByte [256][]int32

	scratch     sync.Pool // *scratch
	heldScratch atomic.Pointer[scratch]

	// references holds, per tool, the part of its reference that depends
	// on the tool alone, with that part already encoded (its Head): built
	// the first time the tool is in an answer, then only copied. It grows
	// to at most one entry per tool, each about the size of the tool's
	// title and summary twice over (a few hundred bytes).
	references []atomic.Pointer[wire.ToolReference]
	// rankSources is every lexical candidate's rank sources in encoded
	// answers, shared (a response a caller receives has its own).
	rankSources []string
	// derived holds what packages above the engine derive from it once
	// (Derived): key → value, never iterated.
	derived sync.Map
}

// document is what the pipeline needs per tool besides the catalog entry.
type document struct {
	product    int
	executable bool
	deprecated bool     // demoted by the profile's DeprecatedPenalty
	avoidWhen  []string // lower-cased avoid_when phrases that can demote
}

// Option adjusts New.
type Option func(*options)

type options struct {
	checkpoint func()
	index      *index.Index
	identity   *catalog.IdentityTable
}

// WithCheckpoint makes New call checkpoint after each tool it indexes and
// once the index is finished, as an import does (see
// importer.Options.Checkpoint), so that a host can stop a long build.
func WithCheckpoint(checkpoint func()) Option {
	return func(o *options) { o.checkpoint = checkpoint }
}

// WithIndex makes New build the engine around a prebuilt index (from a
// snapshot: core/compile opens one so), without tokenizing the catalog again,
// and around the identity table the snapshot stores (IdentityTable),
// without building the identity index again; an identity that is nil or
// not Stored is built from the catalog. The index is checked against the
// catalog, never trusted.
func WithIndex(ix *index.Index, identity *catalog.IdentityTable) Option {
	return func(o *options) { o.index, o.identity = ix, identity }
}

// New builds an engine: it tokenizes every tool's fields with the profile's
// tokenizer and indexes them (unless WithIndex gives the index). It fails on
// identity collisions, an unknown tokenizer or an index that does not match
// the catalog.
func New(cat *catalog.Catalog, p *profile.Profile, opts ...Option) (*Engine, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.index != nil {
		return newWithIndex(cat, p, o.index, o.identity)
	}
	checkpoint := o.checkpoint
	if checkpoint == nil {
		checkpoint = func() {}
	}
	e, err := newUnindexed(cat, p, nil)
	if err != nil {
		return nil, err
	}
	builder := index.NewBuilder(len(e.tools))
	builder.CapTermFrequency(p.TermFrequencyCap)
	tokenizer := text.Memoized(e.tokenizer) // for this build only
	var tokens profile.FieldTokens
	for doc, tool := range e.tools {
		p.Tokenize(&tokens, tokenizer, tool, e.products[e.docs[doc].product])
		for f := profile.Field(0); f < profile.NumFields; f++ {
			builder.Add(doc, f, tokens.Fields[f])
		}
		checkpoint()
	}
	e.index = builder.Finish()
	checkpoint()
	e.index.PrepareProfile(p)
	return e, nil
}

// newWithIndex is New around a prebuilt index (WithIndex).
func newWithIndex(cat *catalog.Catalog, p *profile.Profile, ix *index.Index, identity *catalog.IdentityTable) (*Engine, error) {
	// The index is checked and prepared alongside the catalog's tables
	// (core/internal/overlap): neither reads what the other writes. At
	// 100,000 tools that is 14 ms of a native open's CPU (a profile) off
	// the catalog's path.
	var invalid error
	prepared := overlap.Start(func() {
		if invalid = ix.Validate(); invalid == nil {
			ix.PrepareProfile(p)
		}
	})
	e, err := newUnindexed(cat, p, identity)
	prepared()
	if err != nil {
		return nil, err
	}
	if ix.Docs != len(e.tools) {
		return nil, fmt.Errorf("index covers %d documents, catalog has %d tools", ix.Docs, len(e.tools))
	}
	if invalid != nil {
		return nil, invalid
	}
	e.index = ix
	return e, nil
}

func newUnindexed(cat *catalog.Catalog, p *profile.Profile, stored *catalog.IdentityTable) (*Engine, error) {
	if err := validateProfile(p); err != nil {
		return nil, err
	}
	tokenizer, ok := text.Lookup(p.Tokenizer)
	if !ok {
		return nil, fmt.Errorf("profile %s names unknown tokenizer %q", p.Name, p.Tokenizer)
	}
	e := &Engine{built: &built{
		profile:     p,
		tokenizer:   tokenizer,
		version:     cat.Version,
		catalog:     cat,
		productByID: make(map[string]int, len(cat.Products)),
	}}
	e.products = make([]*catalog.Product, len(cat.Products))
	tools := 0
	for i := range cat.Products {
		e.products[i] = &cat.Products[i]
		tools += len(cat.Products[i].Tools)
	}
	slices.SortFunc(e.products, func(a, b *catalog.Product) int { return strings.Compare(a.ID, b.ID) })
	// Each tool with its product's position, sorted together by canonical
	// path (no map from tool to product).
	type placed struct {
		tool    *catalog.Tool
		product int
	}
	for i, product := range e.products {
		if _, dup := e.productByID[product.ID]; dup {
			return nil, fmt.Errorf("duplicate product %q", product.ID)
		}
		e.productByID[product.ID] = i
		core := productNameCore(product, p.ProductNameSuffixes)
		e.productCores = append(e.productCores, core)
		e.coreRunes = append(e.coreRunes, utf8.RuneCountInString(core))
		if core != "" {
			e.coresByFirstByte[core[0]] = append(e.coresByFirstByte[core[0]], int32(i))
		}
		for t := range product.Tools {
			tool := &product.Tools[t]
			if !strcmp.Equal(tool.Identity.ProductID, product.ID) {
				return nil, fmt.Errorf("tool %s is listed under product %q", tool.Identity.CanonicalPath, product.ID)
			}
		}
	}
	// Each product lists its tools by canonical path, and a canonical path
	// starts with its product's ID, so the products taken in the order of
	// their first tools usually give every tool in order: that is checked
	// (one comparison a tool), and only otherwise are they all sorted (at
	// 100,000 tools the sort's string comparisons were about 2% of opening a
	// snapshot in the module, in a Node CPU profile).
	byFirstTool := make([]int, 0, len(e.products))
	for i, product := range e.products {
		if len(product.Tools) > 0 {
			byFirstTool = append(byFirstTool, i)
		}
	}
	slices.SortFunc(byFirstTool, func(a, b int) int {
		return strcmp.Compare(e.products[a].Tools[0].Identity.CanonicalPath, e.products[b].Tools[0].Identity.CanonicalPath)
	})
	order := make([]placed, 0, tools)
	for _, i := range byFirstTool {
		for t := range e.products[i].Tools {
			order = append(order, placed{&e.products[i].Tools[t], i})
		}
	}
	byPath := func(a, b placed) int {
		return strcmp.Compare(a.tool.Identity.CanonicalPath, b.tool.Identity.CanonicalPath)
	}
	if !slices.IsSortedFunc(order, byPath) {
		slices.SortFunc(order, byPath)
	}
	e.tools = make([]*catalog.Tool, len(order))
	for doc := range order {
		e.tools[doc] = order[doc].tool
	}

	identity, err := identityIndex(e.tools, p, stored)
	if err != nil {
		return nil, err
	}
	e.identity = identity

	e.docs = make([]document, len(e.tools))
	e.references = make([]atomic.Pointer[wire.ToolReference], len(e.tools))
	e.rankSources = []string{p.Algorithm}
	e.executable = make([]bool, len(e.tools))
	for doc, tool := range e.tools {
		e.docs[doc] = document{
			product:    order[doc].product,
			executable: tool.Interface.AgentExecutable(),
			avoidWhen:  demotingPhrases(tool.Selection.AvoidWhen, p.AvoidWhenBoilerplate),
			deprecated: tool.Deprecated && p.DeprecatedPenalty > 0,
		}
		if e.docs[doc].deprecated {
			e.deprecated++
		}
		e.executable[doc] = e.docs[doc].executable
		e.demotes = e.demotes || len(e.docs[doc].avoidWhen) > 0
	}
	return e, nil
}

// identityIndex loads the stored identity table when there is one, else
// builds the index from the tools (canonical order).
func identityIndex(tools []*catalog.Tool, p *profile.Profile, stored *catalog.IdentityTable) (*catalog.IdentityIndex, error) {
	if stored != nil && stored.Stored() {
		return catalog.LoadIdentityIndex(stored, tools, p.ResolveBareNames)
	}
	identity, err := catalog.NewIdentityIndex(tools)
	if err != nil {
		return nil, err
	}
	if p.ResolveBareNames {
		identity.IndexBareNames(tools)
	}
	return identity, nil
}

func validateProfile(p *profile.Profile) error {
	finite := func(v float64) bool { return v == v && v < 1e308 && v > -1e308 }
	switch {
	case p == nil:
		return fmt.Errorf("no profile")
	case !finite(p.K1) || p.K1 <= 0:
		return fmt.Errorf("profile %s: k1 must be finite and positive", p.Name)
	case !finite(p.B) || p.B < 0 || p.B > 1:
		return fmt.Errorf("profile %s: b must be within [0, 1]", p.Name)
	case p.Algorithm != profile.BM25 && p.Algorithm != profile.TFIDF && p.Algorithm != profile.BM25F:
		return fmt.Errorf("profile %s: unknown algorithm %q", p.Name, p.Algorithm)
	case !(p.ScoreQuantum > 0):
		return fmt.Errorf("profile %s: score quantum must be positive", p.Name)
	}
	for f, w := range p.Weights {
		if !finite(w) || w < 0 {
			return fmt.Errorf("profile %s: weight of %s must be finite and non-negative", p.Name, profile.Field(f))
		}
	}
	return nil
}

// demotingPhrases lower-cases and trims avoid_when phrases, dropping empty
// ones and the boilerplate that every shortcut carries.
func demotingPhrases(avoidWhen []string, boilerplate string) []string {
	var out []string
	for _, phrase := range avoidWhen {
		phrase = lower(strings.TrimSpace(phrase))
		if phrase == "" || (boilerplate != "" && strings.Contains(phrase, boilerplate)) {
			continue
		}
		out = append(out, phrase)
	}
	return out
}

// lower is strings.ToLower without the copy when nothing changes (most
// avoid_when prose is Chinese, which has no case), and without the case
// tables for the CJK runes of a string that does change.
func lower(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				return lowerFrom(s, i)
			}
			i++
		case caselessCJK(s, i):
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || unicode.ToLower(r) != r {
				return lowerFrom(s, i)
			}
			i += size
		}
	}
	return s
}

// caselessCJK reports whether s[i:] starts with a rune in U+3000..U+9FFF
// (CJK punctuation, kana and ideographs, which have no case): a lead byte
// E3..E9 and two continuation bytes, which is always valid UTF-8. Checking
// the bytes skips decoding the rune, which is most of lower's cost in
// WebAssembly.
func caselessCJK(s string, i int) bool {
	return i+2 < len(s) && s[i] >= 0xE3 && s[i] <= 0xE9 && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80
}

// lowerFrom lowers s whose first i bytes need no change: rune by rune, as
// strings.ToLower does (which maps every rune with unicode.ToLower and writes
// an invalid byte as U+FFFD), but copying caseless CJK runes as they are.
func lowerFrom(s string, i int) string {
	out := make([]byte, i, len(s)+utf8.UTFMax)
	copy(out, s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
			i++
		case caselessCJK(s, i):
			out = append(out, s[i:i+3]...)
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			out = utf8.AppendRune(out, unicode.ToLower(r))
			i += size
		}
	}
	return string(out)
}

// productNameKey folds text for product-name containment: NFKC, all
// whitespace (including the ideographic space) removed, ASCII upper case
// lowered.
func productNameKey(value string) string {
	if value = strings.TrimSpace(value); value == "" {
		return ""
	}
	value = text.NFKC(value)
	if isKey(value) {
		return value // the common case: nothing to remove or lower
	}
	var b strings.Builder
	b.Grow(len(value))
	for _, r := range value {
		switch {
		case unicode.IsSpace(r) || r == '\u3000':
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r) // an invalid byte becomes U+FFFD
		}
	}
	return b.String()
}

// isKey reports whether productNameKey's loop would return s unchanged: valid
// UTF-8 without spaces or ASCII upper case. CJK text (U+3001..U+9FFF) is
// checked three bytes at a time without decoding.
func isKey(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' || c == ' ' || '\t' <= c && c <= '\r' {
				return false
			}
			i++
		case caselessCJK(s, i) && (c != 0xE3 || s[i+1] != 0x80 || s[i+2] != 0x80): // not U+3000
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || unicode.IsSpace(r) {
				return false
			}
			i += size
		}
	}
	return true
}

// productNameCore is the key of a product's display name (Name, else
// Description) with one generic trailing word such as 「管理」 removed, since
// users say 「钉钉表格」, not 「钉钉表格管理」.
func productNameCore(product *catalog.Product, suffixes []string) string {
	display := strings.TrimSpace(product.Name)
	if display == "" {
		display = strings.TrimSpace(product.Description)
	}
	key := productNameKey(display)
	if key == "" {
		return ""
	}
	for _, suffix := range suffixes {
		if utf8.RuneCountInString(key) <= utf8.RuneCountInString(suffix) {
			continue
		}
		if trimmed := strings.TrimSuffix(key, suffix); trimmed != key && productNameKey(trimmed) != "" {
			return trimmed
		}
	}
	return key
}

// Version is the catalog generation this engine answers for.
func (e *Engine) Version() catalog.VersionRef { return e.version }

// Catalog is the catalog this engine serves. Callers must not modify it.
func (e *Engine) Catalog() *catalog.Catalog { return e.catalog }

// Profile is the ranking profile in use.
func (e *Engine) Profile() *profile.Profile { return e.profile }

// ToolCount is the number of tools indexed.
func (e *Engine) ToolCount() int { return len(e.tools) }

// Index exposes the prebuilt index, for core/compile to store in a snapshot
// (its type is internal to core). Callers must not modify it.
func (e *Engine) Index() *index.Index { return e.index }

// IdentityTable is the engine's identity index as a snapshot stores it.
func (e *Engine) IdentityTable() catalog.IdentityTable { return e.identity.Table() }

// WithExplain returns an engine sharing e's index whose responses carry a
// score_breakdown on every candidate (for tuning, never for agents).
func (e *Engine) WithExplain(on bool) *Engine {
	if on == e.explain {
		return e
	}
	return &Engine{built: e.built, explain: on, exhaustive: e.exhaustive}
}

// SearchJSON decodes a tool-search.v1 request, searches, and returns the
// compact response bytes (without a trailing newline).
func (e *Engine) SearchJSON(request []byte) ([]byte, error) {
	return e.AppendSearchJSON(nil, request)
}

// AppendSearchJSON is SearchJSON appending the response to dst (which may
// be nil), so that a caller answering many requests can reuse one buffer.
// On error dst is returned unchanged.
func (e *Engine) AppendSearchJSON(dst, request []byte) ([]byte, error) {
	decoded, err := wire.DecodeSearchRequest(request)
	if err != nil {
		return dst, err
	}
	_, out, werr := e.answer(decoded, dst, true)
	if werr != nil {
		return dst, werr
	}
	return out, nil
}

// InspectJSON decodes a schema-inspect.v1 request and returns the pretty
// response bytes (without a trailing newline).
func (e *Engine) InspectJSON(request []byte) ([]byte, error) {
	decoded, err := wire.DecodeInspectRequest(request)
	if err != nil {
		return nil, err
	}
	return e.Inspect(decoded)
}
