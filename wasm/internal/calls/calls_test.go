package calls

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
)

// reserveHeap only makes room: what it allocates is garbage by the time it
// returns, so the live heap is what it was (a reservation kept alive would
// double the memory of every large open).
func TestReserveHeapKeepsNothing(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reserveHeap(64 << 20)
	runtime.ReadMemStats(&after)
	require.Nil(t, reserved)
	require.Less(t, after.HeapAlloc, before.HeapAlloc+8<<20, "the 64 MiB reservation is still live")
	require.GreaterOrEqual(t, after.HeapSys, before.HeapSys+(64<<20)-(4<<20), "the heap did not grow by the reservation")
}

// The limits are valid JSON, carry every budget of core/wire, and each error
// is the payload the module itself answers for that oversized request.
func TestAppendLimits(t *testing.T) {
	var got struct {
		MaxRequestBytes int                        `json:"max_request_bytes"`
		MaxLimit        int                        `json:"max_limit"`
		MaxPatternWork  int                        `json:"max_pattern_work"`
		Errors          map[string]json.RawMessage `json:"errors"`
	}
	out := AppendLimits(nil)
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	require.Equal(t, wire.MaxRequestBytes, got.MaxRequestBytes)
	require.Equal(t, wire.MaxLimit, got.MaxLimit)
	require.Equal(t, wire.MaxPatternWork, got.MaxPatternWork)
	require.Len(t, got.Errors, len(limitErrors))

	// The search error is what the engine's own decoder answers.
	_, werr := wire.DecodeSearchRequest(make([]byte, wire.MaxRequestBytes+1))
	require.NotNil(t, werr)
	require.JSONEq(t, string(werr.AppendJSON(nil)), string(got.Errors["search_request_too_large"]))
	require.Equal(t, `{"error":{"category":"validation","code":3,"message":"the request is larger than 65536 bytes","reason":"request_too_large"}}`,
		string(got.Errors["request_too_large"]))
}
