// Package lint tells a catalog's author which tools an agent will not find,
// will confuse, or should not trust, by searching the catalog with the
// engine that serves it (docs/CATALOGS.md, "Linting a catalog"):
//
//  1. unreachable: each tool's self-queries (its summary or title, its
//     description's first sentence, its name split into words) are
//     searched; a tool none of them ranks in the top TopK is reported with
//     the tools that win instead and the query words each shares;
//  2. confusable pairs: two tools that each rank first for a self-query of
//     the other, or whose indexed term sets are near-duplicates (Jaccard
//     similarity ≥ NearDuplicatePermille/1000 over the index's own terms),
//     with the terms only one of them has (or none);
//  3. thin or unclear text: empty or short descriptions, a description that
//     only repeats the name, no action word, undocumented parameters, enum
//     values nothing explains;
//  4. safety hints: no safety annotations, a deleting name marked read-only,
//     deprecated tools (and one outranking its named replacement), text
//     that addresses the model, hidden or direction-changing characters;
//  5. expectations: the rank of each (query, tool) pair an author gives.
//
// The report (toolsift.lint.v1) is deterministic: slices sorted, no map
// reaches it, every score an integer. It is computed inside the module
// (core/provider's "lint" op) so every host prints the same bytes.
package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/wire"
)

// Schema names the report's shape; a change to it gets a new name.
const Schema = "toolsift.lint.v1"

// Levels of a finding, in increasing severity.
const (
	Info    = "info"
	Warning = "warning"
	Error   = "error"
)

// Thresholds of the checks: fixed, so that a report is comparable from run
// to run; the report repeats them.
const (
	// TopK: a tool is reachable when one of its self-queries ranks it
	// within the first TopK; an expectation is met within it too.
	TopK = 3
	// RankLimit is how deep a query's ranking is read: a rank beyond it is
	// reported as 0 (not found).
	RankLimit = wire.MaxLimit
	// NearDuplicatePermille: two tools whose indexed term sets have a
	// Jaccard similarity (|A∩B| / |A∪B|) of at least this, in thousandths,
	// are near-duplicates.
	NearDuplicatePermille = 800
	// MinDescriptionUnits: a description shorter than this is short. A unit
	// is a word of a space-separated script, or two Han, kana or Hangul
	// characters (one Chinese word is about two characters).
	MinDescriptionUnits = 5
	// MaxTerms caps each list of terms shown per pair or winner (the rarest
	// terms first: they tell most).
	MaxTerms = 10
	// MaxExpectations caps an expectations list.
	MaxExpectations = 1000
)

// Expectation is one line of an expectations file: a query and the tool
// (canonical path, or any name a query resolves exactly) it should find.
type Expectation struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

// Options are a lint's inputs besides the engine.
type Options struct {
	Expect []Expectation
}

// Report is the toolsift.lint.v1 answer.
type Report struct {
	Schema       string              `json:"schema"`
	Catalog      CatalogInfo         `json:"catalog"`
	Thresholds   Thresholds          `json:"thresholds"`
	Summary      Summary             `json:"summary"`
	Findings     []Finding           `json:"findings"`
	Expectations []ExpectationResult `json:"expectations"`
}

// CatalogInfo says what was linted.
type CatalogInfo struct {
	Format     string `json:"format"`
	Profile    string `json:"profile"`
	SourceHash string `json:"source_hash"`
	Tools      int    `json:"tools"`
}

// Thresholds repeats the package's constants.
type Thresholds struct {
	TopK                  int `json:"top_k"`
	RankLimit             int `json:"rank_limit"`
	NearDuplicatePermille int `json:"near_duplicate_permille"`
	MinDescriptionUnits   int `json:"min_description_units"`
}

// Summary counts the findings.
type Summary struct {
	Errors          int `json:"errors"`
	Warnings        int `json:"warnings"`
	Infos           int `json:"infos"`
	SelfQueries     int `json:"self_queries"`
	Unreachable     int `json:"unreachable"`
	ConfusablePairs int `json:"confusable_pairs"`
	ExpectationsMet int `json:"expectations_met"`
}

