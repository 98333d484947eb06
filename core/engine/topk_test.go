package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestTopBM25FMatchesExhaustive: a generic-v2 search takes its best k from
// index.TopBM25F, which skips documents that cannot reach them; scoring
// every eligible document instead must give the same bytes. Random queries
// made of the generic catalog's own words, with limits, candidate limits,
// an effect filter and explain, so demotion, field shares and breakdowns
// are compared too, not only the order.
func TestTopBM25FMatchesExhaustive(t *testing.T) {
	top, err := compile.Open(fixtures.GenericSnapshot)
	require.NoError(t, err)
	exhaustive := engine.Exhaustive(top)
	requests, err := fixtures.RandomSearchRequests(top.Catalog(), 400, 3)
	require.NoError(t, err)
	severalRanked := 0
	for _, body := range requests {
		for _, explain := range []bool{false, true} {
			want, wantErr := exhaustive.WithExplain(explain).SearchJSON(body)
			got, gotErr := top.WithExplain(explain).SearchJSON(body)
			require.Equal(t, wantErr == nil, gotErr == nil, "%s: %v, %v", body, wantErr, gotErr)
			require.Equal(t, string(want), string(got), "%s (explain %v)", body, explain)
			if explain && strings.Count(string(got), "canonical_path") > 1 {
				severalRanked++
			}
		}
	}
	// The comparison means something only if most queries rank several tools.
	require.Greater(t, severalRanked, 300)
}
