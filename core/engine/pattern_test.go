package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
)

// patternFixture: four generic tools whose name, description, parameter
// name or parameter description mention "slack".
func patternFixture(t *testing.T) *engine.Engine {
	t.Helper()
	generic := func(p, name, description, effect string, params ...catalog.Parameter) catalog.Tool {
		tl := tool(p, name, name, description, effect)
		tl.Description = description
		tl.Parameters = params
		return tl
	}
	cat := &catalog.Catalog{
		Version: catalog.VersionRef{SourceHash: "source-test", SurfaceHash: "surface-test"},
		Products: []catalog.Product{
			{ID: "chat", Name: "chat", Tools: []catalog.Tool{
				generic("chat", "post_message", "Post a message to a Slack channel.", "write"),
				generic("chat", "read_history", "Read a channel's messages.", "read", catalog.Parameter{Name: "slack_channel", Description: "The channel ID"}),
			}},
			{ID: "ops", Name: "ops", Tools: []catalog.Tool{
				generic("ops", "notify", "Send an alert.", "write", catalog.Parameter{Name: "target", Description: "Where to send it: email or SLACK"}),
				generic("ops", "slack_status", "Set your status.", "write"),
				generic("ops", "delete_channel", "Delete a channel for good.", "destructive"),
			}},
		},
	}
	e, err := engine.New(cat, profile.GenericV2)
	require.NoError(t, err)
	return e
}

// Matches rank by field (name, description, parameter names, parameter
// descriptions), then canonical path; case never matters.
func TestPatternOrderAndFields(t *testing.T) {
	e := patternFixture(t)
	r := search(t, e, wire.SearchRequest{Pattern: "slack"})
	require.Equal(t, []string{"ops.slack_status", "chat.post_message", "chat.read_history", "ops.notify"}, paths(r))
	require.Equal(t, wire.StrategyPattern, r.Strategy)
	require.Equal(t, "", r.Query)
	require.Equal(t, "slack", r.Pattern)
	require.False(t, r.WeakMatch)
	require.Equal(t, []string{"name"}, r.Candidates[0].MatchedFields)
	require.Equal(t, []string{"parameter_descriptions"}, r.Candidates[3].MatchedFields)
	for i, c := range r.Candidates {
		require.Equal(t, i+1, c.Rank)
	}
	require.Equal(t, paths(r), paths(search(t, e, wire.SearchRequest{Pattern: "SLACK"})))

	// Anchors and alternation are RE2's; filters and the limit apply.
	require.Equal(t, []string{"chat.post_message", "ops.delete_channel"}, paths(search(t, e, wire.SearchRequest{Pattern: "^(post|delete)_"})))
	require.Equal(t, []string{"ops.delete_channel"}, paths(search(t, e, wire.SearchRequest{Pattern: "channel", Effects: []string{"destructive"}})))
	require.Equal(t, []string{"ops.slack_status", "ops.notify"}, paths(search(t, e, wire.SearchRequest{Pattern: "slack", ProductIDs: []string{"ops"}})))
	require.Len(t, search(t, e, wire.SearchRequest{Pattern: "slack", Limit: 2}).Candidates, 2)

	none := search(t, e, wire.SearchRequest{Pattern: "zebra"})
	require.Empty(t, none.Candidates)
	require.True(t, none.Abstained)
}

