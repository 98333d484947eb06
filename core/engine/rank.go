package engine

import (
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// This file serves analyses that run many searches over one engine
// (core/lint runs about three per tool): the tools in document order and
// the ranking of a query as document numbers, without building references
// or encoding a response. Rank follows search's steps 1–5 (search.go) and
// leaves out step 6, the byte budget, which only trims what an agent is
// shown; TestRankMatchesSearch checks that both agree.

// Tools lists the tools in document order (canonical path ascending): a
// tool's position is its document number in Rank's answers and in Index.
// Callers must not modify them.
func (e *Engine) Tools() []*catalog.Tool { return e.tools }

// Executable reports whether a search without filters may return document
// doc (its interface lets an agent run it).
func (e *Engine) Executable(doc int) bool { return e.docs[doc].executable }

// ResolveTool finds the document a name addresses exactly, as a query
// that is that name would (canonical path, path, CLI path, alias, or a bare
// name where the profile resolves them).
func (e *Engine) ResolveTool(name string) (int, bool) {
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, false
	}
	return e.resolveIdentity(name, text.NFKC(name))
}

// Rank returns the documents a tool-search.v1 request {"query": queryText,
// "limit": limit} ranks, best first: the same tools in the same order as
// Search's candidates (before the response's byte budget). exact reports
// that the exact-name guard answered. A bad query is a *wire.Error, as
// Search's.
func (e *Engine) Rank(queryText string, limit int) (docs []int, exact bool, err error) {
	q, werr := e.validate(wire.SearchRequest{Query: queryText, Limit: limit})
	if werr != nil {
		return nil, false, werr
	}
	work := e.getScratch()
	defer e.putScratch(work)
	folded := text.NFKC(q.text)
	// 1. Exact guard.
	if doc, ok := e.resolveIdentity(q.text, folded); ok {
		if e.ineligibleReason(doc, q) != "" {
			return nil, true, nil
		}
		return []int{doc}, true, nil
	}
	// 2–4. Filters (none: the executable tools), retrieval with demotion,
	// named-product lift.
	eligible := e.eligibility(q)
	lowered := ""
	if e.demotes {
		lowered = lower(strings.TrimSpace(q.text))
	}
	hits, scored := e.retrieve(lowered, folded, eligible, q.candidateLimit, work)
	if named := e.namedProduct(q.text, nil); named >= 0 {
		hits = e.liftNamedProduct(lowered, hits, scored, named, &work.index)
	}
	// 5. Cut.
	if len(hits) > q.limit {
		hits = hits[:q.limit]
	}
	docs = make([]int, len(hits))
	for i, hit := range hits {
		docs[i] = int(hit.Doc)
	}
	return docs, false, nil
}
