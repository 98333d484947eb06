package wire

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// SearchRequest is a tool-search.v1 request. ProductIDs, Effects and
// ExcludeCanonical are hard filters, not relevance hints. Zero Limit and
// CandidateLimit mean the defaults.
type SearchRequest struct {
	Version          string   `json:"version"`
	Query            string   `json:"query"`
	Subqueries       []string `json:"subqueries,omitempty"`
	Limit            int      `json:"limit,omitempty"`
	CandidateLimit   int      `json:"candidate_limit,omitempty"`
	ProductIDs       []string `json:"product_ids,omitempty"`
	Effects          []string `json:"effects,omitempty"`
	ExcludeCanonical []string `json:"exclude_canonical,omitempty"`
	// Pattern, instead of Query, selects tools by a regular expression
	// (RE2 syntax, case-insensitive) over their names, descriptions and
	// parameter names and descriptions: see the engine's pattern mode.
	Pattern string `json:"pattern,omitempty"`
	// Scope, when set, is the universe of tools this request may know of
	// (an extension: the DWS reference has no such field). A tool outside
	// it does not exist for the request: a query naming it exactly is an
	// ordinary query, it is never a candidate, and no field names it. The
	// hard filters above then apply inside the scope, and still say why a
	// tool of the scope that a query named was filtered. A host that
	// serves several clients from one catalog (the MCP gateway's policy)
	// puts each client's allowance here and leaves the filters to it.
	Scope *SearchScope `json:"scope,omitempty"`
}

// SearchScope delimits a request's universe with the hard filters' three
// tests: a tool is in scope when its product is one of ProductIDs (any, if
// empty), its effect one of Effects (any, if empty), and its canonical path
// not in ExcludeCanonical.
type SearchScope struct {
	ProductIDs       []string `json:"product_ids,omitempty"`
	Effects          []string `json:"effects,omitempty"`
	ExcludeCanonical []string `json:"exclude_canonical,omitempty"`
}

// DecodeSearchRequest strictly decodes one tool-search.v1 request: at most
// MaxRequestBytes, exactly one JSON object, no unknown fields, and the right
// version. Field validation (limits, query length, filters) is the engine's.
func DecodeSearchRequest(data []byte) (SearchRequest, *Error) {
	request, err := decodeSearchRequest(data)
	if err != nil {
		return SearchRequest{}, err
	}
	if request.Version != SearchVersion {
		return SearchRequest{}, Validation("unsupported_version",
			`request must carry "version":"tool-search.v1" (use "subqueries" for a decomposed workflow)`)
	}
	return request, nil
}

// decodeSearchRequest decodes a request without judging its version, so that
// tests can compare every decoded struct with encoding/json's.
func decodeSearchRequest(data []byte) (SearchRequest, *Error) {
	var r SearchRequest
	d, err := newDecoder(data, SearchVersion)
	if err != nil {
		return SearchRequest{}, err
	}
	for d.nextField() {
		switch {
		case d.fieldIs("version"):
			d.versionValue(&r.Version, SearchVersion)
		case d.fieldIs("query"):
			d.stringValue(&r.Query)
		case d.fieldIs("subqueries"):
			d.stringsValue(&r.Subqueries)
		case d.fieldIs("limit"):
			d.intValue(&r.Limit)
		case d.fieldIs("candidate_limit"):
			d.intValue(&r.CandidateLimit)
		case d.fieldIs("product_ids"):
			d.stringsValue(&r.ProductIDs)
		case d.fieldIs("effects"):
			d.stringsValue(&r.Effects)
		case d.fieldIs("exclude_canonical"):
			d.stringsValue(&r.ExcludeCanonical)
		case d.fieldIs("pattern"):
			d.stringValue(&r.Pattern)
		case d.fieldIs("scope"):
			d.scopeValue(&r.Scope)
		default:
			d.unknownField()
		}
	}
	if err := d.finish(); err != nil {
		return SearchRequest{}, err
	}
	return r, nil
}