// What RE2 lacks and Python's re has is refused as invalid_pattern, as are
// a pattern with a query, a long one and one with invisible characters.
func TestPatternRefusals(t *testing.T) {
	e := patternFixture(t)
	for _, c := range []struct {
		request wire.SearchRequest
		reason  string
	}{
		{wire.SearchRequest{Pattern: `(a)\1`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `slack(?=_)`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `(?<!x)slack`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `a{1001}`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `a*+`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `(?>a)`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `[`}, "invalid_pattern"},
		{wire.SearchRequest{Pattern: `[^\x01]{0,1000}\x01`}, "pattern_too_complex"},
		{wire.SearchRequest{Pattern: `(?:a{0,30}){0,30}`}, "pattern_too_complex"},
		{wire.SearchRequest{Pattern: strings.Repeat("a", wire.MaxPatternBytes+1)}, "pattern_too_long"},
		{wire.SearchRequest{Pattern: "sl\u202eack"}, "dangerous_pattern_unicode"},
		{wire.SearchRequest{Pattern: "slack", Query: "post"}, "pattern_with_query"},
		{wire.SearchRequest{Pattern: "slack", Subqueries: []string{"post"}}, "pattern_with_query"},
		{wire.SearchRequest{Pattern: "slack", Limit: 99}, "invalid_limit"},
		{wire.SearchRequest{Pattern: "slack", Effects: []string{"read", "eat"}}, "invalid_effect"},
		{wire.SearchRequest{Pattern: "slack", ProductIDs: []string{"nope"}}, "unknown_product"},
	} {
		c.request.Version = wire.SearchVersion
		_, err := e.Search(c.request)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%+v", c.request)
		require.Equal(t, c.reason, werr.Reason, "%+v: %s", c.request, werr.Message)
	}
}

// The wire takes "pattern" and writes it back after "query".
func TestPatternOnTheWire(t *testing.T) {
	e := patternFixture(t)
	out, err := e.SearchJSON([]byte(`{"version":"tool-search.v1","pattern":"^slack_"}`))
	require.NoError(t, err)
	require.Contains(t, string(out), `"query":"","pattern":"^slack_","strategy":"pattern","candidates":[{"canonical_path":"ops.slack_status"`)
}

// The attacks on the built-in DWS catalog (26 s, 55 s and over
// 300 s before the bound) are refused as pattern_too_complex before any
// text is matched; a pattern whose program is small enough but whose work
// over the whole catalog is not is refused too, and answers once filters
// leave less text to read.
func TestPatternTooComplex(t *testing.T) {
	e := newDWSEngine(t)
	attack := `[^\x01]{0,1000}\x01`
	for _, pattern := range []string{
		attack,
		attack + attack,
		strings.Repeat(`[^\x01]{0,999}`, 256/len(`[^\x01]{0,999}`)),
		`(?:[^\x01]{0,1000}){0,1000}`,
		`[^\x01]{0,100}\x01`, // 203 instructions: a small program, too much work over 602 KB
	} {
		start := time.Now()
		_, err := e.Search(wire.SearchRequest{Version: wire.SearchVersion, Pattern: pattern})
		elapsed := time.Since(start)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), pattern)
		if werr.Reason != "invalid_pattern" { // RE2's parser refuses a nested repetition over 1,000 itself
			require.Equal(t, "pattern_too_complex", werr.Reason, "%s: %s", pattern, werr.Message)
			require.Equal(t, wire.CategoryValidation, werr.Category)
		}
		require.Less(t, elapsed, time.Second, pattern) // about 1 ms: nothing is compiled or matched
	}
	narrow := search(t, e, wire.SearchRequest{Pattern: `[^\x01]{0,100}\x01`, ProductIDs: []string{"ding"}})
	require.Empty(t, narrow.Candidates)
}

// The slowest patterns the bounds admit, each family at the largest
// repetition count the DWS catalog's 602 KB of text allows: each answers,
// in time bounded by the work bound (about 0.2 to 0.5 s natively here; the
// limit asserted is loose for a loaded machine and the race detector).
func TestPatternWorstAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the slowest admitted patterns")
	}
	e := newDWSEngine(t)
	for _, family := range engine.WorstPatterns {
		largest := ""
		for n := 1; n <= 1000; n++ {
			pattern := fmt.Sprintf(family, n)
			err := engine.PatternAdmitted(e, wire.SearchRequest{Version: wire.SearchVersion, Pattern: pattern})
			if err != nil {
				var werr *wire.Error
				require.True(t, errors.As(err, &werr), pattern)
				require.Contains(t, []string{"pattern_too_complex", "invalid_pattern"}, werr.Reason, "%s: %s", pattern, werr.Message)
				break
			}
			largest = pattern
		}
		require.NotEmpty(t, largest, family)
		start := time.Now()
		search(t, e, wire.SearchRequest{Pattern: largest})
		elapsed := time.Since(start)
		t.Logf("%-44s %v", largest, elapsed)
		require.Less(t, elapsed, 10*time.Second, largest)
	}
}
