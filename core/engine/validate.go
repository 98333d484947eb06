package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

var knownEffects = map[string]bool{"read": true, "write": true, "destructive": true}

// validate normalizes one search request, checking in the reference's order:
// query_required → query_too_long → dangerous_query_unicode → invalid_limit →
// invalid_candidate_limit → dangerous_filter_unicode (product_ids, effects,
// exclude_canonical) → invalid_effect → the scope's checks (an extension) →
// unknown_product.
func (e *Engine) validate(r wire.SearchRequest) (query, *wire.Error) {
	q := query{text: strings.TrimSpace(r.Query), limit: r.Limit, candidateLimit: r.CandidateLimit}
	if q.text == "" {
		return query{}, wire.Validation("query_required", "a query is required")
	}
	if maxRunes, maxBytes := e.profile.QueryBudget(); utf8.RuneCountInString(q.text) > maxRunes || len(q.text) > maxBytes {
		return query{}, wire.Validation("query_too_long",
			fmt.Sprintf("the query is longer than %d characters or %d UTF-8 bytes", maxRunes, maxBytes))
	}
	if problem := e.unsafeText(q.text); problem != "" {
		return query{}, wire.Validation("dangerous_query_unicode", "the query contains "+problem)
	}
	return e.validateFilters(q, r)
}

// validateFilters checks and normalizes what a query request and a pattern
// request share: invalid_limit → invalid_candidate_limit →
// dangerous_filter_unicode → invalid_effect → the scope's checks →
// unknown_product (a product outside the scope is unknown to the request).
func (e *Engine) validateFilters(q query, r wire.SearchRequest) (query, *wire.Error) {
	q.limit, q.candidateLimit = r.Limit, r.CandidateLimit
	if q.limit < 0 || q.limit > wire.MaxLimit {
		return query{}, wire.Validation("invalid_limit", fmt.Sprintf("limit must be between 1 and %d (0 means %d)", wire.MaxLimit, wire.DefaultLimit))
	}
	if q.limit == 0 {
		q.limit = wire.DefaultLimit
	}
	if q.candidateLimit < 0 || q.candidateLimit > wire.MaxCandidateLimit {
		return query{}, wire.Validation("invalid_candidate_limit",
			fmt.Sprintf("candidate_limit must be between 1 and %d (0 means %d)", wire.MaxCandidateLimit, wire.DefaultCandidateLimit))
	}
	if q.candidateLimit == 0 {
		q.candidateLimit = wire.DefaultCandidateLimit
	}
	if q.candidateLimit < q.limit {
		q.candidateLimit = q.limit
	}
	var err *wire.Error
	if q.products, q.effects, q.excluded, err = e.normalizeFilters("", r.ProductIDs, r.Effects, r.ExcludeCanonical); err != nil {
		return query{}, err
	}
	if r.Scope != nil {
		if q.scope, err = e.validateScope(r.Scope); err != nil {
			return query{}, err
		}
	}
	for _, product := range q.products {
		i, ok := e.productByID[product]
		// A product without a tool in the scope (outside scope.product_ids,
		// or every tool of it hidden by scope.effects or
		// scope.exclude_canonical) is not in the catalog for this request,
		// and is refused in the same words: accepting it would tell the
		// client that a product it may not see exists.
		if !ok || q.scope != nil && !q.scope.productsIn[i] {
			return query{}, wire.Validation("unknown_product", fmt.Sprintf("product %q is not in this catalog", product))
		}
	}
	return q, nil
}

// normalizeFilters sorts and deduplicates one set of filters (the request's,
// or with prefix "scope." its scope's), refusing dangerous_filter_unicode
// then invalid_effect; effects come back lower-cased.
func (e *Engine) normalizeFilters(prefix string, productIDs, effectNames, excludeCanonical []string) (products, effects, excluded []string, err *wire.Error) {
	products = catalog.SortedUnique(productIDs)
	effects = catalog.SortedUnique(effectNames)
	excluded = catalog.SortedUnique(excludeCanonical)
	// Unsafe characters are refused before any vocabulary check, so that a
	// control or bidi character is never echoed back in another error.
	for _, filter := range []struct {
		name   string
		values []string
	}{{"product_ids", products}, {"effects", effects}, {"exclude_canonical", excluded}} {
		for _, value := range filter.values {
			if problem := e.unsafeText(value); problem != "" {
				return nil, nil, nil, wire.Validation("dangerous_filter_unicode", prefix+filter.name+" contains "+problem)
			}
		}
	}
	// The checks above and below walk the values in the reference's order
	// (sorted before lower-casing), so that the first offending value, and
	// with it the message, is the reference's. The filter itself needs the
	// lower-cased values sorted again: contains is a binary search, and
	// ["read","WRITE"] lower-cased is no longer sorted.
	lowered := make([]string, len(effects))
	for i, effect := range effects {
		lowered[i] = strings.ToLower(effect)
		if !knownEffects[lowered[i]] {
			return nil, nil, nil, wire.Validation("invalid_effect", fmt.Sprintf("%seffect %q is not one of read, write, destructive", prefix, lowered[i]))
		}
	}
	return products, catalog.SortedUnique(lowered), excluded, nil
}