// SearchResponse is a tool-search.v1 response.
type SearchResponse struct {
	Version       string
	Catalog       catalog.VersionRef
	Query         string
	Pattern       string // a pattern request's pattern, written after query; "" otherwise
	Subqueries    []string
	Strategy      string
	Candidates    []ToolReference // encoded as [] when empty, never null
	ExactFiltered *ExactFiltered
	Abstained     bool
	WeakMatch     bool
	Hint          string
	Truncated     bool
}

// Strategies other than the lexical algorithm names.
const (
	StrategyExactGuard              = "exact_guard"
	StrategyExactFiltered           = "exact_filtered"
	StrategyDecomposedRoundRobin    = "decomposed_round_robin"
	StrategyDecomposedExactFiltered = "decomposed_exact_filtered"
	StrategyPattern                 = "pattern"
)

// ExactFiltered says why a query that named a tool exactly got no candidate:
// excluded | product_mismatch | effect_mismatch | unavailable.
type ExactFiltered struct {
	CanonicalPath string
	Reason        string
}

// ToolReference is the small pointer to a tool that search returns; an agent
// must Inspect it before running anything.
type ToolReference struct {
	CanonicalPath   string
	PrimaryCLIPath  string
	ProductID       string
	Title           string
	AgentSummary    string
	Effect          string
	Risk            string
	Confirmation    string
	Idempotency     string
	Rank            int
	MatchedFields   []string
	RankSources     []string
	TruncatedFields []string
	RequiresInspect bool
	ScoreBreakdown  *ScoreBreakdown
	// Head, when set, is the encoding of the fields above that depend on
	// the tool alone (CanonicalPath through Idempotency), and is written in
	// their place. An engine encodes it once per tool (escaping a long
	// summary is a tenth of a search in WebAssembly) and removes it from
	// every reference it hands out.
	Head ReferenceHead
}

// ReferenceHead is the JSON of a reference's leading fields, from
// EncodeReferenceHead: only this package writes its bytes.
type ReferenceHead struct{ json []byte }

// EncodeReferenceHead encodes t's leading fields, for t.Head and every later
// reference with the same values in those fields.
func EncodeReferenceHead(t *ToolReference) ReferenceHead {
	return ReferenceHead{json: t.appendHead(nil)}
}

// ScoreBreakdown explains a rank (only with explain on). Score is raw, not
// quantized; FieldScores are the weighted per-field contributions.
type ScoreBreakdown struct {
	Score            float64
	FieldScores      []FieldScore
	AvoidWhenPenalty string
}

// FieldScore is one field's weighted contribution.
type FieldScore struct {
	Field string
	Score float64
}

