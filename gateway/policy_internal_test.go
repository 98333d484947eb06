package gateway

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// testGeneration is a generation of routes only: for each server, tools
// named by their effect ("read0", "write0", …) with the guard effect given.
func testGeneration(servers map[string]*downstream, tools map[string][][2]string) *generation {
	gen := &generation{routes: map[string]route{}}
	for server, list := range tools {
		for _, t := range list {
			name, guard := t[0], t[1]
			catalogEffect := guard
			if name[:4] == "rais" { // "raised…": annotated read, the guard says write
				catalogEffect = "read"
			}
			tool := &hostapi.Tool{CanonicalPath: server + "." + name, ProductID: server, Effect: catalogEffect}
			gen.routes[server+"."+name] = route{server: servers[server], name: name, tool: tool, effect: guard}
		}
	}
	return gen
}

func mustPolicy(t *testing.T, policy string) *Policy {
	t.Helper()
	p, err := parsePolicy([]byte(`{"policy": `+policy+`}`), map[string]bool{"a": true, "b": true})
	require.NoError(t, err)
	return p
}

// A view's scope: servers and effects hide tools whole, the rest are
// excluded by path; the caller's own filters are left to narrow inside it.
func TestViewFilters(t *testing.T) {
	servers := map[string]*downstream{"a": {cfg: ServerConfig{Name: "a"}}, "b": {cfg: ServerConfig{Name: "b", AllowDestructive: true}}}
	gen := testGeneration(servers, map[string][][2]string{
		"a": {{"read0", "read"}, {"raised", "write"}, {"write0", "write"}, {"wipe", "destructive"}},
		"b": {{"read0", "read"}, {"drop", "destructive"}},
	})
	p := mustPolicy(t, `{"default": {"servers": {"a": {"effects": "read"}}}}`)
	v := computeView(gen, p.Default)
	require.Equal(t, []string{"a"}, v.products)
	require.Equal(t, []string{"read"}, v.effects)
	sr := wire.SearchRequest{}
	require.Nil(t, v.filter(&sr))
	require.Equal(t, &wire.SearchScope{ProductIDs: []string{"a"}, Effects: []string{"read"}, ExcludeCanonical: []string{"a.raised"}}, sr.Scope,
		"annotated read, write by the guard: hidden by path")
	require.Empty(t, sr.ProductIDs, "the scope, not the filters, holds the policy")
	require.Empty(t, sr.Effects)
	require.Empty(t, sr.ExcludeCanonical)

	// The caller's filters stay as they are (the engine applies them inside
	// the scope: write tools, none visible, give an empty answer).
	sr = wire.SearchRequest{Effects: []string{"WRITE"}, ExcludeCanonical: []string{"a.zzz"}}
	require.Nil(t, v.filter(&sr))
	require.Equal(t, []string{"WRITE"}, sr.Effects)
	require.Equal(t, []string{"a.zzz"}, sr.ExcludeCanonical)
	require.Same(t, v.scope, sr.Scope, "requests share the view's scope")

	// A server the rule hides is outside the scope, so the engine answers it
	// as a product the catalog lacks (unknown_product: TestPolicyFiltersSearchInspectAndCall).
	sr = wire.SearchRequest{ProductIDs: []string{"b"}}
	require.Nil(t, v.filter(&sr))
	require.NotContains(t, sr.Scope.ProductIDs, "b")

	// destructive on a server without allowDestructive is write at most.
	p = mustPolicy(t, `{"default": {"servers": {"*": {"effects": "destructive", "denyTools": ["read*"]}}}}`)
	v = computeView(gen, p.Default)
	require.Equal(t, map[string]bool{"a.raised": true, "a.write0": true, "b.drop": true}, v.visible)
	require.Nil(t, v.effects, "a destructive tool is visible: no effect filter")
	sr = wire.SearchRequest{}
	require.Nil(t, v.filter(&sr))
	require.Equal(t, &wire.SearchScope{ProductIDs: []string{"a", "b"}, ExcludeCanonical: []string{"a.read0", "a.wipe", "b.read0"}}, sr.Scope)

	// Nothing visible, and an exclusion list past a request's size.
	p = mustPolicy(t, `{"default": {"servers": {}}}`)
	sr = wire.SearchRequest{}
	require.Equal(t, "catalog_empty", computeView(gen, p.Default).filter(&sr).Reason)
	many := map[string][][2]string{"a": {{"read0", "read"}}}
	for i := range 2000 {
		many["a"] = append(many["a"], [2]string{fmt.Sprintf("read_tool_with_a_long_name_%04d", i), "read"})
	}
	p = mustPolicy(t, `{"default": {"servers": {"a": {"tools": ["read0"]}}}}`)
	sr = wire.SearchRequest{}
	require.Equal(t, "policy_view_too_large", computeView(testGeneration(servers, many), p.Default).filter(&sr).Reason)
}
