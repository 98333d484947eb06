// Package profile fixes everything that changes ranking: the tokenizer, the
// indexed fields and their weights, the scoring algorithm and its constants,
// the demotion and lift rules, and the hint texts. A snapshot records the name
// of its profile; a released profile never changes behaviour, so a stored
// snapshot answers the same forever. Better ranking arrives as a new name.
package profile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// Field is one indexed text field. The numeric order is the fixed order in
// which per-field scores are added, which keeps float sums deterministic.
type Field int

// The indexed fields, in summation order.
const (
	Identity Field = iota
	Summary
	Description
	Parameters
	UseWhen
	NumFields
)

var fieldNames = [NumFields]string{"identity", "summary", "description", "parameters", "use_when"}

// String is the field's wire name (as in matched_fields).
func (f Field) String() string { return fieldNames[f] }

// Scoring algorithms. The name is echoed as the response strategy.
const (
	BM25  = "fielded_bm25_ensemble"
	TFIDF = "fielded_tfidf_cosine"
	BM25F = "fielded_bm25f"
)

// ExpandActionVerbs expands everyday action verbs in a query to the verbs
// tool names use (see expansion.go).
const ExpandActionVerbs = "action-verbs"

// Query term weights of BM25F: each distinct query term counts once, or
// ln(1 + its count in the query).
const (
	QueryTermOnce = ""
	QueryTermLog  = "log"
)

// Profile is an immutable ranking configuration.
type Profile struct {
	Name      string
	Tokenizer string // a core/text tokenizer name
	Algorithm string // BM25 or TFIDF
	K1, B     float64
	Weights   [NumFields]float64
	// FieldB is BM25F's length normalisation per field (B is unused there).
	FieldB [NumFields]float64
	// QueryTermWeight is BM25F's weight of a repeated query term.
	QueryTermWeight string
	// QueryExpansion names the query expansion (see AppendExpansions):
	// "" for none. ExpansionWeight is an expansion term's weight relative
	// to a query term's.
	QueryExpansion  string
	ExpansionWeight float64
	// QueryUserTurns ranks a query that is a dialogue transcript by its
	// user turns alone (see RankedQuery).
	QueryUserTurns bool
	// PairWeight is BM25F's weight of a word-pair term (see the generic-v2
	// tokenizer) relative to a word's; 0 means 1.
	PairWeight float64
	// MaxQueryRunes and MaxQueryBytes bound a query (0: the wire defaults,
	// the reference's 256 characters and 2 KiB).
	MaxQueryRunes, MaxQueryBytes int
	// MaxResponseBytes bounds an encoded answer (0: the wire default, the
	// reference's 8 KiB). Candidates past it are dropped from the end.
	MaxResponseBytes int
	// StrongFields are the fields whose match makes a result more than a
	// weak match (see WeakMatchHint); nil means identity and summary, the
	// reference's rule.
	StrongFields []Field
	// GenericProjection selects what text of a tool each field indexes:
	// false is the reference's projection (see Project).
	GenericProjection bool
	// IndexUseWhen indexes selection.use_when prose. Off in dws-v1: those
	// sentences are the evaluation queries, and indexing them leaks answers.
	IndexUseWhen bool
	// IdentityProductDescription folds the product's description into the
	// identity field beside its name. DWS product descriptions are display
	// names; an MCP server's description is prose, which does not belong
	// in a field weighted as a name.
	IdentityProductDescription bool
	// StrictQueryUnicode refuses, in queries, filters and Inspect paths,
	// every text.IsInvisible character besides dws-v1's list (the
	// reference's, kept exactly for conformance).
	StrictQueryUnicode bool
	// ResolveBareNames lets the exact guard and Inspect accept a tool's
	// bare name where it is unique (see catalog.IdentityIndex).
	ResolveBareNames bool
	// DescriptionSummaryRunes, when positive, gives a search reference
	// whose tool has no agent_summary the first sentence of its
	// description instead, cut to this many runes: MCP and OpenAI tools
	// rarely carry a summary, and a reference of a bare path tells an agent
	// little. It changes what a reference shows, never the ranking.
	DescriptionSummaryRunes int

	// AvoidWhenPenalty multiplies the score of a hit whose avoid_when phrase
	// the query quotes; phrases containing AvoidWhenBoilerplate are ignored.
	AvoidWhenPenalty     float64
	AvoidWhenBoilerplate string

	// NamedProductBoost lifts the hits of a product the query names by its
	// display name just above the best hit; ProductNameSuffixes are generic
	// words trimmed from display names before matching.
	NamedProductBoost   float64
	ProductNameSuffixes []string

	// DedupeSentences indexes each sentence of a field once (see
	// DedupeSentences): a description that repeats itself buys no rank.
	DedupeSentences bool
	// ExtraText says how a tool's Extra text (catalog.Tool.Extra) is
	// indexed: ExtraNone, ExtraNovel (only its terms that no other field
	// of the tool holds, each once) or ExtraWhole, into field ExtraField.
	ExtraText  string
	ExtraField Field
	// TermFrequencyCap, when positive, counts a term at most this many
	// times in one field of one tool (measured for generic-v3 and not
	// kept: see docs/QUALITY.md).
	TermFrequencyCap int
	// DeprecatedPenalty, when positive, multiplies the score of a tool its
	// source marks deprecated (catalog.Tool.Deprecated), so that it ranks
	// after its replacement (see Engine's demotion step).
	DeprecatedPenalty float64

	// ScoreQuantum: scores are rounded to 1/ScoreQuantum before sorting, so
	// that last-ulp differences between platforms cannot reorder results.
	ScoreQuantum float64

	AbstainHint   string // no candidates
	WeakMatchHint string // candidates matched only weak fields
}