// Finding is one problem: its level, its check's name, the tool (canonical
// path), a second tool where the check names one (the other of a pair, a
// replacement, a tool the text refers to), a sentence that explains it,
// and the check's details.
type Finding struct {
	Level   string `json:"level"`
	Check   string `json:"check"`
	Tool    string `json:"tool"`
	Other   string `json:"other,omitempty"`
	Message string `json:"message"`
	// Queries: the searches behind an unreachable, confusable or
	// deprecated_outranks_replacement finding.
	Queries []QueryResult `json:"queries,omitempty"`
	// Pair details: similarity of the term sets in thousandths, the terms
	// both have, and those only Tool or only Other has (none: nothing
	// separates them).
	SimilarityPermille int      `json:"similarity_permille,omitempty"`
	SharedTerms        []string `json:"shared_terms,omitempty"`
	OnlyTool           []string `json:"only_tool,omitempty"`
	OnlyOther          []string `json:"only_other,omitempty"`
	// Items: what the check found (parameter names, enum values, phrases,
	// code points, reasons).
	Items []string `json:"items,omitempty"`
}

// QueryResult is one search: whose self-query it is and of which kind
// (summary, title, first_sentence, name_words), the query, the rank of the
// tool it is about (1-based; 0: not within RankLimit), and the tools ranked
// above it (at most TopK), each with the query terms its indexed text has.
type QueryResult struct {
	Of      string   `json:"of"`
	Kind    string   `json:"kind"`
	Query   string   `json:"query"`
	Rank    int      `json:"rank"`
	Winners []Winner `json:"winners,omitempty"`
}

// Winner is a tool ranked above the one a query is about.
type Winner struct {
	Tool        string   `json:"tool"`
	SharedTerms []string `json:"shared_terms"`
}

// ExpectationResult is an expectation with the rank its tool got (0: not
// within RankLimit) and the tools ranked above it.
type ExpectationResult struct {
	Query   string   `json:"query"`
	Tool    string   `json:"tool"`
	Rank    int      `json:"rank"`
	Winners []Winner `json:"winners,omitempty"`
}

// Run lints the catalog e serves. A bad expectation (an empty query, a tool
// no name resolves, a query the engine refuses) is a *wire.Error.
func Run(e *engine.Engine, opts Options) (*Report, error) {
	l, err := newLinter(e)
	if err != nil {
		return nil, err
	}
	expectations, err := l.expectations(opts.Expect)
	if err != nil {
		return nil, err
	}
	l.selfQueries()
	l.reachability()
	l.confusables()
	l.describe()
	l.safety()
	l.deprecations()

	r := &Report{
		Schema:  Schema,
		Catalog: CatalogInfo{Format: e.Catalog().Format, Profile: e.Profile().Name, SourceHash: e.Version().SourceHash, Tools: e.ToolCount()},
		Thresholds: Thresholds{
			TopK: TopK, RankLimit: RankLimit, NearDuplicatePermille: NearDuplicatePermille, MinDescriptionUnits: MinDescriptionUnits,
		},
		Findings:     l.findings,
		Expectations: expectations,
	}
	for _, x := range expectations {
		if x.Rank >= 1 && x.Rank <= TopK {
			r.Summary.ExpectationsMet++
		}
	}
	for _, q := range l.queries {
		r.Summary.SelfQueries += len(q)
	}
	sortFindings(r.Findings)
	for _, f := range r.Findings {
		switch f.Level {
		case Error:
			r.Summary.Errors++
		case Warning:
			r.Summary.Warnings++
		default:
			r.Summary.Infos++
		}
		switch f.Check {
		case CheckUnreachable:
			r.Summary.Unreachable++
		case CheckConfusable:
			r.Summary.ConfusablePairs++
		}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if r.Expectations == nil {
		r.Expectations = []ExpectationResult{}
	}
	return r, nil
}

// AppendJSON appends the report's compact JSON (encoding/json: members in
// declaration order, its escaping).
func (r *Report) AppendJSON(dst []byte) ([]byte, error) {
	out, err := json.Marshal(r)
	if err != nil {
		return dst, wire.Internal("encode_failed", err.Error())
	}
	return append(dst, out...), nil
}

// LevelRank orders levels: info 1, warning 2, error 3, anything else 0.
func LevelRank(level string) int {
	switch level {
	case Info:
		return 1
	case Warning:
		return 2
	case Error:
		return 3
	}
	return 0
}

// FailsAt reports whether the report has a finding at level or above (for
// a CI's --fail-on).
func (r *Report) FailsAt(level string) bool {
	switch LevelRank(level) {
	case 1:
		return r.Summary.Errors+r.Summary.Warnings+r.Summary.Infos > 0
	case 2:
		return r.Summary.Errors+r.Summary.Warnings > 0
	case 3:
		return r.Summary.Errors > 0
	}
	return false
}

// sortFindings: by tool, then check, then the other tool, then message.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Tool, b.Tool), strings.Compare(a.Check, b.Check),
			strings.Compare(a.Other, b.Other), strings.Compare(a.Message, b.Message))
	})
}

