package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
)

// tool makes a small executable tool of product p.
func tool(p, name, cli, summary, effect string) catalog.Tool {
	return catalog.Tool{
		Identity: catalog.Identity{
			CanonicalPath: p + "." + name, Path: p + "." + name, Name: name, ProductID: p,
			CLIPath: p + " " + cli, PrimaryCLIPath: p + " " + cli, CLIName: cli,
		},
		Title:     summary,
		Safety:    catalog.Safety{Effect: effect, Risk: "low"},
		Interface: catalog.Interface{Mode: catalog.ModeLocal, Availability: catalog.Available},
		Selection: catalog.Selection{AgentSummary: summary},
	}
}

// fixture: chat.send (write), chat.read_status (read), doc.read (read) and
// drive.download (unavailable).
func fixture(t *testing.T) *engine.Engine {
	t.Helper()
	send := tool("chat", "send", "message send", "给群里发送消息", "write")
	send.Identity.Aliases = []string{"chat deliver"}
	send.Parameters = []catalog.Parameter{{Name: "file-path", Type: "string", Description: "本地媒体文件路径"}}
	download := tool("drive", "download", "file download", "下载钉盘文件", "read")
	download.Interface.Availability = "unavailable"
	cat := &catalog.Catalog{
		Version: catalog.VersionRef{SourceHash: "source-test", SurfaceHash: "surface-test"},
		Products: []catalog.Product{
			{ID: "chat", Name: "群聊", Tools: []catalog.Tool{tool("chat", "read_status", "message read-status", "查询群消息已读状态", "read"), send}},
			{ID: "doc", Name: "文档", Tools: []catalog.Tool{tool("doc", "read", "read", "读取文档内容", "read")}},
			{ID: "drive", Name: "钉盘", Tools: []catalog.Tool{download}},
		},
	}
	e, err := engine.New(cat, profile.DWSV1)
	require.NoError(t, err)
	return e
}

func search(t *testing.T, e *engine.Engine, r wire.SearchRequest) *wire.SearchResponse {
	t.Helper()
	r.Version = wire.SearchVersion
	response, err := e.Search(r)
	require.Nil(t, err)
	return response
}

func paths(r *wire.SearchResponse) []string {
	var out []string
	for _, c := range r.Candidates {
		out = append(out, c.CanonicalPath)
	}
	return out
}

func TestExactGuard(t *testing.T) {
	e := fixture(t)
	for _, q := range []string{"chat.send", "chat message send", "dws chat message send", "chat/message/send", "dws chat.message.send", "chat deliver", "ｃｈａｔ．ｓｅｎｄ"} {
		r := search(t, e, wire.SearchRequest{Query: q})
		require.Equal(t, wire.StrategyExactGuard, r.Strategy, q)
		require.Equal(t, []string{"chat.send"}, paths(r), q)
		require.Equal(t, []string{"identity"}, r.Candidates[0].MatchedFields)
		require.Equal(t, []string{"exact"}, r.Candidates[0].RankSources)
		require.Equal(t, "source-test", r.Catalog.SourceHash)
	}
	// Case-sensitive: an upper-cased path is not an identity.
	require.NotEqual(t, wire.StrategyExactGuard, search(t, e, wire.SearchRequest{Query: "CHAT.SEND"}).Strategy)
}

func TestExactFilteredNeverFallsThroughToSiblings(t *testing.T) {
	e := fixture(t)
	for _, tc := range []struct {
		request wire.SearchRequest
		reason  string
	}{
		{wire.SearchRequest{Query: "chat.send", ExcludeCanonical: []string{"chat.send"}}, "excluded"},
		{wire.SearchRequest{Query: "chat.send", ProductIDs: []string{"doc"}}, "product_mismatch"},
		{wire.SearchRequest{Query: "chat.send", Effects: []string{"read"}}, "effect_mismatch"},
		{wire.SearchRequest{Query: "drive.download"}, "unavailable"},
		// Reasons are checked in order: excluded wins over a product mismatch.
		{wire.SearchRequest{Query: "chat.send", ExcludeCanonical: []string{"chat.send"}, ProductIDs: []string{"doc"}}, "excluded"},
	} {
		r := search(t, e, tc.request)
		require.Equal(t, wire.StrategyExactFiltered, r.Strategy)
		require.Empty(t, r.Candidates)
		require.True(t, r.Abstained)
		require.Empty(t, r.Hint, "an exact_filtered answer carries no hint")
		require.Equal(t, tc.reason, r.ExactFiltered.Reason)
		out, err := r.AppendJSON(nil)
		require.NoError(t, err)
		require.Contains(t, string(out), `"candidates":[]`)
	}
}