// DWSV1 reproduces the DingTalk Workspace CLI reference engine exactly.
var DWSV1 = &Profile{
	Name:      "dws-v1",
	Tokenizer: "dws-v1",
	Algorithm: BM25,
	K1:        0.9,
	B:         0.4,
	Weights:   [NumFields]float64{Identity: 8, Summary: 5, Description: 2, Parameters: 2, UseWhen: 3},

	IdentityProductDescription: true,

	AvoidWhenPenalty:     0.20,
	AvoidWhenBoilerplate: "需要该 shortcut 未公开的底层参数",

	NamedProductBoost:   0.01,
	ProductNameSuffixes: []string{"操作", "管理", "工具", "服务"},

	ScoreQuantum: 1e9,

	AbstainHint:   "当前 Catalog 无匹配命令。可用 dws schema <product> --compact 复核该产品能力边界；若仍无对应能力，应如实结论为不支持，不要逐产品枚举试探。",
	WeakMatchHint: "候选仅命中弱相关字段，目标能力很可能不存在。最多用 dws schema <product> --compact 复核一次；仍无对应能力就如实结论为不支持，不要逐个候选或逐产品试探。",
}

// GenericV1 ranks catalogs that are not DWS (MCP servers, OpenAI and
// Anthropic tool lists, this project's native format) with the dws-v1
// pipeline, tokenizer and constants. It differs only where DWS data is
// special: use_when is indexed (authors write it for search, not for
// evaluation), product descriptions are prose rather than names, bare tool
// names resolve, no avoid_when phrase is boilerplate, no product-name suffix
// is generic, and the hints are neutral English. It is a starting point, not
// a tuned profile: docs/QUALITY.md reports what it scores.
var GenericV1 = &Profile{
	Name:      "generic-v1",
	Tokenizer: "dws-v1",
	Algorithm: BM25,
	K1:        0.9,
	B:         0.4,
	Weights:   [NumFields]float64{Identity: 8, Summary: 5, Description: 2, Parameters: 2, UseWhen: 3},

	IndexUseWhen:            true,
	ResolveBareNames:        true,
	DescriptionSummaryRunes: 160,

	AvoidWhenPenalty:  0.20,
	NamedProductBoost: 0.01,

	ScoreQuantum: 1e9,

	AbstainHint:   "No tool in this catalog matches. Inspect a likely product once to check its tools; if none fits, say the capability is not available instead of trying products one by one.",
	WeakMatchHint: "The candidates match only weakly related fields, so the capability is probably missing. Inspect at most one product to confirm; if none fits, say it is not available instead of trying each candidate.",
}

