package engine

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// query is a validated, normalized single search.
type query struct {
	text           string
	limit          int
	candidateLimit int
	products       []string // sorted, unique
	effects        []string // sorted, unique, lower case
	excluded       []string // sorted, unique
	// scope is the request's universe (wire.SearchScope), or nil when it
	// has none and every tool is in it.
	scope *scope
	// encodeOnly: the caller reads the response's bytes alone (never the
	// *wire.SearchResponse), so its candidates may live in the query's
	// scratch, which is reused once the bytes are written.
	encodeOnly bool
}

// Search answers one tool-search.v1 request. A failure is a *wire.Error
// (errors.As reaches it); a failed request never changes the engine.
func (e *Engine) Search(request wire.SearchRequest) (*wire.SearchResponse, error) {
	response, _, err := e.answer(request, nil, false)
	if response != nil {
		// The caller owns the response: nothing in it is shared with the
		// engine's cache, and no encoded Head can go stale if it edits a
		// reference.
		for i := range response.Candidates {
			c := &response.Candidates[i]
			c.Head = wire.ReferenceHead{}
			c.TruncatedFields = slices.Clone(c.TruncatedFields)
		}
	}
	return response, wire.AsError(err)
}

// answer is Search that also appends the response's wire bytes to dst (the
// byte budget check produces them anyway). With encodeOnly the caller must
// not read the returned response, only the bytes.
func (e *Engine) answer(request wire.SearchRequest, dst []byte, encodeOnly bool) (*wire.SearchResponse, []byte, *wire.Error) {
	if request.Pattern != "" {
		return e.searchPattern(request, dst)
	}
	if len(request.Subqueries) > 0 {
		return e.searchDecomposed(request, dst)
	}
	q, err := e.validate(request)
	if err != nil {
		return nil, nil, err
	}
	q.encodeOnly = encodeOnly
	return e.search(q, dst)
}

// scope is a validated wire.SearchScope: what it lets in.
type scope struct {
	tools []bool // per document: in the scope
	// eligible is tools without the tools an agent may not run: the
	// eligibility of a request without filters of its own (read-only,
	// shared by its subqueries).
	eligible []bool
	// productsIn marks, per product, those with a tool in the scope (every
	// product, when the scope is empty): the only products a query can
	// name (the named-product lift) or a product_ids filter may hold.
	productsIn []bool
}

// inScope reports whether doc exists for q.
func (q *query) inScope(doc int) bool { return q.scope == nil || q.scope.tools[doc] }

// resolveInScope is resolveIdentity over the tools of q's scope: a name of
// a tool outside it names nothing, as if the catalog had no such tool (so
// a bare name that tool shares with one in the scope names the latter).
func (e *Engine) resolveInScope(q *query, folded string) (int, bool) {
	if q.scope == nil {
		return e.resolveIdentity(q.text, folded)
	}
	in := q.inScope
	if doc, ok := e.identity.ResolveQueryIn(q.text, e.tools, e.profile.ResolveBareNames, in); ok {
		return doc, true
	}
	if folded != q.text {
		return e.identity.ResolveQueryIn(folded, e.tools, e.profile.ResolveBareNames, in)
	}
	return 0, false
}

// resolveIdentity finds the tool a query names exactly: as typed, else in
// NFKC form (folded), so that full-width "ｃｈａｔ.ｓｅｎｄ" names chat.send.
// Trying the text as typed first keeps reachable an imported name that is
// not itself NFKC; DWS identities are ASCII, where both forms agree.
func (e *Engine) resolveIdentity(queryText, folded string) (int, bool) {
	if doc, ok := e.identity.ResolveQuery(queryText); ok {
		return doc, true
	}
	if folded != queryText { // most queries are NFKC already
		return e.identity.ResolveQuery(folded)
	}
	return 0, false
}

