package engine_test

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/wire"
)

// TestFilterValuesOrderAndCaseDoNotMatter: the reference trims, sorts and
// de-duplicates product_ids, effects and exclude_canonical, and lower-cases
// effects, so any permutation of the same values, any casing of effects and
// surrounding spaces on any value must give the same bytes as the canonical
// request. Product ids and canonical paths are case-sensitive, so only their
// order and padding vary. Issue 17 item 13: ["read","WRITE"] sorted before
// lower-casing left the effect list unsorted and the filter empty.
func TestFilterValuesOrderAndCaseDoNotMatter(t *testing.T) {
	e := newDWSEngine(t)
	type filters struct {
		products, effects, excluded []string
	}
	bases := []struct {
		name     string
		query    string
		subquery []string
		filters  filters
		// filtered: the canonical answer is this exact_filtered reason
		// rather than a list of candidates.
		filtered string
	}{
		{name: "plain", query: "给群里发送消息", filters: filters{effects: []string{"read", "write"}}},
		{name: "plain products", query: "查询消息已读状态", filters: filters{products: []string{"chat", "todo", "calendar"}, effects: []string{"read", "destructive"}}},
		{name: "plain excludes", query: "send message", filters: filters{effects: []string{"write", "read", "destructive"}, excluded: []string{"chat.send_personal_message", "chat.query_msg_read_status", "chat.send_group_message"}}},
		{name: "exact guard", query: "chat.send_personal_message", filters: filters{effects: []string{"write", "read"}}},
		{name: "exact guard effect mismatch", query: "chat.send_personal_message", filters: filters{effects: []string{"read", "destructive"}, products: []string{"chat", "todo"}}, filtered: "effect_mismatch"},
		{name: "exact guard excluded", query: "chat.send_personal_message", filters: filters{effects: []string{"write", "read"}, excluded: []string{"chat.send_personal_message", "chat.send_group_message"}}, filtered: "excluded"},
		{name: "subqueries", subquery: []string{"发文件", "查已读"}, filters: filters{effects: []string{"read", "write"}, products: []string{"chat", "drive"}}},
	}
	rng := rand.New(rand.NewSource(17))
	for _, base := range bases {
		want := searchFiltered(t, e, base.query, base.subquery, base.filters.products, base.filters.effects, base.filters.excluded)
		if base.filtered != "" {
			require.Contains(t, want, `"reason":"`+base.filtered+`"`, base.name)
		} else {
			require.Contains(t, want, `"candidates":[{`, "%s: the canonical request must have candidates, else the property is vacuous", base.name)
		}
		for trial := 0; trial < 40; trial++ {
			products := shuffled(rng, base.filters.products, false)
			effects := shuffled(rng, base.filters.effects, true)
			excluded := shuffled(rng, base.filters.excluded, false)
			got := searchFiltered(t, e, base.query, base.subquery, products, effects, excluded)
			require.Equal(t, want, got, "%s: products %q effects %q exclude %q", base.name, products, effects, excluded)
		}
	}
}

// TestMixedCaseEffectsKeepEveryEffect pins the cases the issue found: each
// mixed-case list must give the lower-case list's answer.
func TestMixedCaseEffectsKeepEveryEffect(t *testing.T) {
	e := newDWSEngine(t)
	for _, c := range []struct{ query, lower, mixed []string }{
		{[]string{"给群里发送消息"}, []string{"read", "write"}, []string{"read", "WRITE"}},
		{[]string{"删除文档"}, []string{"read", "destructive"}, []string{"READ", " destructive "}},
		{[]string{"chat.send_personal_message"}, []string{"write", "read"}, []string{"WRITE", "read"}},
		{[]string{"发文件", "查已读"}, []string{"read", "write"}, []string{"Write", "read"}},
	} {
		var q string
		var sub []string
		if len(c.query) == 1 {
			q = c.query[0]
		} else {
			sub = c.query
		}
		want := searchFiltered(t, e, q, sub, nil, c.lower, nil)
		require.Contains(t, want, `"candidates":[{`)
		require.Equal(t, want, searchFiltered(t, e, q, sub, nil, c.mixed, nil), "effects %q", c.mixed)
	}
}

// shuffled returns a permutation of values, some duplicated, each maybe
// padded with spaces and, when recase, in a random casing.
func shuffled(rng *rand.Rand, values []string, recase bool) []string {
	if values == nil {
		return nil
	}
	out := append([]string(nil), values...)
	if rng.Intn(3) == 0 {
		out = append(out, out[rng.Intn(len(out))])
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	for i, v := range out {
		if recase {
			b := []byte(v)
			for k := range b {
				if rng.Intn(2) == 0 {
					b[k] = strings.ToUpper(string(b[k]))[0]
				}
			}
			v = string(b)
		}
		if rng.Intn(3) == 0 {
			v = " " + v + "\t"
		}
		out[i] = v
	}
	return out
}

func searchFiltered(t *testing.T, e *engine.Engine, query string, subqueries, products, effects, excluded []string) string {
	t.Helper()
	request, err := json.Marshal(wire.SearchRequest{
		Version: wire.SearchVersion, Query: query, Subqueries: subqueries,
		ProductIDs: products, Effects: effects, ExcludeCanonical: excluded,
	})
	require.NoError(t, err)
	out, werr := e.SearchJSON(request)
	if werr != nil {
		t.Fatalf("request %s: %v", request, werr)
	}
	return string(out)
}
