package hostapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestModuleMatchesNativeOnRandomQueries (both engines): the golden vectors fix the
// module's answers to chosen queries; here random queries made of the
// generic catalog's own words, with filters, limits and explain, must give
// the same bytes in the module as natively. (core/engine's
// TestTopBM25FMatchesExhaustive compares the top-k path with exhaustive
// scoring the same way.)
func TestModuleMatchesNativeOnRandomQueries(t *testing.T) {
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		native, err := compile.Open(fixtures.GenericSnapshot)
		require.NoError(t, err)
		nativeExplain := native.WithExplain(true)
		module := openSnapshot(t, fixtures.GenericSnapshot, WithEngine(kind))
		requests, err := fixtures.RandomSearchRequests(native.Catalog(), 300, 3)
		require.NoError(t, err)
		ctx := context.Background()
		for _, body := range requests {
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
	})
}
