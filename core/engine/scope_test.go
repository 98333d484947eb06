package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
)

// scopeProducts is a small catalog for the scope's properties: two tools
// share the bare name send (so that hiding one makes the other's name
// unique), every effect occurs, and the product names are words the
// queries use (the named-product lift of dws-v1 and generic-v1).
func scopeProducts() []catalog.Product {
	return []catalog.Product{
		{ID: "chat", Name: "Chat", Tools: []catalog.Tool{
			tool("chat", "delete", "message delete", "delete a chat message", "destructive"),
			tool("chat", "read_status", "message read-status", "query the read status of a chat message", "read"),
			tool("chat", "send", "message send", "send a chat message to a group", "write"),
		}},
		{ID: "doc", Name: "Docs", Tools: []catalog.Tool{
			tool("doc", "read", "read", "read a document", "read"),
			tool("doc", "remove", "remove", "remove a document for good", "destructive"),
		}},
		{ID: "mail", Name: "Mail", Tools: []catalog.Tool{
			tool("mail", "list", "inbox list", "list the mail in the inbox", "read"),
			tool("mail", "send", "message send", "send an email message", "write"),
		}},
		{ID: "vault", Name: "Vault", Tools: []catalog.Tool{
			tool("vault", "reveal", "secret reveal", "reveal a stored secret", "read"),
			tool("vault", "rotate", "secret rotate", "rotate a secret key and send it to the owner", "write"),
		}},
	}
}

var scopeProfiles = []*profile.Profile{profile.DWSV1, profile.GenericV1, profile.GenericV3}

// inScope is the scope's definition, written independently of the engine.
func inScope(s *wire.SearchScope, t *catalog.Tool) bool {
	return !slices.Contains(s.ExcludeCanonical, t.Identity.CanonicalPath) &&
		(len(s.ProductIDs) == 0 || slices.Contains(s.ProductIDs, t.Identity.ProductID)) &&
		(len(s.Effects) == 0 || slices.Contains(s.Effects, t.Safety.Effect))
}

// withoutOutOfScope is the catalog with only the tools of s (and only the
// products that keep one).
func withoutOutOfScope(products []catalog.Product, s *wire.SearchScope) []catalog.Product {
	var out []catalog.Product
	for _, p := range products {
		var kept []catalog.Tool
		for i := range p.Tools {
			if inScope(s, &p.Tools[i]) {
				kept = append(kept, p.Tools[i])
			}
		}
		if len(kept) > 0 {
			p.Tools = kept
			out = append(out, p)
		}
	}
	return out
}

// fullWidth writes the printable ASCII of s in full-width forms, which NFKC
// folds back.
func fullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if '!' <= r && r <= '~' {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scopeRequests are the requests each scope is tried with: every way to
// name every tool exactly (canonical path, bare name, CLI path with and
// without the program name, full-width), ordinary queries, subqueries that
// name tools, and patterns.
func scopeRequests(products []catalog.Product) []wire.SearchRequest {
	var requests []wire.SearchRequest
	query := func(q string) { requests = append(requests, wire.SearchRequest{Query: q, Limit: wire.MaxLimit}) }
	var names []string
	for _, p := range products {
		for _, t := range p.Tools {
			id := t.Identity
			for _, q := range []string{id.CanonicalPath, id.Name, id.CLIPath, "dws " + id.CLIPath, fullWidth(id.CanonicalPath), fullWidth(id.Name), strings.ReplaceAll(id.CLIPath, " ", ".")} {
				query(q)
			}
			names = append(names, id.CanonicalPath, id.Name)
		}
	}
	for _, q := range []string{"send a message", "send", "delete the chat message", "read a document", "reveal the secret in the Vault",
		"Mail send", "rotate key", "inbox", "Chat read status", "Vault Mail send"} {
		query(q)
	}
	for i := 0; i+1 < len(names); i += 3 {
		requests = append(requests, wire.SearchRequest{Subqueries: []string{names[i], "send a message", names[i+1]}, Limit: wire.MaxLimit})
	}
	for _, p := range []string{"send", "secret|document", "^re", "message"} {
		requests = append(requests, wire.SearchRequest{Pattern: p, Limit: wire.MaxLimit})
	}
	return requests
}

func randomScope(rng *rand.Rand, products []catalog.Product) *wire.SearchScope {
	s := &wire.SearchScope{}
	for _, p := range products {
		if rng.Intn(3) == 0 {
			s.ProductIDs = append(s.ProductIDs, p.ID)
		}
		for _, t := range p.Tools {
			if rng.Intn(4) == 0 {
				s.ExcludeCanonical = append(s.ExcludeCanonical, t.Identity.CanonicalPath)
			}
		}
	}
	for _, effect := range []string{"read", "write", "destructive"} {
		if rng.Intn(3) == 0 {
			s.Effects = append(s.Effects, effect)
		}
	}
	return s
}

// scopeAnswer searches, failing the test on an error.
func scopeAnswer(t *testing.T, e *engine.Engine, r wire.SearchRequest) (string, *wire.SearchResponse) {
	t.Helper()
	r.Version = wire.SearchVersion
	request, err := json.Marshal(r)
	require.NoError(t, err)
	out, werr := e.SearchJSON(request)
	require.Nil(t, werr, "%s", request)
	var parsed wire.SearchResponse
	response, err := e.Search(r)
	require.NoError(t, err, "%s", request)
	parsed = *response
	return string(out), &parsed
}

// echoStripped is an answer without the request it echoes (query,
// subqueries, pattern): what is left is what the engine told.
func echoStripped(t *testing.T, answer string) string {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(answer), &fields))
	delete(fields, "query")
	delete(fields, "subqueries")
	delete(fields, "pattern")
	out, err := json.Marshal(fields)
	require.NoError(t, err)
	return string(out)
}