// AppendJSON appends the compact wire form: the reference's field order and
// omit-empty rules, HTML-escaped as encoding/json does.
func (r *SearchResponse) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"version":`...)
	dst = jsonw.AppendString(dst, r.Version, true)
	dst = append(dst, `,"catalog":{"source_hash":`...)
	dst = jsonw.AppendString(dst, r.Catalog.SourceHash, true)
	dst = append(dst, `,"surface_hash":`...)
	dst = jsonw.AppendString(dst, r.Catalog.SurfaceHash, true)
	dst = append(dst, `},"query":`...)
	dst = jsonw.AppendString(dst, r.Query, true)
	if r.Pattern != "" {
		dst = append(dst, `,"pattern":`...)
		dst = jsonw.AppendString(dst, r.Pattern, true)
	}
	if len(r.Subqueries) > 0 {
		dst = append(dst, `,"subqueries":`...)
		dst = jsonw.AppendStrings(dst, r.Subqueries, true)
	}
	dst = append(dst, `,"strategy":`...)
	dst = jsonw.AppendString(dst, r.Strategy, true)
	dst = append(dst, `,"candidates":[`...)
	for i := range r.Candidates {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = r.Candidates[i].appendJSON(dst); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	if r.ExactFiltered != nil {
		dst = append(dst, `,"exact_filtered":{"canonical_path":`...)
		dst = jsonw.AppendString(dst, r.ExactFiltered.CanonicalPath, true)
		dst = append(dst, `,"reason":`...)
		dst = jsonw.AppendString(dst, r.ExactFiltered.Reason, true)
		dst = append(dst, '}')
	}
	if r.Abstained {
		dst = append(dst, `,"abstained":true`...)
	}
	if r.WeakMatch {
		dst = append(dst, `,"weak_match":true`...)
	}
	if r.Hint != "" {
		dst = append(dst, `,"hint":`...)
		dst = jsonw.AppendString(dst, r.Hint, true)
	}
	if r.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	return append(dst, '}'), nil
}

func (t *ToolReference) appendJSON(dst []byte) ([]byte, error) {
	if t.Head.json != nil {
		dst = append(dst, t.Head.json...)
	} else {
		dst = t.appendHead(dst)
	}
	dst = append(dst, `,"rank":`...)
	dst = jsonw.AppendInt(dst, int64(t.Rank))
	if len(t.MatchedFields) > 0 {
		dst = append(dst, `,"matched_fields":`...)
		dst = jsonw.AppendStrings(dst, t.MatchedFields, true)
	}
	dst = append(dst, `,"rank_sources":`...)
	if t.RankSources == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonw.AppendStrings(dst, t.RankSources, true)
	}
	if len(t.TruncatedFields) > 0 {
		dst = append(dst, `,"truncated_fields":`...)
		dst = jsonw.AppendStrings(dst, t.TruncatedFields, true)
	}
	if t.RequiresInspect {
		dst = append(dst, `,"requires_inspect":true`...)
	} else {
		dst = append(dst, `,"requires_inspect":false`...)
	}
	if b := t.ScoreBreakdown; b != nil {
		var ok bool
		dst = append(dst, `,"score_breakdown":{"score":`...)
		if dst, ok = jsonw.AppendFloat(dst, b.Score); !ok {
			return dst, fmt.Errorf("score of %s is not finite", t.CanonicalPath)
		}
		if len(b.FieldScores) > 0 {
			scores := append([]FieldScore(nil), b.FieldScores...)
			slices.SortFunc(scores, func(a, b FieldScore) int { return strings.Compare(a.Field, b.Field) })
			dst = append(dst, `,"field_scores":{`...)
			for i, fs := range scores {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = jsonw.AppendString(dst, fs.Field, true)
				dst = append(dst, ':')
				if dst, ok = jsonw.AppendFloat(dst, fs.Score); !ok {
					return dst, fmt.Errorf("field score of %s is not finite", t.CanonicalPath)
				}
			}
			dst = append(dst, '}')
		}
		dst = appendOptional(dst, `,"avoid_when_penalty":`, b.AvoidWhenPenalty)
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendHead writes the opening brace and the fields Head stands for.
func (t *ToolReference) appendHead(dst []byte) []byte {
	dst = append(dst, `{"canonical_path":`...)
	dst = jsonw.AppendString(dst, t.CanonicalPath, true)
	dst = appendOptional(dst, `,"primary_cli_path":`, t.PrimaryCLIPath) // generic tools have none
	dst = append(dst, `,"product_id":`...)
	dst = jsonw.AppendString(dst, t.ProductID, true)
	dst = appendOptional(dst, `,"title":`, t.Title)
	dst = appendOptional(dst, `,"agent_summary":`, t.AgentSummary)
	dst = appendOptional(dst, `,"effect":`, t.Effect)
	dst = appendOptional(dst, `,"risk":`, t.Risk)
	dst = appendOptional(dst, `,"confirmation":`, t.Confirmation)
	return appendOptional(dst, `,"idempotency":`, t.Idempotency)
}

func appendOptional(dst []byte, key, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, key...)
	return jsonw.AppendString(dst, value, true)
}
