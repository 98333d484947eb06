package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

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
	require.Equal(t, MaxRequestBytes, got.MaxRequestBytes)
	require.Equal(t, MaxLimit, got.MaxLimit)
	require.Equal(t, MaxPatternWork, got.MaxPatternWork)
	require.Len(t, got.Errors, len(limitErrors))

	// The search error is what the engine's own decoder answers.
	_, werr := DecodeSearchRequest(make([]byte, MaxRequestBytes+1))
	require.NotNil(t, werr)
	require.JSONEq(t, string(werr.AppendJSON(nil)), string(got.Errors["search_request_too_large"]))
	require.Equal(t, `{"error":{"category":"validation","code":3,"message":"the request is larger than 65536 bytes","reason":"request_too_large"}}`,
		string(got.Errors["request_too_large"]))
}
