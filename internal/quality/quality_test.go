package quality_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/quality"
)

func TestScoreByHand(t *testing.T) {
	judged := map[string]int{"a": 1, "b": 1, "x": 0}
	// a at rank 2, b absent; x (judged not relevant) at rank 1.
	s := quality.Score([]string{"x", "a", "c"}, judged, []int{1, 5})

	idcg5 := 1 + 1/math.Log2(3)
	require.InDelta(t, 0, s.NDCG[0], 1e-12)
	require.InDelta(t, (1/math.Log2(3))/idcg5, s.NDCG[1], 1e-12)
	require.Equal(t, []float64{0, 0.5}, s.Recall)
	require.Equal(t, []float64{0, 0}, s.Comprehensiveness)
	require.InDelta(t, 0.5, s.MRR10, 1e-12)
	require.False(t, s.Zero)

	all := quality.Score([]string{"b", "a"}, judged, []int{2})
	require.Equal(t, []float64{1}, all.NDCG)
	require.Equal(t, []float64{1}, all.Comprehensiveness)
	require.True(t, quality.Score(nil, judged, []int{1}).Zero)
}

func TestScoreUsesGrades(t *testing.T) {
	judged := map[string]int{"best": 3, "good": 1}
	swapped := quality.Score([]string{"good", "best"}, judged, []int{2})
	ideal := quality.Score([]string{"best", "good"}, judged, []int{2})
	require.Equal(t, 1.0, ideal.NDCG[0])
	require.InDelta(t, (1+3/math.Log2(3))/(3+1/math.Log2(3)), swapped.NDCG[0], 1e-12)
}

func TestSummarize(t *testing.T) {
	ks := []int{1}
	scores := []quality.Scores{
		quality.Score([]string{"a"}, map[string]int{"a": 1}, ks),
		quality.Score(nil, map[string]int{"a": 1}, ks),
	}
	s := quality.Summarize(scores, ks)
	require.Equal(t, 2, s.Queries)
	require.Equal(t, 0.5, s.Recall["@1"])
	require.Equal(t, 0.5, s.NDCG["@1"])
	require.Equal(t, 0.5, s.MRR10)
	require.Equal(t, 0.5, s.ZeroResultRate)
}

func TestReadQrelsAndQueries(t *testing.T) {
	qrels, err := quality.ReadQrels(strings.NewReader("query-id\tcorpus-id\tscore\nq1\ts::t\t1\nq1\tu\t0\n\nq2\tv\t2\n"))
	require.NoError(t, err)
	require.Equal(t, quality.Qrels{"q1": {"s::t": 1, "u": 0}, "q2": {"v": 2}}, qrels)
	_, err = quality.ReadQrels(strings.NewReader("q\tc\tscore\nq1\tc1\tmany\n"))
	require.ErrorContains(t, err, "line 2")
	_, err = quality.ReadQrels(strings.NewReader("q1 c1 1\n"))
	require.ErrorContains(t, err, "3 tab-separated fields")

	queries, err := quality.ReadQueries(strings.NewReader(`{"id":"q1","text":"find a tool","lang":"en"}` + "\n\n" + `{"id":"q2","text":"找工具"}`))
	require.NoError(t, err)
	require.Equal(t, []quality.Query{{ID: "q1", Text: "find a tool"}, {ID: "q2", Text: "找工具"}}, queries)
	_, err = quality.ReadQueries(strings.NewReader(`{"text":"no id"}`))
	require.ErrorContains(t, err, "line 1")
	_, err = quality.ReadQueries(strings.NewReader(`{"id":"q1","text":"x"}` + "\n" + `{"id":true,"text":"a boolean id"}`))
	require.ErrorContains(t, err, "line 2")

	// BEIR writes "_id"; a numeric id reads as its digits, as the qrels
	// file writes it.
	queries, err = quality.ReadQueries(strings.NewReader(`{"_id":"q1","text":"beir"}` + "\n" + `{"_id":17,"text":"numeric"}`))
	require.NoError(t, err)
	require.Equal(t, []quality.Query{{ID: "q1", Text: "beir"}, {ID: "17", Text: "numeric"}}, queries)

	// A qrels file without its header line reads the same.
	headless, err := quality.ReadQrels(strings.NewReader("q1\ts::t\t1\nq1\tu\t0\nq2\tv\t2\n"))
	require.NoError(t, err)
	require.Equal(t, qrels, headless)
}

func TestSlices(t *testing.T) {
	require.True(t, quality.HasHan("发送 message"))
	require.False(t, quality.HasHan("send ｍessage"))
	require.Equal(t, "mixed_chinese_ascii", quality.LanguageSlice("发送 message"))
	require.Equal(t, "chinese_only", quality.LanguageSlice("发送消息。"))
	require.Equal(t, "non_chinese", quality.LanguageSlice("send"))
}

func TestProxyAndForbidden(t *testing.T) {
	var p quality.Proxy
	p.Observe(1, false)
	p.Observe(3, false)
	p.Observe(0, true)
	p.Observe(6, false) // beyond the top 5: no credit
	require.Equal(t, 4, p.Cases)
	require.Equal(t, 0.25, p.RecallAt1)
	require.Equal(t, 0.5, p.RecallAt5)
	require.InDelta(t, (1+1.0/3)/4, p.MRRAt5, 1e-12)
	require.Equal(t, 0.25, p.ZeroResultRate)

	var f quality.Forbidden
	f.Observe(1)
	f.Observe(4)
	f.Observe(0)
	f.Observe(0)
	require.Equal(t, 0.25, f.ForbiddenAt1)
	require.Equal(t, 0.5, f.ForbiddenAt5)
}