// validateScope checks a request's scope as the hard filters are checked
// (dangerous_filter_unicode → invalid_effect → unknown_product, the
// messages naming "scope."), and marks the tools and products in it.
func (e *Engine) validateScope(r *wire.SearchScope) (*scope, *wire.Error) {
	products, effects, excluded, err := e.normalizeFilters("scope.", r.ProductIDs, r.Effects, r.ExcludeCanonical)
	if err != nil {
		return nil, err
	}
	for _, product := range products {
		if _, ok := e.productByID[product]; !ok {
			return nil, wire.Validation("unknown_product", fmt.Sprintf("scope.product_ids: product %q is not in this catalog", product))
		}
	}
	s := &scope{tools: make([]bool, len(e.tools)), eligible: make([]bool, len(e.tools)), productsIn: make([]bool, len(e.products))}
	var productIn []bool // by product position; nil: every product
	if len(products) > 0 {
		productIn = make([]bool, len(e.products))
		for _, product := range products {
			productIn[e.productByID[product]] = true
		}
	}
	for doc, tool := range e.tools {
		s.tools[doc] = (productIn == nil || productIn[e.docs[doc].product]) &&
			(len(effects) == 0 || contains(effects, tool.Safety.Effect))
	}
	// The tools are in canonical-path order: each exclusion is found by
	// a binary search, rather than every tool looked up in the exclusions.
	for _, path := range excluded {
		if doc, found := slices.BinarySearchFunc(e.tools, path, func(t *catalog.Tool, path string) int {
			return strings.Compare(t.Identity.CanonicalPath, path)
		}); found {
			s.tools[doc] = false
		}
	}
	for doc, in := range s.tools {
		s.eligible[doc] = in && e.docs[doc].executable
		if in {
			s.productsIn[e.docs[doc].product] = true
		}
	}
	if len(products) == 0 && len(effects) == 0 && len(excluded) == 0 {
		// The empty scope is the whole catalog, a product without tools
		// included, so that it answers as no scope does.
		for i := range s.productsIn {
			s.productsIn[i] = true
		}
	}
	return s, nil
}

// unsafeText names what the profile refuses in s, or "". dws-v1 refuses the
// reference's list exactly; a profile with StrictQueryUnicode also refuses
// every invisible character (text.IsInvisible), which a catalog name may
// not hold either.
func (e *Engine) unsafeText(s string) string {
	check := text.CheckUnsafe
	if e.profile.StrictQueryUnicode {
		check = text.CheckUnsafeStrict
	}
	switch check(s) {
	case text.ControlChar:
		return "a control character"
	case text.DangerousUnicode:
		return "an invisible or bidirectional-override character"
	}
	return ""
}

// searchDecomposed runs each subquery as its own search with the shared
// limit and filters and merges the results round-robin by rank, so that one
// action cannot take the whole budget of a multi-step workflow. If any
// subquery names a tool that the filters exclude, the whole answer is that
// exclusion (fail closed); a tool outside the scope is named by none (each
// subquery's exact guard ignores it).
func (e *Engine) searchDecomposed(r wire.SearchRequest, dst []byte) (*wire.SearchResponse, []byte, *wire.Error) {
	subqueries := catalog.StableUnique(r.Subqueries)
	if len(subqueries) == 0 {
		return nil, nil, wire.Validation("subquery_required", "subqueries must hold at least one non-empty query")
	}
	if len(subqueries) > wire.MaxSubqueries {
		return nil, nil, wire.Validation("too_many_subqueries", fmt.Sprintf("at most %d subqueries are allowed", wire.MaxSubqueries))
	}
	total := 0
	for _, s := range subqueries {
		total += len(s)
	}
	if total > wire.MaxSubqueriesBytes {
		return nil, nil, wire.Validation("subqueries_too_large", fmt.Sprintf("subqueries exceed %d UTF-8 bytes together", wire.MaxSubqueriesBytes))
	}
	// The shared settings are validated with the query, or with the first
	// subquery when there is no query.
	base := r
	base.Subqueries = nil
	if strings.TrimSpace(r.Query) == "" {
		base.Query = subqueries[0]
	}
	shared, err := e.validate(base)
	if err != nil {
		return nil, nil, err
	}
	responseQuery := strings.TrimSpace(r.Query)
	if responseQuery == "" {
		responseQuery = strings.Join(subqueries, " + ")
	}

	results := make([]*wire.SearchResponse, 0, len(subqueries))
	for _, s := range subqueries {
		item := base
		item.Query = s
		item.Limit = shared.limit
		// The scope was validated with the shared settings: each subquery
		// shares it rather than marking the tools again.
		item.Scope = nil
		q, err := e.validate(item)
		if err != nil {
			return nil, nil, err
		}
		q.scope = shared.scope
		result, _, err := e.search(q, nil)
		if err != nil {
			return nil, nil, err
		}
		if result.ExactFiltered != nil {
			response := e.newResponse(responseQuery, wire.StrategyDecomposedExactFiltered)
			response.Subqueries = subqueries
			response.Abstained = true
			response.ExactFiltered = result.ExactFiltered
			return e.finalize(response, dst)
		}
		results = append(results, result)
	}

	response := e.newResponse(responseQuery, wire.StrategyDecomposedRoundRobin)
	response.Subqueries = subqueries
	seen := map[string]bool{}
	for rank := 0; len(response.Candidates) < shared.limit; rank++ {
		added := false
		for _, result := range results {
			if rank >= len(result.Candidates) {
				continue
			}
			added = true
			candidate := result.Candidates[rank]
			if seen[candidate.CanonicalPath] {
				continue
			}
			seen[candidate.CanonicalPath] = true
			candidate.Rank = len(response.Candidates) + 1
			response.Candidates = append(response.Candidates, candidate)
			if len(response.Candidates) == shared.limit {
				break
			}
		}
		if !added {
			break
		}
	}
	return e.finalize(response, dst)
}