// GenericV2 ranks any catalog that is not DWS. Every rule in it was chosen
// by measurement on the six public tool-retrieval sets together, against a
// plain one-field BM25; docs/QUALITY.md gives each rule and what it earned.
var GenericV2 = &Profile{
	Name:            "generic-v2",
	Tokenizer:       "generic-v2",
	Algorithm:       BM25F,
	K1:              1.2,
	Weights:         [NumFields]float64{Identity: 5, Summary: 2, Description: 1, Parameters: 0.6, UseWhen: 1},
	FieldB:          [NumFields]float64{Identity: 0.75, Summary: 0.75, Description: 0.75, Parameters: 0.75, UseWhen: 0.75},
	QueryTermWeight: QueryTermOnce,
	PairWeight:      0.35,
	QueryExpansion:  ExpandActionVerbs,
	ExpansionWeight: 0.3,
	QueryUserTurns:  true,
	MaxQueryRunes:   2048,
	MaxQueryBytes:   8 << 10,
	// A long query is echoed in the answer; 32 KiB holds it and the most
	// candidates a request may ask for, so the byte budget never hides a
	// ranked tool within the limit (a test checks the worst case).
	MaxResponseBytes: 32 << 10,
	// Most generic tools have no summary: their description is what
	// says what they do.
	StrongFields: []Field{Identity, Summary, Description},

	GenericProjection:       true,
	IndexUseWhen:            true,
	ResolveBareNames:        true,
	DescriptionSummaryRunes: 160,
	StrictQueryUnicode:      true,

	AvoidWhenPenalty: 0.20,

	ScoreQuantum: 1e9,

	AbstainHint:   GenericV1.AbstainHint,
	WeakMatchHint: GenericV1.WeakMatchHint,
}

// GenericV3 is GenericV2 with four more rules, each measured on the six
// public sets together (docs/QUALITY.md, generic-v3): Chinese function
// words are not indexed as single characters (the generic-v3 tokenizer),
// each sentence of a field is indexed once, a tool's extra text (return
// values, tags, metadata) adds its novel terms to the parameters field,
// and a deprecated tool's score is multiplied by DeprecatedPenalty. It is
// the default of every import that is not DWS.
var GenericV3 = func() *Profile {
	p := *GenericV2
	p.Name = "generic-v3"
	p.Tokenizer = "generic-v3"
	p.DedupeSentences = true
	p.TermFrequencyCap = 2
	p.ExtraText = ExtraNovel
	p.ExtraField = Parameters
	p.DeprecatedPenalty = 0.5
	return &p
}()

// How a profile indexes a tool's Extra text.
const (
	ExtraNone       = ""
	ExtraNovel      = "novel"
	ExtraNovelWords = "novel-words"
	ExtraWhole      = "whole"
)

var registry = map[string]*Profile{DWSV1.Name: DWSV1, GenericV1.Name: GenericV1, GenericV2.Name: GenericV2, GenericV3.Name: GenericV3}

// Lookup returns the profile registered under name.
func Lookup(name string) (*Profile, bool) {
	p, ok := registry[name]
	return p, ok
}

// WithAlgorithm returns a copy of p scoring with another algorithm (for
// comparisons; the copy keeps p's name plus "+algorithm").
func (p *Profile) WithAlgorithm(algorithm string) (*Profile, error) {
	if algorithm != BM25 && algorithm != TFIDF {
		return nil, fmt.Errorf("unknown scoring algorithm %q (want %s or %s)", algorithm, BM25, TFIDF)
	}
	if algorithm == p.Algorithm {
		return p, nil
	}
	copy := *p
	copy.Algorithm = algorithm
	copy.Name = p.Name + "+" + algorithm
	return &copy, nil
}

// Project returns the text of each indexed field of tool. Parts are joined by
// one space and empty parts are kept (so an empty group yields two spaces):
// the reference indexes exactly these strings.
func (p *Profile) Project(tool *catalog.Tool, product *catalog.Product) [NumFields]string {
	if p.GenericProjection {
		out := projectGeneric(tool, product, p.IndexUseWhen)
		if p.DedupeSentences {
			for f := range out {
				out[f] = DedupeSentences(out[f])
			}
		}
		return out
	}
	id := &tool.Identity
	identity := []string{id.CanonicalPath, id.Path, id.CLIPath, id.PrimaryCLIPath, id.Name, id.CLIName, id.Group, id.ProductID}
	// Users name products by display name; folding it into identity keeps a
	// named product's tools from being crowded out by siblings that share
	// words. Name and Description are both folded (they often repeat).
	productNames := []string{product.Name}
	if p.IdentityProductDescription {
		productNames = append(productNames, product.Description)
	}
	for _, s := range productNames {
		if s = strings.TrimSpace(s); s != "" {
			identity = append(identity, s)
		}
	}
	identity = append(identity, id.Aliases...)

	params := tool.Params()
	parameters := make([]string, 0, 6*len(params))
	for i := range params {
		param := &params[i]
		parameters = append(parameters, param.Name, param.Property, param.Description,
			param.InterfaceDescription, param.Type, param.InterfaceType)
		parameters = append(parameters, param.Enum...)
	}

	var out [NumFields]string
	out[Identity] = strings.Join(identity, " ")
	out[Summary] = strings.Join([]string{tool.Selection.AgentSummary, tool.Title, tool.Display}, " ")
	out[Description] = tool.Description
	out[Parameters] = strings.Join(parameters, " ")
	if p.IndexUseWhen {
		out[UseWhen] = strings.Join(tool.Selection.UseWhen, " ")
	}
	return out
}

