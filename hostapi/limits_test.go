package hostapi

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestOversizedRequestIsNotCopied: a 60 MB request to an instance capped at
// 48 MiB is refused by the host with the module's own request_too_large
// (before, it was copied in first, which trapped the instance: host_failure),
// the instance is not replaced, its memory does not grow, and it still
// answers. Every request path is covered: Search, SearchExplain, Inspect.
func TestOversizedRequestIsNotCopied(t *testing.T) {
	ctx := context.Background()
	e := openSnapshot(t, fixtures.DWSSnapshot, WithMaxInstances(1), WithMemoryLimit(48<<20))
	good, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	created := e.created.Load()
	memory := idleMemory(t, e)

	huge := []byte(`{"version":"tool-search.v1","query":"` + strings.Repeat("x", 60<<20) + `"}`)
	just := []byte(`{"version":"tool-search.v1","query":"` + strings.Repeat("x", wire.MaxRequestBytes) + `"}`)
	native := nativeEngine(t)
	for _, c := range []struct {
		name    string
		call    func(context.Context, []byte) ([]byte, error)
		native  func([]byte) ([]byte, error)
		request []byte
	}{
		{"search 60 MB", e.Search, native.SearchJSON, huge},
		{"explain 60 MB", e.SearchExplain, native.SearchJSON, huge},
		{"inspect 60 MB", e.Inspect, native.InspectJSON, huge},
		{"search just over", e.Search, native.SearchJSON, just},
		{"inspect just over", e.Inspect, native.InspectJSON, just},
	} {
		_, err := c.call(ctx, c.request)
		var typed *wire.Error
		require.ErrorAs(t, err, &typed, c.name)
		require.Equal(t, "request_too_large", typed.Reason, "%s: %v", c.name, err)
		require.Equal(t, 3, typed.Code, c.name)
		// The host's refusal is the module's (and the native core's), word for word.
		_, nativeErr := c.native(c.request)
		var werr *wire.Error
		require.ErrorAs(t, nativeErr, &werr, c.name)
		require.Equal(t, werr.Message, typed.Message, c.name)
		require.Equal(t, created, e.created.Load(), "%s: the instance was replaced", c.name)
		require.Equal(t, memory, idleMemory(t, e), "%s: the instance's memory grew", c.name)
	}
	again, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, good, again)
}

// idleMemory is the linear memory size of the engine's one idle instance.
func idleMemory(t *testing.T, e *Engine) uint32 {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Len(t, e.gen.idle, 1)
	return e.gen.idle[0].mem.Size()
}
