package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// Under generic-v2 a transcript ranks exactly as its user turns do: the
// assistant's question (which names other charts and a web search) moves
// nothing. Under generic-v1 the same transcript ranks by all its words.
func TestTranscriptRanksByItsUserTurns(t *testing.T) {
	const transcript = "user: I need a chart of this quarter's sales.\nassistant: Would a bar chart or a line chart suit you? I can also search the web for figures.\nuser: A word cloud of the product names, please."
	const userTurns = " I need a chart of this quarter's sales.\n A word cloud of the product names, please."
	paths := func(snap []byte, query string) []string {
		t.Helper()
		e, err := compile.Open(snap)
		require.NoError(t, err)
		request, err := json.Marshal(map[string]any{"version": "tool-search.v1", "query": query, "limit": 10})
		require.NoError(t, err)
		out, err := e.SearchJSON(request)
		require.NoError(t, err)
		var response struct {
			Candidates []struct {
				Path string `json:"canonical_path"`
			} `json:"candidates"`
		}
		require.NoError(t, json.Unmarshal(out, &response))
		var got []string
		for _, c := range response.Candidates {
			got = append(got, c.Path)
		}
		return got
	}
	require.Equal(t, paths(fixtures.GenericSnapshot, userTurns), paths(fixtures.GenericSnapshot, transcript))
	require.NotEqual(t, paths(fixtures.GenericV1Snapshot, userTurns), paths(fixtures.GenericV1Snapshot, transcript))
}