func candidatePaths(r *wire.SearchResponse) []string {
	out := []string{}
	for _, c := range r.Candidates {
		out = append(out, c.CanonicalPath)
	}
	return out
}

// TestScopeHidesToolsAsIfAbsent is the scope's property, over random scopes
// of a small catalog and three profiles: for every request,
//   - no tool outside the scope appears anywhere in what the engine says
//     (its canonical or CLI path, in any field);
//   - the answer is the one a catalog built without those tools gives:
//     the same strategy, the same exact answer, the same pattern matches in
//     the same order, and the same set of lexical candidates (the ranking
//     itself may differ, since BM25's statistics do);
//   - where the query names no hidden tool exactly, the answer is byte for
//     byte the ordinary search with the scope's tests as hard filters,
//     unless the query names a product (the lift then sees only the scope's
//     products, while the filters leave it every product);
//   - an empty scope is no scope, byte for byte.
func TestScopeHidesToolsAsIfAbsent(t *testing.T) {
	products := scopeProducts()
	requests := scopeRequests(products)
	rng := rand.New(rand.NewSource(5))
	checked := 0 // answers where the filters told of a tool the scope hides
	for _, p := range scopeProfiles {
		full, err := engine.New(&catalog.Catalog{Products: products}, p)
		require.NoError(t, err)
		for _, r := range requests {
			plain, _ := scopeAnswer(t, full, r)
			r.Scope = &wire.SearchScope{}
			empty, _ := scopeAnswer(t, full, r)
			require.Equal(t, plain, empty, "%s: an empty scope changed the answer to %+v", p.Name, r)
		}
		for trial := 0; trial < 40; trial++ {
			scope := randomScope(rng, products)
			reduced := withoutOutOfScope(products, scope)
			var hidden []catalog.Tool
			for _, prod := range products {
				for _, tl := range prod.Tools {
					if !inScope(scope, &tl) {
						hidden = append(hidden, tl)
					}
				}
			}
			var without *engine.Engine
			if len(reduced) > 0 {
				without, err = engine.New(&catalog.Catalog{Products: reduced}, p)
				require.NoError(t, err)
			}
			for _, r := range requests {
				what := fmt.Sprintf("%s, scope %+v, request %+v", p.Name, *scope, r)
				filtered := r
				filtered.ProductIDs, filtered.Effects, filtered.ExcludeCanonical = scope.ProductIDs, scope.Effects, scope.ExcludeCanonical
				ordinary, ordinaryResponse := scopeAnswer(t, full, filtered)
				r.Scope = scope
				answer, response := scopeAnswer(t, full, r)

				told := echoStripped(t, answer)
				for _, h := range hidden {
					require.NotContains(t, told, `"`+h.Identity.CanonicalPath+`"`, what)
					require.NotContains(t, told, `"`+h.Identity.PrimaryCLIPath+`"`, what)
				}
				require.Nil(t, response.ExactFiltered, "%s: no client filter, so nothing in the scope is filtered", what)

				if without != nil {
					_, want := scopeAnswer(t, without, wire.SearchRequest{Query: r.Query, Subqueries: r.Subqueries, Pattern: r.Pattern, Limit: r.Limit})
					require.Equal(t, want.Strategy, response.Strategy, what)
					require.Equal(t, want.Abstained, response.Abstained, what)
					got, wanted := candidatePaths(response), candidatePaths(want)
					if response.Strategy != wire.StrategyPattern && response.Strategy != wire.StrategyExactGuard {
						slices.Sort(got)
						slices.Sort(wanted)
					}
					require.Equal(t, wanted, got, what)
				} else {
					require.Empty(t, response.Candidates, what)
				}

				namesProduct := false
				for _, prod := range products {
					namesProduct = namesProduct || strings.Contains(strings.ToLower(r.Query+" "+strings.Join(r.Subqueries, " ")), strings.ToLower(prod.Name))
				}
				// A text the two catalogs resolve differently names a hidden
				// tool, or is a bare name only the scope makes unique.
				namesDiffer := false
				for _, text := range append([]string{r.Query}, r.Subqueries...) {
					namesDiffer = namesDiffer || resolvedPath(full, text) != resolvedPath(without, text)
				}
				if !namesDiffer && !namesProduct {
					require.Equal(t, ordinary, answer, what)
				} else if ordinaryResponse.ExactFiltered != nil {
					checked++
				}
			}
		}
	}
	require.Greater(t, checked, 100, "the property must meet requests that the filters answer with exact_filtered")
}

