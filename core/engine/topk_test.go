package engine_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/testdata"
)

// TestTopBM25FMatchesExhaustive: a generic-v2 search takes its best k from
// index.TopBM25F, which skips documents that cannot reach them; scoring
// every eligible document instead must give the same bytes. Random queries
// made of the generic catalog's own words (common and rare), with limits,
// candidate limits, an effect filter and explain, so demotion, field shares
// and breakdowns are compared too, not only the order.
func TestTopBM25FMatchesExhaustive(t *testing.T) {
	top, err := snapshot.Open(testdata.GenericSnapshot)
	require.NoError(t, err)
	exhaustive := engine.Exhaustive(top)

	var words []string
	for _, product := range top.Catalog().Products {
		for _, tool := range product.Tools {
			words = append(words, strings.Fields(tool.Description)...)
			words = append(words, strings.Split(tool.Identity.CanonicalPath, ".")...)
		}
	}
	require.Greater(t, len(words), 5000)
	rng := rand.New(rand.NewPCG(3, 11))
	severalRanked := 0
	for q := range 400 {
		var query strings.Builder
		for n := 1 + rng.IntN(30); n > 0 && query.Len() < 200; n-- {
			query.WriteString(words[rng.IntN(len(words))])
			query.WriteByte(' ')
		}
		request := map[string]any{"version": "tool-search.v1", "query": strings.TrimSpace(query.String())}
		if q%3 == 1 {
			request["limit"], request["candidate_limit"] = 1+rng.IntN(10), 10+rng.IntN(40)
		}
		if q%5 == 2 {
			request["effects"] = []string{"read"}
		}
		body, err := json.Marshal(request)
		require.NoError(t, err)
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