// search is the pipeline, top to bottom: exact guard → hard filters →
// lexical retrieval with avoid_when demotion → named-product lift → cut →
// finalize under the byte budget. A request's scope bounds every step: a
// tool outside it is never named, filtered, scored or lifted, so that
// nothing in the answer shows it exists.
func (e *Engine) search(q query, dst []byte) (*wire.SearchResponse, []byte, *wire.Error) {
	work := e.getScratch()
	defer e.putScratch(work)
	// Encoded only, the response is built in the scratch's memory, which
	// serves query after query: the module then allocates almost nothing
	// per search, so no collection starts (see putScratch).
	var response *wire.SearchResponse
	if q.encodeOnly {
		response = &work.response
		e.resetResponse(response, q.text, e.profile.Algorithm)
		response.Candidates = work.references[:0]
		defer func() { work.references = response.Candidates[:0] }()
	} else {
		response = e.newResponse(q.text, e.profile.Algorithm)
	}
	// The query in NFKC form, computed once: the exact guard and the
	// tokenizer both need it (the tokenizer normalises again, which for an
	// NFKC text is only a check).
	folded := text.NFKC(q.text)

	// 1. Exact guard: a query that is a tool's identity returns that tool
	// alone, or nothing with the reason it was filtered; never its siblings.
	// Only a tool of the scope has an identity: the name of one outside it
	// goes on as an ordinary query, since saying it was filtered would
	// tell that it exists.
	if doc, ok := e.resolveInScope(&q, folded); ok {
		if reason := e.ineligibleReason(doc, q); reason != "" {
			response.Strategy = wire.StrategyExactFiltered
			response.Abstained = true
			response.ExactFiltered = &wire.ExactFiltered{CanonicalPath: e.tools[doc].Identity.CanonicalPath, Reason: reason}
			return e.finalize(response, dst)
		}
		response.Strategy = wire.StrategyExactGuard
		reference := e.reference(doc, []string{"identity"}, []string{"exact"})
		reference.Rank = 1
		if e.explain {
			reference.ScoreBreakdown = &wire.ScoreBreakdown{Score: 1, FieldScores: []wire.FieldScore{{Field: "identity", Score: 1}}}
		}
		response.Candidates = []wire.ToolReference{reference}
		return e.finalize(response, dst)
	}

	// 2. The scope and the hard filters decide which documents may be
	// scored at all.
	eligible := e.eligibility(q)

	// 3. Lexical retrieval over the eligible documents, then avoid_when
	// and deprecation demotion of the retrieved candidates.
	scratch := &work.index
	// avoid_when phrases are matched against the query lower-cased; a
	// catalog without any (most generic ones) needs no lower-casing ("" is
	// a query that quotes no phrase).
	lowered := ""
	if e.demotes {
		lowered = lower(strings.TrimSpace(q.text))
	}
	hits, scored := e.retrieve(lowered, folded, eligible, q.candidateLimit, work)

	// 4. Named-product lift: a query that names a product by its display name
	// keeps that product's best tool in the results.
	if named := e.namedProduct(q.text, q.scope); named >= 0 {
		hits = e.liftNamedProduct(lowered, hits, scored, named, scratch)
	}

	// 5. Cut to the limit and number the ranks.
	if len(hits) > q.limit {
		hits = hits[:q.limit]
	}
	// One backing array for every candidate's matched fields, each candidate
	// its own capped part of it (so appending to one never writes into the
	// next), and one for their rank sources.
	var names, sources []string
	if q.encodeOnly {
		names, sources = work.matched[:0], e.rankSources
		defer func() { work.matched = names[:0] }()
	} else {
		response.Candidates = make([]wire.ToolReference, 0, len(hits))
		names, sources = make([]string, 0, int(profile.NumFields)*len(hits)), []string{e.profile.Algorithm}
	}
	for i, hit := range hits {
		start := len(names)
		names = appendMatchedFields(names, &hit.fields)
		reference := e.reference(int(hit.Doc), names[start:len(names):len(names)], sources)
		reference.Rank = i + 1
		if e.explain {
			reference.ScoreBreakdown = hit.breakdown
		}
		response.Candidates = append(response.Candidates, reference)
	}
	return e.finalize(response, dst)
}

// retrieve is the lexical chain: score the eligible documents, keep the best
// k, demote those the query warns against. It also returns every scored
// document (in no order) for the named-product lift, or nil when the best
// k come from index.TopBM25F (a BM25F profile without the lift): the same
// ranking, without an exact score for every document. folded is the query in
// NFKC form (the tokenizer's output is the same as for the query), lowered
// its lower-cased form for demotion.
func (e *Engine) retrieve(lowered, folded string, eligible []bool, k int, work *scratch) ([]candidate, []index.Hit) {
	// A deprecated tool in the best k may fall below one ranked after them
	// once demoted: with d deprecated tools, the best k after demotion are
	// among the best k + d before it (each tool that rises passes only
	// deprecated ones). Past k more, the cost would grow with the catalog's
	// deprecated tools; a demoted tool then keeps its place among the k.
	want := k
	if e.deprecated > 0 {
		want = k + min(e.deprecated, k)
	}
	hits, scored := e.retrieveTop(lowered, folded, eligible, want, work)
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, scored
}