func TestHardFiltersAndUnavailableTools(t *testing.T) {
	e := fixture(t)
	r := search(t, e, wire.SearchRequest{Query: "给群里发送消息", ProductIDs: []string{"chat"}, Effects: []string{"WRITE"}})
	require.Equal(t, []string{"chat.send"}, paths(r))
	r = search(t, e, wire.SearchRequest{Query: "本地媒体文件路径"})
	require.Equal(t, "chat.send", r.Candidates[0].CanonicalPath)
	require.Contains(t, r.Candidates[0].MatchedFields, "parameters")
	r = search(t, e, wire.SearchRequest{Query: "下载钉盘文件"})
	require.NotContains(t, paths(r), "drive.download", "an unavailable tool is never a candidate")
	r = search(t, e, wire.SearchRequest{Query: "查询群消息已读状态", ExcludeCanonical: []string{"chat.read_status"}})
	require.NotContains(t, paths(r), "chat.read_status")
}

func TestAbstainAndWeakMatchHints(t *testing.T) {
	e := fixture(t)
	r := search(t, e, wire.SearchRequest{Query: "xyzzy"})
	require.True(t, r.Abstained)
	require.Equal(t, profile.DWSV1.AbstainHint, r.Hint)
	r = search(t, e, wire.SearchRequest{Query: "媒体路径"}) // only the parameter text matches
	require.True(t, r.WeakMatch)
	require.Equal(t, profile.DWSV1.WeakMatchHint, r.Hint)
}

func TestSubqueriesRoundRobinAndFailClosed(t *testing.T) {
	e := fixture(t)
	r := search(t, e, wire.SearchRequest{Subqueries: []string{"给群里发送消息", " 读取文档内容 ", "给群里发送消息", ""}, Limit: 2, CandidateLimit: 100})
	require.Equal(t, wire.StrategyDecomposedRoundRobin, r.Strategy)
	require.Equal(t, []string{"chat.send", "doc.read"}, paths(r))
	require.Equal(t, []string{"给群里发送消息", "读取文档内容"}, r.Subqueries)
	require.Equal(t, "给群里发送消息 + 读取文档内容", r.Query)
	require.False(t, r.Truncated)

	r = search(t, e, wire.SearchRequest{Query: "发消息再读文档", Subqueries: []string{"读取文档内容", "chat.send"}, ExcludeCanonical: []string{"chat.send"}})
	require.Equal(t, wire.StrategyDecomposedExactFiltered, r.Strategy)
	require.Empty(t, r.Candidates)
	require.Equal(t, "excluded", r.ExactFiltered.Reason)
}

func TestValidationReasonsInOrder(t *testing.T) {
	e := fixture(t)
	long := strings.Repeat("查", 257)
	for _, tc := range []struct {
		request wire.SearchRequest
		reason  string
	}{
		{wire.SearchRequest{Query: "  "}, "query_required"},
		{wire.SearchRequest{Query: long}, "query_too_long"},
		{wire.SearchRequest{Query: strings.Repeat("a", 2049)}, "query_too_long"},
		{wire.SearchRequest{Query: "a\u202eb"}, "dangerous_query_unicode"},
		{wire.SearchRequest{Query: "a\rb"}, "dangerous_query_unicode"},
		{wire.SearchRequest{Query: "a\u202eb", Limit: 99}, "dangerous_query_unicode"},
		{wire.SearchRequest{Query: "q", Limit: 21}, "invalid_limit"},
		{wire.SearchRequest{Query: "q", Limit: -1}, "invalid_limit"},
		{wire.SearchRequest{Query: "q", CandidateLimit: 101}, "invalid_candidate_limit"},
		{wire.SearchRequest{Query: "q", Effects: []string{"rw"}, ProductIDs: []string{"x\u200b"}}, "dangerous_filter_unicode"},
		{wire.SearchRequest{Query: "q", Effects: []string{"删除"}}, "invalid_effect"},
		{wire.SearchRequest{Query: "q", Effects: []string{"readx"}, ProductIDs: []string{"nope"}}, "invalid_effect"},
		{wire.SearchRequest{Query: "q", ProductIDs: []string{"nope"}}, "unknown_product"},
		{wire.SearchRequest{Subqueries: []string{" ", ""}}, "subquery_required"},
		{wire.SearchRequest{Subqueries: strings.Split("a b c d e f g h i", " ")}, "too_many_subqueries"},
		{wire.SearchRequest{Subqueries: []string{strings.Repeat("a", 1100), strings.Repeat("b", 1100)}}, "subqueries_too_large"},
		{wire.SearchRequest{Query: "q", Subqueries: []string{"a"}, Limit: 30}, "invalid_limit"},
		{wire.SearchRequest{Subqueries: []string{"a", long}}, "query_too_long"},
	} {
		tc.request.Version = wire.SearchVersion
		_, searchErr := e.Search(tc.request)
		err := typedError(t, searchErr)
		require.Equal(t, tc.reason, err.Reason, "%+v", tc.request)
		require.Equal(t, wire.CategoryValidation, err.Category)
		require.Equal(t, wire.CodeValidation, err.Code)
	}
}

