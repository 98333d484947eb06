package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPatternUnderDWSV1 pins difference 9 of docs/CONFORMANCE.md: the
// reference refuses a "pattern" member as an unknown field
// (invalid_request_json); here it is a known member under every profile,
// the built-in DWS catalog included, so an empty or null pattern beside a
// query is the query's own answer and a pattern alone is a pattern search.
// Other unknown members are still refused as the reference refuses them.
func TestPatternUnderDWSV1(t *testing.T) {
	e := newDWSEngine(t)
	plain, werr := searchBytes(e, []byte(`{"version":"tool-search.v1","query":"查询群消息已读状态"}`))
	require.Nil(t, werr)
	for _, beside := range []string{`"pattern":""`, `"pattern":null`} {
		got, werr := searchBytes(e, []byte(`{"version":"tool-search.v1","query":"查询群消息已读状态",`+beside+`}`))
		require.Nil(t, werr, beside)
		require.Equal(t, string(plain), string(got), beside)
	}
	got, werr := searchBytes(e, []byte(`{"version":"tool-search.v1","pattern":"^query_msg_read_status$"}`))
	require.Nil(t, werr)
	require.Contains(t, string(got), `"strategy":"pattern","candidates":[{"canonical_path":"chat.query_msg_read_status"`)

	_, werr = searchBytes(e, []byte(`{"version":"tool-search.v1","query":"查询群消息已读状态","patern":""}`))
	require.NotNil(t, werr)
	require.Equal(t, "invalid_request_json", werr.Reason)
}