// resolvedPath is the canonical path text names exactly in e, or "".
func resolvedPath(e *engine.Engine, text string) string {
	if e == nil {
		return ""
	}
	if doc, ok := e.ResolveTool(text); ok {
		return e.Tools()[doc].Identity.CanonicalPath
	}
	return ""
}

// TestScopeKeepsTheClientsFilters: inside the scope the hard filters are
// the client's own, and a tool of the scope they filter out is still
// reported as filtered; one outside the scope is not.
func TestScopeKeepsTheClientsFilters(t *testing.T) {
	e, err := engine.New(&catalog.Catalog{Products: scopeProducts()}, profile.GenericV1)
	require.NoError(t, err)
	scope := &wire.SearchScope{ProductIDs: []string{"chat", "mail"}, ExcludeCanonical: []string{"chat.delete"}}

	r := search(t, e, wire.SearchRequest{Query: "chat.send", Effects: []string{"read"}, Scope: scope})
	require.Equal(t, wire.StrategyExactFiltered, r.Strategy)
	require.Equal(t, &wire.ExactFiltered{CanonicalPath: "chat.send", Reason: "effect_mismatch"}, r.ExactFiltered)

	r = search(t, e, wire.SearchRequest{Query: "chat.send", ExcludeCanonical: []string{"chat.send"}, Scope: scope})
	require.Equal(t, &wire.ExactFiltered{CanonicalPath: "chat.send", Reason: "excluded"}, r.ExactFiltered)

	// Without the scope the same request tells that chat.delete exists.
	r = search(t, e, wire.SearchRequest{Query: "chat.delete", ExcludeCanonical: []string{"chat.delete"}})
	require.Equal(t, &wire.ExactFiltered{CanonicalPath: "chat.delete", Reason: "excluded"}, r.ExactFiltered)
	// With it, chat.delete is an ordinary query over the scope.
	r = search(t, e, wire.SearchRequest{Query: "chat.delete", Scope: scope})
	require.Nil(t, r.ExactFiltered)
	require.NotContains(t, paths(r), "chat.delete")
	require.NotEqual(t, wire.StrategyExactFiltered, r.Strategy)

	// send is the bare name of chat.send and mail.send, so it names no
	// tool; in a scope holding one of them it names that one.
	require.NotEqual(t, wire.StrategyExactGuard, search(t, e, wire.SearchRequest{Query: "send"}).Strategy)
	r = search(t, e, wire.SearchRequest{Query: "send", Scope: &wire.SearchScope{ProductIDs: []string{"mail", "doc"}}})
	require.Equal(t, wire.StrategyExactGuard, r.Strategy)
	require.Equal(t, []string{"mail.send"}, paths(r))

	// A subquery naming a hidden tool no longer empties the whole answer.
	r = search(t, e, wire.SearchRequest{Subqueries: []string{"chat.delete", "mail.list"}, Scope: scope})
	require.Equal(t, wire.StrategyDecomposedRoundRobin, r.Strategy)
	require.Contains(t, paths(r), "mail.list")
	require.NotContains(t, paths(r), "chat.delete")
	// One naming a visible tool the client filters out still does.
	r = search(t, e, wire.SearchRequest{Subqueries: []string{"chat.send", "mail.list"}, Effects: []string{"read"}, Scope: scope})
	require.Equal(t, wire.StrategyDecomposedExactFiltered, r.Strategy)
	require.Equal(t, "chat.send", r.ExactFiltered.CanonicalPath)
}