// QueryBudget is the longest query the profile accepts, in characters and
// in UTF-8 bytes.
func (p *Profile) QueryBudget() (runes, bytes int) {
	runes, bytes = wire.MaxQueryRunes, wire.MaxQueryBytes
	if p.MaxQueryRunes > 0 {
		runes = p.MaxQueryRunes
	}
	if p.MaxQueryBytes > 0 {
		bytes = p.MaxQueryBytes
	}
	return runes, bytes
}

// ResponseBudget is the largest encoded answer, newline included.
func (p *Profile) ResponseBudget() int {
	if p.MaxResponseBytes > 0 {
		return p.MaxResponseBytes
	}
	return wire.MaxResponseBytes
}

// IsStrongField reports whether a match on the named field (a wire name, as
// in matched_fields) is strong evidence.
func (p *Profile) IsStrongField(name string) bool {
	strong := p.StrongFields
	if strong == nil {
		strong = []Field{Identity, Summary}
	}
	for _, f := range strong {
		if f.String() == name {
			return true
		}
	}
	return false
}

// Names lists the registered profiles in byte order.
func Names() []string {
	return slices.Sorted(maps.Keys(registry))
}

// projectGeneric is the projection of generic-v2. Each field holds each
// piece of text once: the reference's identity repeats a tool's name in
// five forms (canonical path, path, CLI name, …), which with one-field
// saturation costs nothing but inflates term frequencies and lengths in
// BM25F. Parameter types ("string", "integer") are left out: every tool
// has them, and a query that says "number" means a number, not a type.
// Keywords and examples join use_when: words that say when a tool fits.
func projectGeneric(tool *catalog.Tool, product *catalog.Product, indexUseWhen bool) [NumFields]string {
	id := &tool.Identity
	identity := []string{id.Name}
	productName := strings.TrimSpace(product.Name)
	if productName == "" {
		productName = id.ProductID
	}
	identity = append(identity, productName)
	identity = append(identity, id.Aliases...)

	params := tool.Params()
	parameters := make([]string, 0, 3*len(params))
	for i := range params {
		param := &params[i]
		parameters = append(parameters, param.Name, param.Description)
		parameters = append(parameters, param.Enum...)
	}
	var useWhen []string
	if indexUseWhen {
		useWhen = slices.Clone(tool.Selection.UseWhen)
	}
	useWhen = append(useWhen, tool.Selection.Examples...)
	useWhen = append(useWhen, tool.Selection.Keywords...)

	var out [NumFields]string
	out[Identity] = strings.Join(identity, " ")
	out[Summary] = strings.Join([]string{tool.Selection.AgentSummary, tool.Title, tool.Display}, " ")
	out[Description] = tool.Description
	out[Parameters] = strings.Join(parameters, " ")
	out[UseWhen] = strings.Join(useWhen, " ")
	return out
}

// IndexTokens filters the tokens of one field of one tool before they are
// indexed. generic-v2 drops from identity every word that is a number (and
// every word pair with such a word): an id such as "apigen_tool_17" or "17"
// carries no words, and indexed it would let a number in a query ("book 2
// tickets") match a tool's id. Digits inside a word ("mp3", "base64",
// "v2") stay. Filtering tokens, not text, keeps the rule exactly where the
// tokenizer puts word boundaries ("17Tool", "天气17", fullwidth "１７").
func (p *Profile) IndexTokens(f Field, tokens []string) []string {
	if f != Identity || !p.GenericProjection {
		return tokens
	}
	kept := tokens[:0]
	for _, token := range tokens {
		first, second, pair := strings.Cut(token, text.PairSeparator)
		if isNumber(first) || pair && isNumber(second) {
			continue
		}
		kept = append(kept, token)
	}
	return kept
}

// isNumber: s is one or more ASCII digits.
func isNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
