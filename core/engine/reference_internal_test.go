package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestCachedReferencesEncodeAsFieldByField: for every DWS tool, the reference
// with its cached Head encodes to the same bytes as the same reference
// encoded field by field, and a second use of the cache gives the first
// one's bytes.
func TestCachedReferencesEncodeAsFieldByField(t *testing.T) {
	cat, err := fixtures.DWS()
	require.NoError(t, err)
	e, err := New(cat, profile.DWSV1)
	require.NoError(t, err)
	encode := func(ref wire.ToolReference) string {
		r := wire.SearchResponse{Candidates: []wire.ToolReference{ref}}
		out, err := r.AppendJSON(nil)
		require.NoError(t, err)
		return string(out)
	}
	for doc := range e.tools {
		first := e.reference(doc, []string{"name"}, []string{"bm25"})
		require.NotEqual(t, wire.ReferenceHead{}, first.Head)
		plain := first
		plain.Head = wire.ReferenceHead{}
		want := encode(plain)
		require.Equal(t, want, encode(first), e.tools[doc].Identity.CanonicalPath)
		again := e.reference(doc, []string{"name"}, []string{"bm25"})
		require.Equal(t, want, encode(again))
	}
}

// TestSearchHandsOutNothingCached: the struct API's references carry no
// Head, and editing one (its truncated_fields too: every title here is too
// long) changes no later answer.
func TestSearchHandsOutNothingCached(t *testing.T) {
	shared, err := fixtures.DWS()
	require.NoError(t, err)
	cat := *shared // a copy down to the tools: the shared catalog stays as it is
	cat.Products = slices.Clone(shared.Products)
	for p := range cat.Products {
		cat.Products[p].Tools = slices.Clone(cat.Products[p].Tools)
		for i := range cat.Products[p].Tools {
			cat.Products[p].Tools[i].Title += strings.Repeat("很长的标题", 100)
		}
	}
	e, err := New(&cat, profile.DWSV1)
	require.NoError(t, err)
	request := []byte(`{"version":"tool-search.v1","query":"查询日程","limit":20}`)
	want, werr := e.SearchJSON(request)
	require.Nil(t, werr)
	response, werr := e.Search(wire.SearchRequest{Version: "tool-search.v1", Query: "查询日程", Limit: 20})
	require.Nil(t, werr)
	require.NotEmpty(t, response.Candidates)
	for i := range response.Candidates {
		c := &response.Candidates[i]
		require.Equal(t, wire.ReferenceHead{}, c.Head)
		require.Equal(t, []string{"title"}, c.TruncatedFields)
		c.Title = "edited"
		for j := range c.TruncatedFields {
			c.TruncatedFields[j] = "edited"
		}
	}
	got, werr := e.SearchJSON(request)
	require.Nil(t, werr)
	require.Equal(t, string(want), string(got))
}