// TestNamedProductLiftIsDeterministic: when several product names appear in
// a query, the longest name wins and a tie names none, whatever the order.
func TestNamedProductLiftIsDeterministic(t *testing.T) {
	products := []catalog.Product{
		{ID: "sheet", Name: "钉钉表格管理", Tools: []catalog.Tool{tool("sheet", "append", "append", "在表格末尾追加数据行", "write")}},
		{ID: "aitable", Name: "AI 表格操作", Tools: []catalog.Tool{tool("aitable", "append", "append", "向数据表追加记录", "write")}},
		{ID: "doc", Name: "文档", Tools: []catalog.Tool{tool("doc", "append", "append", "在表格追加内容 表格 数据行 追加", "write")}},
	}
	e, err := engine.New(&catalog.Catalog{Products: products}, profile.DWSV1)
	require.NoError(t, err)
	// 「AI表格」 names aitable (core ai表格): its tool is lifted to the top
	// although doc.append matches the words better.
	r := search(t, e, wire.SearchRequest{Query: "在AI表格里追加数据行"})
	require.Equal(t, "aitable.append", r.Candidates[0].CanonicalPath)
	require.NotEqual(t, "aitable.append", search(t, e, wire.SearchRequest{Query: "在表格里追加数据行"}).Candidates[0].CanonicalPath,
		"without the product name, aitable.append is not first: the lift is what moved it")
	// Both 「钉钉表格」 (4 runes) and 「ai表格」 (4 runes) appear: a tie names
	// no product, so the order is plain BM25: breakdown scores (which keep the
	// pre-lift score) never increase down the list.
	explained := e.WithExplain(true)
	tied := search(t, explained, wire.SearchRequest{Query: "钉钉表格 AI表格 追加数据行"})
	for i := 1; i < len(tied.Candidates); i++ {
		require.GreaterOrEqual(t, tied.Candidates[i-1].ScoreBreakdown.Score, tied.Candidates[i].ScoreBreakdown.Score)
	}
	// With one name the lifted tool outranks a better-scoring one.
	lifted := search(t, explained, wire.SearchRequest{Query: "在AI表格里追加数据行"})
	require.Equal(t, "aitable.append", lifted.Candidates[0].CanonicalPath)
	require.Less(t, lifted.Candidates[0].ScoreBreakdown.Score, lifted.Candidates[1].ScoreBreakdown.Score)
}

func TestResponseBudgetDropsWholeReferences(t *testing.T) {
	var tools []catalog.Tool
	for i := 0; i < 30; i++ {
		long := strings.Repeat("很长的说明文字", 60) // 420 runes
		tl := tool("big", fmt.Sprintf("tool_%02d", i), fmt.Sprintf("cmd%02d", i), long, "read")
		tl.Title = long
		tools = append(tools, tl)
	}
	e, err := engine.New(&catalog.Catalog{Products: []catalog.Product{{ID: "big", Name: "大", Tools: tools}}}, profile.DWSV1)
	require.NoError(t, err)
	r := search(t, e, wire.SearchRequest{Query: "很长的说明", Limit: 20})
	out, err2 := r.AppendJSON(nil)
	require.NoError(t, err2)
	require.LessOrEqual(t, len(out)+1, wire.MaxResponseBytes)
	require.True(t, r.Truncated)
	require.Less(t, len(r.Candidates), 20)
	require.NotEmpty(t, r.Candidates)
	for i, c := range r.Candidates {
		require.Equal(t, i+1, c.Rank)
		require.Equal(t, []string{"title", "agent_summary"}, c.TruncatedFields)
		require.Equal(t, wire.MaxSummaryRunes, len([]rune(c.Title)))
	}
	// One more candidate would not have fitted.
	r.Candidates = append(r.Candidates, r.Candidates[0])
	bigger, _ := r.AppendJSON(nil)
	require.Greater(t, len(bigger)+1, wire.MaxResponseBytes)
}

func TestExplainDoesNotChangeOrder(t *testing.T) {
	e := newDWSEngine(t)
	for _, q := range []string{"查询群消息已读状态", "给群里发文件并确认消息已读", "发起一个投票"} {
		plain := search(t, e, wire.SearchRequest{Query: q, Limit: 10})
		explained := search(t, e.WithExplain(true), wire.SearchRequest{Query: q, Limit: 10})
		require.Equal(t, paths(plain), paths(explained))
		for _, c := range explained.Candidates {
			require.NotNil(t, c.ScoreBreakdown)
		}
		out, _ := plain.AppendJSON(nil)
		require.NotContains(t, string(out), "score_breakdown")
	}
}

