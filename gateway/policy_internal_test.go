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

// A view's filters: servers and effects hide tools whole, the rest are
// excluded by path; the caller's own filters narrow and never widen.
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
	require.Nil(t, v.filter(&sr, nil))
	require.Equal(t, []string{"a"}, sr.ProductIDs)
	require.Equal(t, []string{"read"}, sr.Effects)
	require.Equal(t, []string{"a.raised"}, sr.ExcludeCanonical, "annotated read, write by the guard: hidden by path")

	// The caller asks for write tools only: none visible, all excluded.
	sr = wire.SearchRequest{Effects: []string{"write"}, ExcludeCanonical: []string{"a.zzz"}}
	require.Nil(t, v.filter(&sr, nil))
	require.Equal(t, []string{"write"}, sr.Effects)
	require.Equal(t, []string{"a.write0", "a.zzz"}, sr.ExcludeCanonical)

	// Effects are compared as the engine reads them, case folded.
	sr = wire.SearchRequest{Effects: []string{"WRITE"}}
	require.Nil(t, v.filter(&sr, nil))
	require.Equal(t, []string{"write"}, sr.Effects)
	require.Equal(t, []string{"a.write0"}, sr.ExcludeCanonical)
	sr = wire.SearchRequest{Effects: []string{"Read"}}
	require.Nil(t, v.filter(&sr, nil))
	require.Equal(t, []string{"a.raised"}, sr.ExcludeCanonical)

	// A server the rule hides is a product the catalog lacks.
	sr = wire.SearchRequest{ProductIDs: []string{"b"}}
	require.Equal(t, "unknown_product", v.filter(&sr, []string{"b"}).Reason)

	// destructive on a server without allowDestructive is write at most.
	p = mustPolicy(t, `{"default": {"servers": {"*": {"effects": "destructive", "denyTools": ["read*"]}}}}`)
	v = computeView(gen, p.Default)
	require.Equal(t, map[string]bool{"a.raised": true, "a.write0": true, "b.drop": true}, v.visible)
	require.Nil(t, v.effects, "a destructive tool is visible: no effect filter")
	sr = wire.SearchRequest{}
	require.Nil(t, v.filter(&sr, nil))
	require.Equal(t, []string{"a.read0", "a.wipe", "b.read0"}, sr.ExcludeCanonical)

	// Nothing visible, and an exclusion list past a request's size.
	p = mustPolicy(t, `{"default": {"servers": {}}}`)
	sr = wire.SearchRequest{}
	require.Equal(t, "catalog_empty", computeView(gen, p.Default).filter(&sr, nil).Reason)
	many := map[string][][2]string{"a": {{"read0", "read"}}}
	for i := range 2000 {
		many["a"] = append(many["a"], [2]string{fmt.Sprintf("read_tool_with_a_long_name_%04d", i), "read"})
	}
	p = mustPolicy(t, `{"default": {"servers": {"a": {"tools": ["read0"]}}}}`)
	sr = wire.SearchRequest{}
	require.Equal(t, "policy_view_too_large", computeView(testGeneration(servers, many), p.Default).filter(&sr, nil).Reason)
}
