package hostapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// The host refuses oversized requests with what the module reports
// (toolsift_limits), which is core/wire's budget and wording; a request of
// exactly the limit is the module's to answer.
func TestModuleLimitsAreRead(t *testing.T) {
	e := openSnapshot(t, fixtures.DWSSnapshot, WithMaxInstances(1))
	l := e.mr.limits.Load()
	require.NotNil(t, l, "the first instance did not read toolsift_limits")
	require.Equal(t, wire.MaxRequestBytes, l.maxRequestBytes)
	for key, what := range map[string]string{
		"search_request_too_large":   wire.SearchVersion,
		"inspect_request_too_large":  wire.InspectVersion,
		"provider_request_too_large": "provider",
	} {
		require.Equal(t, string(wire.RequestTooLarge(what).AppendJSON(nil)), string(l.errors[key]), key)
	}
	require.NoError(t, e.mr.refuseOversized(make([]byte, l.maxRequestBytes), "search_request_too_large"))
	err := e.mr.refuseOversized(make([]byte, l.maxRequestBytes+1), "provider_request_too_large")
	var typed *wire.Error
	require.ErrorAs(t, err, &typed)
	require.Equal(t, "provider request is larger than 65536 bytes", typed.Message)
}

// An oversized request gets the same refusal from either engine: the
// module's words, read from its limits by the wazero host, and the native
// core's own.
func TestOversizedRequestsAreRefusedAlikeByBothEngines(t *testing.T) {
	ctx := context.Background()
	big := make([]byte, wire.MaxRequestBytes+1)
	answers := map[EngineKind][3]string{}
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		e := openSnapshot(t, fixtures.DWSSnapshot, WithEngine(kind))
		var got [3]string
		for i, call := range []func() ([]byte, error){
			func() ([]byte, error) { return e.Search(ctx, big) },
			func() ([]byte, error) { return e.Inspect(ctx, big) },
			func() ([]byte, error) { return e.ProviderRaw(ctx, big) },
		} {
			_, err := call()
			var typed *wire.Error
			require.ErrorAs(t, err, &typed, "call %d", i)
			require.Contains(t, typed.Reason, "too_large")
			got[i] = string(typed.AppendJSON(nil))
		}
		answers[kind] = got
	})
	require.Equal(t, answers[ModuleEngine], answers[NativeEngine])
}