// TestConcurrentSearchesAreIdentical runs searches from many goroutines (run
// with -race) and checks every answer against the single-threaded one.
func TestConcurrentSearchesAreIdentical(t *testing.T) {
	e := newDWSEngine(t)
	queries := []string{"给群里发文件并确认消息已读", "查询群消息已读状态", "chat.send_message", "下载钉盘文件", "创建一场新的会议日程", "AI表格 新增记录", "xyzzy"}
	want := make([]string, len(queries))
	for i, q := range queries {
		out, err := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"` + q + `","limit":10}`))
		require.Nil(t, err)
		want[i] = string(out)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				i := (g + n) % len(queries)
				out, err := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"` + queries[i] + `","limit":10}`))
				if err != nil || string(out) != want[i] {
					errs <- queries[i]
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for q := range errs {
		t.Errorf("concurrent answer for %q differs", q)
	}
}

func TestEngineRefusesIdentityCollisions(t *testing.T) {
	a := tool("chat", "send", "send", "发送", "write")
	b := tool("chat", "post", "post", "发帖", "write")
	b.Identity.Aliases = []string{"chat send"}
	_, err := engine.New(&catalog.Catalog{Products: []catalog.Product{{ID: "chat", Tools: []catalog.Tool{a, b}}}}, profile.DWSV1)
	require.ErrorContains(t, err, `"chat send"`)
}

func TestTFIDFAlternative(t *testing.T) {
	p, err := profile.DWSV1.WithAlgorithm(profile.TFIDF)
	require.NoError(t, err)
	e, err := engine.New(newDWSEngine(t).Catalog(), p)
	require.NoError(t, err)
	r := search(t, e, wire.SearchRequest{Query: "查询群消息已读状态"})
	require.Equal(t, profile.TFIDF, r.Strategy)
	require.Equal(t, "chat.query_msg_read_status", r.Candidates[0].CanonicalPath)
	require.Equal(t, []string{profile.TFIDF}, r.Candidates[0].RankSources)
}

// TestAppendSearchJSON: the response goes after what dst holds, equals
// SearchJSON's bytes, and an error leaves dst as it was.
func TestAppendSearchJSON(t *testing.T) {
	e := newDWSEngine(t)
	requests := [][]byte{
		[]byte(`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读"}`),
		[]byte(`{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`),
		[]byte(`{"version":"tool-search.v1","subqueries":["发送文件","已读状态"],"limit":3}`),
	}
	buf := []byte("prefix")
	for _, request := range requests {
		want, werr := e.SearchJSON(request)
		require.Nil(t, werr)
		out, werr := e.AppendSearchJSON(buf[:6], request)
		require.Nil(t, werr)
		require.Equal(t, "prefix", string(out[:6]))
		require.Equal(t, string(want), string(out[6:]))
		buf = out
	}
	out, werr := e.AppendSearchJSON(buf[:6], []byte(`{"version":"tool-search.v2","query":"x"}`))
	require.NotNil(t, werr)
	require.Equal(t, "prefix", string(out))
}

// typedError fails the test unless err is non-nil and holds a *wire.Error
// (the public API returns error; errors.As must reach the typed one).
func typedError(t testing.TB, err error) *wire.Error {
	t.Helper()
	var werr *wire.Error
	if !errors.As(err, &werr) {
		t.Fatalf("want a *wire.Error, got %T %v", err, err)
	}
	return werr
}

// TestSearchResponseIsTheCallers: the JSON path keeps a response's
// candidates in the query's scratch and reuses them, the struct path must
// not: a response from Search stays as it was while later searches (of
// either kind) run, and each candidate's matched fields, cut from one
// backing array, can be appended to without touching the next candidate's.
func TestSearchResponseIsTheCallers(t *testing.T) {
	e := newDWSEngine(t)
	request := wire.SearchRequest{Version: wire.SearchVersion, Query: "给群里发文件并确认消息已读", Limit: 10}
	kept := search(t, e, request)
	require.Greater(t, len(kept.Candidates), 2)
	want, err := json.Marshal(kept)
	require.NoError(t, err)
	for _, q := range []string{"查询群消息已读状态", "下载钉盘文件", "创建一场新的会议日程", "AI表格 新增记录"} {
		_, err := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"` + q + `","limit":10}`))
		require.NoError(t, err)
		search(t, e, wire.SearchRequest{Version: wire.SearchVersion, Query: q, Limit: 10})
	}
	got, err := json.Marshal(kept)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got))

	second := slices.Clone(kept.Candidates[1].MatchedFields)
	kept.Candidates[0].MatchedFields = append(kept.Candidates[0].MatchedFields, "appended")
	require.Equal(t, second, kept.Candidates[1].MatchedFields)
}