// TestScopeNamedProductLift: a product outside the scope cannot be named,
// so it neither is lifted nor, by tying with a visible one, cancels that
// one's lift.
func TestScopeNamedProductLift(t *testing.T) {
	products := []catalog.Product{
		{ID: "sheet", Name: "钉钉表格管理", Tools: []catalog.Tool{tool("sheet", "append", "append", "在表格末尾追加数据行", "write")}},
		{ID: "aitable", Name: "AI 表格操作", Tools: []catalog.Tool{tool("aitable", "append", "append", "向数据表追加记录", "write")}},
		{ID: "doc", Name: "文档", Tools: []catalog.Tool{tool("doc", "append", "append", "在表格追加内容 表格 数据行 追加", "write")}},
	}
	e, err := engine.New(&catalog.Catalog{Products: products}, profile.DWSV1)
	require.NoError(t, err)
	// The query names sheet and aitable alike (cores of four runes), a
	// tie that names neither: filtered to aitable and doc, doc.append
	// matches the words better and comes first.
	const q = "钉钉表格 AI表格 在表格追加内容"
	require.Equal(t, []string{"doc.append", "aitable.append"}, paths(search(t, e, wire.SearchRequest{Query: q, ProductIDs: []string{"aitable", "doc"}})))
	// In a scope without sheet, the query names aitable alone, which is
	// lifted.
	scope := &wire.SearchScope{ProductIDs: []string{"aitable", "doc"}}
	scoped := search(t, e, wire.SearchRequest{Query: q, Scope: scope})
	require.Equal(t, []string{"aitable.append", "doc.append"}, paths(scoped), "sheet is out of the scope: only aitable is named")
	without, err := engine.New(&catalog.Catalog{Products: products[1:]}, profile.DWSV1)
	require.NoError(t, err)
	require.Equal(t, paths(search(t, without, wire.SearchRequest{Query: q})), paths(scoped))
}

// TestScopeValidation: the scope's values are checked as the filters' are,
// and a product outside it is unknown to the request.
func TestScopeValidation(t *testing.T) {
	e, err := engine.New(&catalog.Catalog{Products: scopeProducts()}, profile.GenericV1)
	require.NoError(t, err)
	for _, c := range []struct {
		request wire.SearchRequest
		reason  string
		message string
	}{
		{wire.SearchRequest{Query: "q", Scope: &wire.SearchScope{Effects: []string{"read\u202e"}}}, "dangerous_filter_unicode", "scope.effects"},
		{wire.SearchRequest{Query: "q", Scope: &wire.SearchScope{ExcludeCanonical: []string{"a\x00"}}}, "dangerous_filter_unicode", "scope.exclude_canonical"},
		{wire.SearchRequest{Query: "q", Scope: &wire.SearchScope{Effects: []string{"READ", "run"}}}, "invalid_effect", "scope.effect \"run\""},
		{wire.SearchRequest{Query: "q", Scope: &wire.SearchScope{ProductIDs: []string{"nope"}}}, "unknown_product", "scope.product_ids"},
		{wire.SearchRequest{Query: "q", ProductIDs: []string{"vault"}, Scope: &wire.SearchScope{ProductIDs: []string{"chat"}}}, "unknown_product", `product "vault" is not in this catalog`},
		{wire.SearchRequest{Pattern: "x", ProductIDs: []string{"vault"}, Scope: &wire.SearchScope{ProductIDs: []string{"chat"}}}, "unknown_product", `product "vault"`},
		{wire.SearchRequest{Subqueries: []string{"a"}, ProductIDs: []string{"vault"}, Scope: &wire.SearchScope{ProductIDs: []string{"chat"}}}, "unknown_product", `product "vault"`},
		// The client's own errors come first, as without a scope.
		{wire.SearchRequest{Query: "q", Effects: []string{"run"}, Scope: &wire.SearchScope{ProductIDs: []string{"nope"}}}, "invalid_effect", `effect "run"`},
	} {
		c.request.Version = wire.SearchVersion
		_, err := e.Search(c.request)
		werr := typedError(t, err)
		require.Equal(t, c.reason, werr.Reason, "%+v", c.request)
		require.Contains(t, werr.Message, c.message, "%+v", c.request)
	}
	// A product of the scope is known; filtering on it is the client's
	// business.
	r := search(t, e, wire.SearchRequest{Query: "send", ProductIDs: []string{"chat"}, Scope: &wire.SearchScope{ProductIDs: []string{"chat", "mail"}}})
	require.Equal(t, []string{"chat.send"}, paths(r))
}