func (e *Engine) retrieveTop(lowered, folded string, eligible []bool, k int, work *scratch) ([]candidate, []index.Hit) {
	work.tokens = work.tokenizer.AppendTokens(work.tokens[:0], e.profile.RankedQuery(folded))
	work.expansions = e.profile.AppendExpansions(work.expansions[:0], work.tokens)
	if e.profile.Algorithm == profile.BM25F && e.profile.NamedProductBoost == 0 && !e.exhaustive {
		// The best k exactly, without an exact score for every document
		// (the named-product lift, which needs them all, is off). Since the
		// dense pass keeps its candidates in a heap this is the faster way
		// at every catalog size, natively too: exhaustive against TopBM25F,
		// alternated, p50 of `toolsiftbench run -engine native -seconds 2`,
		// StableToolBench (2,479 tools) 69.0, 65.5 against 67.1, 53.3 µs;
		// 10,000 tools 273.7, 263.0 against 106.3, 83.4 µs. (In WebAssembly
		// it already was: stb on wazero 1.36, 1.39 against 1.15, 1.25 ms.)
		top := e.index.TopBM25F(work.tokens, work.expansions, e.profile.ExpansionWeight, eligible, k, e.profile.ScoreQuantum, &work.index)
		work.candidates = e.demote(lowered, top, work.candidates, &work.index)
		return work.candidates, nil
	}
	scored := e.index.ScoreExpanded(&e.profile.Weights, work.tokens, work.expansions, e.profile.ExpansionWeight, eligible, &work.index)
	work.candidates = e.demote(lowered, index.Top(scored, k, e.profile.ScoreQuantum), work.candidates, &work.index)
	return work.candidates, scored
}

// candidate is a retrieved hit with its explanation.
type candidate struct {
	index.Ranked
	fields    [profile.NumFields]float64 // weighted contribution per field
	breakdown *wire.ScoreBreakdown
}

// demote multiplies the score of every hit whose avoid_when phrase the query
// (lowered: trimmed and lower-cased) quotes by the profile's penalty, and
// that of every deprecated tool by DeprecatedPenalty, and re-ranks if
// anything moved.
func (e *Engine) demote(lowered string, hits []index.Ranked, out []candidate, scratch *index.Scratch) []candidate {
	out = slices.Grow(out[:0], len(hits))[:len(hits)]
	penalized := false
	for i, hit := range hits {
		out[i].Ranked = hit
		out[i].fields = scratch.FieldScores(hit.Doc)
		reason := e.avoidWhenReason(lowered, int(hit.Doc))
		score := hit.Score
		if reason != "" {
			score *= e.profile.AvoidWhenPenalty
		}
		if e.docs[hit.Doc].deprecated {
			score *= e.profile.DeprecatedPenalty
		}
		if score != hit.Score {
			out[i].Ranked = index.Rank(index.Hit{Doc: hit.Doc, Score: score}, e.profile.ScoreQuantum)
			penalized = true
		}
		if e.explain {
			out[i].breakdown = breakdown(out[i].Score, &out[i].fields, reason)
		}
	}
	if penalized {
		slices.SortFunc(out, func(a, b candidate) int { return index.Compare(&a.Ranked, &b.Ranked) })
	}
	return out
}

func (e *Engine) avoidWhenReason(loweredQuery string, doc int) string {
	if loweredQuery == "" {
		return ""
	}
	for _, phrase := range e.docs[doc].avoidWhen {
		if strings.Contains(loweredQuery, phrase) {
			return phrase
		}
	}
	return ""
}