// linter is one run's state.
type linter struct {
	e        *engine.Engine
	paths    []string // canonical path per document
	terms    *termSets
	queries  [][]selfQuery // per document
	findings []Finding
}

func newLinter(e *engine.Engine) (*linter, error) {
	terms, err := newTermSets(e)
	if err != nil {
		return nil, err
	}
	l := &linter{e: e, terms: terms}
	for _, t := range e.Tools() {
		l.paths = append(l.paths, t.Identity.CanonicalPath)
	}
	return l, nil
}

func (l *linter) add(f Finding) { l.findings = append(l.findings, f) }

// expectations ranks each expectation's query; its tool must resolve.
func (l *linter) expectations(expect []Expectation) ([]ExpectationResult, error) {
	if len(expect) > MaxExpectations {
		return nil, wire.Validation("too_many_expectations", fmt.Sprintf("at most %d expectations, got %d", MaxExpectations, len(expect)))
	}
	var out []ExpectationResult
	for i, x := range expect {
		where := fmt.Sprintf("expectation %d", i+1)
		if strings.TrimSpace(x.Query) == "" {
			return nil, wire.Validation("invalid_expectation", where+": the query is empty")
		}
		doc, ok := l.e.ResolveTool(x.Tool)
		if !ok {
			return nil, wire.Validation("unknown_tool", fmt.Sprintf("%s: no tool is named %q", where, x.Tool))
		}
		docs, _, err := l.e.Rank(x.Query, RankLimit)
		if err != nil {
			werr := wire.ErrorOf(err)
			return nil, wire.Validation(werr.Reason, where+": "+werr.Message)
		}
		rank, winners := l.rankOf(doc, x.Query, docs)
		result := ExpectationResult{Query: x.Query, Tool: l.paths[doc], Rank: rank, Winners: winners}
		out = append(out, result)
		switch {
		case rank == 1:
		case rank >= 2 && rank <= TopK:
			l.add(Finding{Level: Info, Check: CheckExpectation, Tool: result.Tool,
				Message: fmt.Sprintf("%q ranks it %s, after %s", x.Query, ordinal(rank), winnerList(winners)),
				Queries: []QueryResult{{Of: result.Tool, Kind: "expectation", Query: x.Query, Rank: rank, Winners: winners}}})
		default:
			l.add(Finding{Level: Error, Check: CheckExpectation, Tool: result.Tool,
				Message: fmt.Sprintf("%q does not rank it in the top %d (%s)%s", x.Query, TopK, rankText(rank), winnersClause(winners)),
				Queries: []QueryResult{{Of: result.Tool, Kind: "expectation", Query: x.Query, Rank: rank, Winners: winners}}})
		}
	}
	return out, nil
}

// rankOf is doc's 1-based rank in docs (0: absent) and the tools ranked
// above it, at most TopK, with the query terms each shares.
func (l *linter) rankOf(doc int, query string, docs []int) (int, []Winner) {
	rank := slices.Index(docs, doc) + 1
	above := docs
	if rank > 0 {
		above = docs[:rank-1]
	}
	if len(above) > TopK {
		above = above[:TopK]
	}
	var winners []Winner
	if len(above) > 0 {
		queryTerms := l.terms.queryTerms(query)
		for _, w := range above {
			winners = append(winners, Winner{Tool: l.paths[w], SharedTerms: l.terms.names(l.terms.intersect(queryTerms, l.terms.doc[w]), MaxTerms, w)})
		}
	}
	return rank, winners
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

func rankText(rank int) string {
	if rank == 0 {
		return fmt.Sprintf("not in the first %d", RankLimit)
	}
	return ordinal(rank)
}

// winnersClause: "; a, b, c rank above it", or "" without winners.
func winnersClause(ws []Winner) string {
	if len(ws) == 0 {
		return ""
	}
	return "; " + winnerList(ws) + " rank above it"
}

func winnerList(ws []Winner) string {
	if len(ws) == 0 {
		return "no other tool"
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Tool
	}
	return strings.Join(names, ", ")
}