// FuzzScopeHidesTools: whatever the query and the scope (chosen by the bits
// of mask over the small catalog's products, effects and tools), no tool
// outside the scope appears in what the engine says.
func FuzzScopeHidesTools(f *testing.F) {
	products := scopeProducts()
	for _, r := range scopeRequests(products) {
		if r.Query != "" {
			f.Add(r.Query, uint32(0b101), false)
			f.Add(r.Query, uint32(0x5a5a5), true)
		}
	}
	var tools []catalog.Tool
	for _, p := range products {
		tools = append(tools, p.Tools...)
	}
	engines := make([]*engine.Engine, len(scopeProfiles))
	for i, p := range scopeProfiles {
		e, err := engine.New(&catalog.Catalog{Products: products}, p)
		require.NoError(f, err)
		engines[i] = e
	}
	effects := []string{"read", "write", "destructive"}
	f.Fuzz(func(t *testing.T, query string, mask uint32, subquery bool) {
		scope := &wire.SearchScope{}
		bit := 0
		next := func() bool { bit++; return mask&(1<<(bit-1)) != 0 }
		for _, p := range products {
			if next() {
				scope.ProductIDs = append(scope.ProductIDs, p.ID)
			}
		}
		for _, effect := range effects {
			if next() {
				scope.Effects = append(scope.Effects, effect)
			}
		}
		for _, tl := range tools {
			if next() {
				scope.ExcludeCanonical = append(scope.ExcludeCanonical, tl.Identity.CanonicalPath)
			}
		}
		r := wire.SearchRequest{Version: wire.SearchVersion, Query: query, Limit: wire.MaxLimit, Scope: scope}
		if subquery {
			r.Subqueries = []string{query, "send a message"}
		}
		for _, e := range engines {
			request, err := json.Marshal(r)
			require.NoError(t, err)
			out, werr := e.SearchJSON(request)
			if werr != nil {
				require.NotEmpty(t, typedError(t, werr).Reason)
				continue
			}
			told := echoStripped(t, string(out))
			for i := range tools {
				if !inScope(scope, &tools[i]) {
					require.NotContains(t, told, `"`+tools[i].Identity.CanonicalPath+`"`, "%s", request)
				}
			}
		}
	})
}

// TestScopeHiddenProductIsUnknown: a product every tool of which the scope
// hides (by exclude_canonical or by effects) does not exist for the
// request, so naming it in product_ids gets the very error bytes an
// unknown product gets, and those of a catalog built without it; accepting
// it would tell the client that the hidden product exists.
func TestScopeHiddenProductIsUnknown(t *testing.T) {
	products := scopeProducts()
	e, err := engine.New(&catalog.Catalog{Products: products}, profile.GenericV1)
	require.NoError(t, err)
	without, err := engine.New(&catalog.Catalog{Products: products[:3]}, profile.GenericV1)
	require.NoError(t, err)
	require.Equal(t, "vault", products[3].ID)
	errorBytes := func(e *engine.Engine, r wire.SearchRequest) string {
		t.Helper()
		r.Version = wire.SearchVersion
		request, err := json.Marshal(r)
		require.NoError(t, err)
		_, err = e.SearchJSON(request)
		return string(typedError(t, err).AppendJSON(nil))
	}
	for _, scope := range []*wire.SearchScope{
		{ExcludeCanonical: []string{"vault.reveal", "vault.rotate"}},
		{Effects: []string{"destructive"}},
		{ProductIDs: []string{"chat", "vault"}, ExcludeCanonical: []string{"vault.reveal", "vault.rotate"}},
	} {
		for _, r := range []wire.SearchRequest{{Query: "rotate a secret"}, {Pattern: "secret"}, {Subqueries: []string{"secret", "send"}}} {
			r.Scope = scope
			r.ProductIDs = []string{"nosuch"}
			unknown := errorBytes(e, r)
			require.Contains(t, unknown, `"unknown_product"`)
			r.ProductIDs = []string{"vault"}
			hidden := errorBytes(e, r)
			require.Equal(t, strings.ReplaceAll(unknown, "nosuch", "vault"), hidden, "scope %+v, request %+v", *scope, r)
			require.Equal(t, errorBytes(without, wire.SearchRequest{Query: r.Query, Pattern: r.Pattern, Subqueries: r.Subqueries, ProductIDs: r.ProductIDs}), hidden)
		}
	}
	// A product with one tool left in the scope is known.
	r := search(t, e, wire.SearchRequest{Query: "secret", ProductIDs: []string{"vault"}, Scope: &wire.SearchScope{ExcludeCanonical: []string{"vault.rotate"}}})
	require.Equal(t, []string{"vault.reveal"}, paths(r))
}