// namedProduct returns the product whose display-name core the query
// contains, or -1. When several match, the longest core wins; when the
// longest length is shared, no product is named. (The reference walks a Go
// map here, so with three or more matches its answer can depend on map
// order; this rule is the deterministic reading of its intent.) Only
// products with a tool in the scope (any, when it is nil) are considered:
// one without could otherwise tie with and so cancel a visible one.
func (e *Engine) namedProduct(queryText string, scope *scope) int {
	if e.profile.NamedProductBoost == 0 {
		return -1 // the profile has no lift
	}
	key := productNameKey(queryText)
	if key == "" {
		return -1
	}
	best, bestLen, tied := -1, 0, false
	for i, contained := range e.coresIn(key) {
		if !contained || scope != nil && !scope.productsIn[i] {
			continue
		}
		switch n := e.coreRunes[i]; {
		case n > bestLen:
			best, bestLen, tied = i, n, false
		case n == bestLen:
			tied = true
		}
	}
	if tied {
		return -1
	}
	return best
}

// coresIn reports, per product, whether key contains the product's core
// (strings.Contains for every core, in one pass over key): a core can only
// start where key holds its first byte, and cores are indexed by that byte.
func (e *Engine) coresIn(key string) []bool {
	contained := make([]bool, len(e.productCores))
	for i := 0; i < len(key); i++ {
		for _, p := range e.coresByFirstByte[key[i]] {
			if !contained[p] && strings.HasPrefix(key[i:], e.productCores[p]) {
				contained[p] = true
			}
		}
	}
	return contained
}

// liftNamedProduct adds the named product's best eligible tool when it is
// missing, then lifts every hit of that product that scores below the top
// hit to just above it (top + score·boost), keeping their relative order.
func (e *Engine) liftNamedProduct(lowered string, hits []candidate, scored []index.Hit, product int, scratch *index.Scratch) []candidate {
	best, found := e.bestOfProduct(scored, product)
	if !found {
		return hits
	}
	present := false
	for i := range hits {
		if hits[i].Doc == best.Doc {
			present = true
			break
		}
	}
	if !present {
		hits = append(hits, e.demote(lowered, []index.Ranked{best}, nil, scratch)...)
	}
	top := 0.0
	for i := range hits {
		if hits[i].Score > top {
			top = hits[i].Score
		}
	}
	for i := range hits {
		if e.docs[hits[i].Doc].product == product && hits[i].Score < top {
			hits[i].Score = top + float64(hits[i].Score*e.profile.NamedProductBoost) // no fused multiply-add
		}
	}
	// The reference sorts raw (not quantized) scores here.
	slices.SortStableFunc(hits, func(a, b candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	return hits
}

// bestOfProduct returns the best scored hit of product's tools, and false if
// none scored. (A plain loop: a callback per hit costs more than the rest of
// the lift in WebAssembly.)
func (e *Engine) bestOfProduct(scored []index.Hit, product int) (index.Ranked, bool) {
	var best index.Ranked
	found := false
	docs := e.docs
	for _, hit := range scored {
		if docs[hit.Doc].product != product {
			continue
		}
		r := index.Rank(hit, e.profile.ScoreQuantum)
		if !found || index.Less(&r, &best) {
			best, found = r, true
		}
	}
	return best, found
}

// appendMatchedFields appends the fields that contributed to names, largest
// contribution first, ties by field name. (An insertion sort of at most
// five: no call per comparison, which is dear in WebAssembly.)
func appendMatchedFields(names []string, scores *[profile.NumFields]float64) []string {
	var fields [profile.NumFields]profile.Field
	n := 0
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if scores[f] <= 0 {
			continue
		}
		i := n
		for ; i > 0 && fieldBefore(scores, f, fields[i-1]); i-- {
			fields[i] = fields[i-1]
		}
		fields[i] = f
		n++
	}
	for _, f := range fields[:n] {
		names = append(names, f.String())
	}
	return names
}

// fieldBefore: a's contribution is larger than b's, or equal with a's name
// first.
func fieldBefore(scores *[profile.NumFields]float64, a, b profile.Field) bool {
	if scores[a] != scores[b] {
		return scores[a] > scores[b]
	}
	return a.String() < b.String()
}

func breakdown(score float64, fields *[profile.NumFields]float64, avoidWhen string) *wire.ScoreBreakdown {
	b := &wire.ScoreBreakdown{Score: score, AvoidWhenPenalty: avoidWhen}
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if fields[f] > 0 {
			b.FieldScores = append(b.FieldScores, wire.FieldScore{Field: f.String(), Score: fields[f]})
		}
	}
	return b
}

