package engine_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
)

// TestReferenceExamples replays the live reference responses kept in
// testdata/dws/examples (CLI runs, including one with --explain, whose raw
// float scores must match to the last digit).
func TestReferenceExamples(t *testing.T) {
	e := newDWSEngine(t)
	for _, tc := range []struct {
		file    string
		request wire.SearchRequest
		explain bool
	}{
		{file: "search_abstained.json", request: wire.SearchRequest{Query: "xyzzy qwerty"}},
		{file: "search_exact_filtered.json", request: wire.SearchRequest{Query: "chat.query_msg_read_status", ExcludeCanonical: []string{"chat.query_msg_read_status"}}},
		{file: "search_exact_guard.json", request: wire.SearchRequest{Query: "chat message read-status"}},
		{file: "search_explain.json", request: wire.SearchRequest{Query: "发起一个投票", Limit: 3}, explain: true},
		{file: "search_filters.json", request: wire.SearchRequest{Query: "下载钉盘文件", ProductIDs: []string{"drive"}, Effects: []string{"read"}}},
		{file: "search_natural_language.json", request: wire.SearchRequest{Query: "查询群消息已读状态"}},
		{file: "search_nonsense_query.json", request: wire.SearchRequest{Query: "量子涨落检测器校准"}},
		{file: "search_subqueries.json", request: wire.SearchRequest{Query: "发群文件并确认已读", Subqueries: []string{"给群里发送文件消息", "查询群消息已读状态"}}},
		{file: "search_truncated.json", request: wire.SearchRequest{Query: "查询", Limit: 20}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dws", "examples", tc.file))
			require.NoError(t, err)
			tc.request.Version = wire.SearchVersion
			response, werr := e.WithExplain(tc.explain).Search(tc.request)
			require.Nil(t, werr)
			got, err := response.AppendJSON(nil)
			require.NoError(t, err)
			require.Equal(t, string(bytes.TrimSpace(want)), string(got))
			require.LessOrEqual(t, len(got)+1, wire.MaxResponseBytes)
		})
	}
}

func TestReferenceInspectExample(t *testing.T) {
	e := newDWSEngine(t)
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "dws", "examples", "inspect_v1_chat.query_msg_read_status.json"))
	require.NoError(t, err)
	request, err := json.Marshal(wire.InspectRequest{
		Version: wire.InspectVersion, CanonicalPath: "chat.query_msg_read_status",
		ExpectedSourceHash: e.Version().SourceHash, ExpectedSurfaceHash: e.Version().SurfaceHash,
	})
	require.NoError(t, err)
	got, werr := e.InspectJSON(request)
	require.Nil(t, werr)
	require.Equal(t, string(bytes.TrimSpace(want)), string(got))
}
