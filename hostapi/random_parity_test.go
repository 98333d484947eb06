package hostapi

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/testdata"
)

// TestModuleMatchesNativeOnRandomQueries: the golden vectors fix the
// module's answers to chosen queries; here random queries made of the
// generic catalog's own words, with filters, limits and explain, must give
// the same bytes in the module as natively. (core/engine's
// TestTopBM25FMatchesExhaustive compares the top-k path with exhaustive
// scoring the same way.)
func TestModuleMatchesNativeOnRandomQueries(t *testing.T) {
	native, err := snapshot.Open(testdata.GenericSnapshot)
	require.NoError(t, err)
	nativeExplain := native.WithExplain(true)
	module := openSnapshot(t, testdata.GenericSnapshot)

	// The catalog's words, common and rare alike.
	var words []string
	for _, product := range native.Catalog().Products {
		for _, tool := range product.Tools {
			words = append(words, strings.Fields(tool.Description)...)
			words = append(words, strings.Split(tool.Identity.CanonicalPath, ".")...)
		}
	}
	require.Greater(t, len(words), 5000)
	rng := rand.New(rand.NewPCG(3, 11))
	ctx := context.Background()
	for q := range 300 {
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
			want, wantErr := native.SearchJSON(body)
			got, gotErr := module.Search(ctx, body)
			if explain {
				want, wantErr = nativeExplain.SearchJSON(body)
				got, gotErr = module.SearchExplain(ctx, body)
			}
			require.Equal(t, wantErr == nil, gotErr == nil, "%s: %v, %v", body, wantErr, gotErr)
			require.Equal(t, string(want), string(got), "%s (explain %v)", body, explain)
		}
	}
}