// reference returns the public pointer to a tool for one answer: the
// tool's cached part (see built.references) with this answer's fields.
// Racing first uses build equal values, and either may stay cached.
func (e *Engine) reference(doc int, matched, sources []string) wire.ToolReference {
	cached := e.references[doc].Load()
	if cached == nil {
		ref := e.toolReference(doc)
		ref.Head = wire.EncodeReferenceHead(&ref)
		e.references[doc].Store(&ref)
		cached = &ref
	}
	ref := *cached
	ref.MatchedFields, ref.RankSources = matched, sources
	return ref
}

// toolReference is the part of a tool's reference that depends on the tool
// alone, with long prose truncated.
func (e *Engine) toolReference(doc int) wire.ToolReference {
	tool := e.tools[doc]
	title := truncateRunes(tool.Title, wire.MaxSummaryRunes)
	full, limit := tool.Selection.AgentSummary, wire.MaxSummaryRunes
	if full == "" && e.profile.DescriptionSummaryRunes > 0 {
		full, limit = firstSentence(tool.Description), e.profile.DescriptionSummaryRunes
	}
	summary := truncateRunes(full, limit)
	var truncated []string
	if title != tool.Title {
		truncated = append(truncated, "title")
	}
	if summary != full {
		truncated = append(truncated, "agent_summary")
	}
	return wire.ToolReference{
		CanonicalPath:   tool.Identity.CanonicalPath,
		PrimaryCLIPath:  tool.Identity.PrimaryCLIPath,
		ProductID:       tool.Identity.ProductID,
		Title:           title,
		AgentSummary:    summary,
		Effect:          tool.Safety.Effect,
		Risk:            tool.Safety.Risk,
		Confirmation:    tool.Safety.Confirmation,
		Idempotency:     tool.Safety.Idempotency,
		TruncatedFields: truncated,
		RequiresInspect: true,
	}
}

// firstSentence is text up to and including its first sentence end (". ",
// "! ", "? ", "。", "！", "？") or line break, trimmed.
func firstSentence(text string) string {
	text = strings.TrimSpace(text)
	for i, r := range text {
		switch r {
		case '\n', '\r':
			return strings.TrimSpace(text[:i])
		case '。', '！', '？':
			return text[:i+utf8.RuneLen(r)]
		case '.', '!', '?':
			if next := i + 1; next == len(text) || text[next] == ' ' || text[next] == '\t' {
				return text[:next]
			}
		}
	}
	return text
}

// truncateRunes keeps the first limit runes of s, as string([]rune(s)[:limit])
// does (which writes each invalid byte as U+FFFD). Most texts are within
// the limit, which the byte length or one count shows without decoding.
func truncateRunes(s string, limit int) string {
	if len(s) <= limit || utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			if cut := s[:i]; utf8.ValidString(cut) {
				return cut
			}
			break
		}
		n++
	}
	return string([]rune(s)[:limit])
}

// eligibility marks the documents in the scope that pass the hard filters.
func (e *Engine) eligibility(q query) []bool {
	if len(q.products) == 0 && len(q.effects) == 0 && len(q.excluded) == 0 {
		if q.scope != nil {
			return q.scope.eligible // shared and read-only
		}
		return e.executable // shared and read-only
	}
	eligible := make([]bool, len(e.tools))
	for doc := range e.tools {
		eligible[doc] = q.inScope(doc) && e.ineligibleReason(doc, q) == ""
	}
	return eligible
}

// ineligibleReason applies the hard filters in the reference's order:
// excluded → product_mismatch → effect_mismatch → unavailable.
func (e *Engine) ineligibleReason(doc int, q query) string {
	tool := e.tools[doc]
	switch {
	case contains(q.excluded, tool.Identity.CanonicalPath):
		return "excluded"
	case len(q.products) > 0 && !contains(q.products, tool.Identity.ProductID):
		return "product_mismatch"
	case len(q.effects) > 0 && !contains(q.effects, tool.Safety.Effect):
		return "effect_mismatch"
	case !e.docs[doc].executable:
		return "unavailable"
	}
	return ""
}

// contains reports whether sorted holds value.
func contains(sorted []string, value string) bool {
	i := sort.SearchStrings(sorted, value)
	return i < len(sorted) && sorted[i] == value
}

func (e *Engine) newResponse(queryText, strategy string) *wire.SearchResponse {
	r := new(wire.SearchResponse)
	e.resetResponse(r, queryText, strategy)
	return r
}

