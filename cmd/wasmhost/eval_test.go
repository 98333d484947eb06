package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEvalDWSProxyMatchesTheReference: the DWS reference published its own
// proxy figures for this catalog (R@1 62.92%, R@5 85.38%, MRR@5 0.7189 over
// 1,149 intents, 10 over budget; Forbidden@5 1 of 1,417). The evaluator and
// the engine together must reproduce them, on both engines.
func TestEvalDWSProxyMatchesTheReference(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		code, stdout, stderr := runCLI(t, "", "eval", "--dws-proxy", "--json", "--engine", engine)
		require.Equal(t, 0, code, stderr)
		var report proxyReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &report))
		require.Equal(t, 1149, report.Intent.Cases)
		require.Equal(t, 10, report.IntentOverBudget)
		require.Equal(t, "62.92", percent(report.Intent.RecallAt1))
		require.Equal(t, "85.38", percent(report.Intent.RecallAt5))
		require.InDelta(t, 0.7189, report.Intent.MRRAt5, 0.00005)
		require.Equal(t, "82.11", percent(report.IntentSlices["chinese_only"].RecallAt5))
		require.Equal(t, "87.18", percent(report.IntentSlices["mixed_chinese_ascii"].RecallAt5))
		require.Equal(t, 1417, report.Forbidden.Cases)
		require.InDelta(t, 1.0/1417, report.Forbidden.ForbiddenAt5, 1e-12)
	}
}

func percent(v float64) string {
	out, _ := json.Marshal(float64(int(v*10000+0.5)) / 100)
	return string(out)
}

// TestEvalBenchmark runs a hand-made benchmark whose scores are known: three
// tools, three queries, one of them cut to the query budget and one in
// Chinese.
func TestEvalBenchmark(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	corpus := write("corpus.jsonl", strings.Join([]string{
		`{"id":"weather::forecast","name":"forecast","description":"Weather forecast for a city","doc":{"name":"forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},"annotations":{"readOnlyHint":true}}}`,
		`{"id":"send_email","name":"send_email","description":"Send an email message","doc":{"name":"send_email","parameters":{"type":"object","properties":{"to":{"type":"string"}}}}}`,
		`{"id":"translate","name":"translate","description":"翻译文本到另一种语言","doc":{"name":"translate"}}`,
	}, "\n"))
	long := "send an email" + strings.Repeat(" please", 60) // cut after the intent
	queries := write("queries.jsonl", strings.Join([]string{
		`{"id":"q1","text":"weather forecast in Paris"}`,
		`{"id":"q2","text":"` + long + `"}`,
		`{"id":"q3","text":"把这段话翻译成英文"}`,
		`{"id":"q4","text":"a query without judgements"}`,
	}, "\n"))
	qrels := write("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\tweather::forecast\t1\nq2\tsend_email\t1\nq3\ttranslate\t1\nq3\tmissing::tool\t1\n")

	var reports []benchmarkReport
	for _, engine := range []string{"native", "wasm"} {
		code, stdout, stderr := runCLI(t, "", "eval", "--engine", engine, "--corpus", corpus, "--queries", queries, "--qrels", qrels, "--k", "1,5", "--json")
		require.Equal(t, 0, code, stderr)
		var report benchmarkReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &report))
		reports = append(reports, report)
	}
	require.Equal(t, reports[0].Slices, reports[1].Slices, "both engines rank alike")
	r := reports[1]
	require.Equal(t, "generic-v1", r.Profile)
	require.Equal(t, 3, r.Tools)
	require.Equal(t, 3, r.Queries)
	require.Equal(t, 1, r.Unjudged)
	require.Equal(t, 1, r.Truncated, "the long query is cut to the budget, not refused")
	require.Equal(t, []string{"missing::tool"}, r.Missing)
	all := r.Slices["all"]
	// q1 and q2 find their tool first; q3 finds one of its two judged tools
	// (the other is missing): recall 1/2, comprehensiveness 0.
	require.Equal(t, 3, all.Queries)
	require.InDelta(t, (1+1+0.5)/3, all.Recall["@5"], 1e-12)
	require.InDelta(t, 2.0/3, all.Comprehensiveness["@5"], 1e-12)
	require.Equal(t, 1, r.Slices["han"].Queries)
	require.Equal(t, 2, r.Slices["no_han"].Queries)

	code, table, stderr := runCLI(t, "", "eval", "--engine", "native", "--corpus", corpus, "--queries", queries, "--qrels", qrels)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, table, "| slice | queries | nDCG@1 | nDCG@5 | nDCG@10 | R@1 | R@5 | R@10 |")
	require.Contains(t, table, "1 judged tools are not in the catalog")
}

func TestEvalFlags(t *testing.T) {
	for _, args := range [][]string{
		{"eval"},
		{"eval", "--queries", "q.jsonl"},
		{"eval", "--dws-proxy", "--qrels", "x.tsv", "--queries", "q.jsonl"},
		{"eval", "--dws-proxy", "--k", "0"},
		{"eval", "--dws-proxy", "--k", "21"},
		{"eval", "--corpus", "c.jsonl", "--snapshot", "s.snap", "--dws-proxy"},
	} {
		code, _, _ := runCLI(t, "", args...)
		require.Equal(t, 2, code, strings.Join(args, " "))
	}
}

func TestFitQuery(t *testing.T) {
	short, cut := fitQuery("发送消息")
	require.False(t, cut)
	require.Equal(t, "发送消息", short)
	long, cut := fitQuery(strings.Repeat("发", 300))
	require.True(t, cut)
	require.Equal(t, strings.Repeat("发", 256), long)
	// 2048 bytes: 682 three-byte runes would be 2046 bytes, but the rune cap
	// comes first; four-byte runes hit the byte cap at 512 runes > 256.
	wide, cut := fitQuery(strings.Repeat("a", 2000) + strings.Repeat("发", 30))
	require.True(t, cut)
	require.Equal(t, strings.Repeat("a", 256), wide)
}