// resetResponse makes r a response to queryText with no candidates yet.
func (e *Engine) resetResponse(r *wire.SearchResponse, queryText, strategy string) {
	*r = wire.SearchResponse{
		Version:    wire.SearchVersion,
		Catalog:    e.version,
		Query:      queryText,
		Strategy:   strategy,
		Candidates: []wire.ToolReference{},
	}
}

// finalize sets abstained, weak_match and the hints, then enforces the byte
// budget by dropping whole candidates from the end. It appends the encoded
// response to dst and returns it too.
func (e *Engine) finalize(r *wire.SearchResponse, dst []byte) (*wire.SearchResponse, []byte, *wire.Error) {
	r.Abstained = r.Abstained || len(r.Candidates) == 0
	if r.Abstained && r.Hint == "" && r.ExactFiltered == nil {
		r.Hint = e.profile.AbstainHint
	}
	// A pattern's match is exact by construction: never weak.
	if !r.Abstained && len(r.Candidates) > 0 && r.Strategy != wire.StrategyPattern && !e.hasStrongMatch(r.Candidates) {
		r.WeakMatch = true
		if r.Hint == "" {
			r.Hint = e.profile.WeakMatchHint
		}
	}
	if dst == nil {
		dst = make([]byte, 0, 4096)
	}
	start := len(dst)
	budget := e.profile.ResponseBudget()
	for {
		out, err := r.AppendJSON(dst[:start])
		if err != nil {
			return nil, nil, wire.Internal("encode_failed", err.Error())
		}
		if len(out)-start+1 <= budget {
			return r, out, nil
		}
		dst = out // keep the grown buffer for the next try
		if len(r.Candidates) == 0 {
			return nil, nil, wire.Internal("response_too_large", fmt.Sprintf("response exceeds %d bytes without candidates", budget))
		}
		r.Candidates = r.Candidates[:len(r.Candidates)-1]
		r.Truncated = true
		r.Abstained = len(r.Candidates) == 0
		if r.Abstained {
			r.WeakMatch = false
			r.Hint = e.profile.AbstainHint
		}
		for i := range r.Candidates {
			r.Candidates[i].Rank = i + 1
		}
	}
}

// hasStrongMatch: some candidate matched on a field the profile counts as
// strong evidence (dws-v1: identity or summary).
func (e *Engine) hasStrongMatch(candidates []wire.ToolReference) bool {
	for i := range candidates {
		for _, field := range candidates[i].MatchedFields {
			if e.profile.IsStrongField(field) {
				return true
			}
		}
	}
	return false
}

// scratch is one query's reusable working memory.
type scratch struct {
	index      index.Scratch
	candidates []candidate // demote's, for this query
	// When encodeOnly: the response, its candidates and their matched
	// fields.
	response   wire.SearchResponse
	references []wire.ToolReference
	matched    []string
	tokenizer  text.Tokenizer // the engine's, remembering words (queryWords)
	tokens     []string
	expansions []string
}

// queryWords is how many distinct query words each scratch's tokenizer
// remembers (text.MemoizedUpTo): 4.5 times the 3,624 distinct words of the
// 765 StableToolBench queries; full of 15-byte words the memo held 1.9 MiB
// of heap (a throwaway test). Remembering them took a StableToolBench query
// in Node from 300, 306 to 232, 230 µs (p50, alternated).
const queryWords = 1 << 14

// getScratch takes the held scratch, or one from the pool, or a new one.
func (e *Engine) getScratch() *scratch {
	if s := e.heldScratch.Swap(nil); s != nil {
		return s
	}
	if s, ok := e.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{tokenizer: text.MemoizedUpTo(e.tokenizer, queryWords)}
}

// putScratch gives a scratch back: held when none is, else to the pool.
//
// Why one is held outside the pool: a sync.Pool drops what it holds at
// every collection, and with it the remembered query words and the
// per-document arrays (several MiB at 100,000 tools), which the next query
// then allocated again: a collection brought the next, and while one marks,
// every pointer written pays a write barrier. In the module, which searches
// on one thread, the held scratch is the only one. With it and the encoded
// response built in it, a StableToolBench search natively allocates 1.16
// objects instead of 6.33, and on wazero the collector's 85,000
// instructions a query are gone (callgrind).
func (e *Engine) putScratch(s *scratch) {
	if !e.heldScratch.CompareAndSwap(nil, s) {
		e.scratch.Put(s)
	}
}
