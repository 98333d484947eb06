package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/profile"
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

// longQuery is over the wire's 256-character budget, its intent first.
var longQuery = "send an email" + strings.Repeat(" please", 60)

// handMadeBenchmark writes three tools, four queries (one cut to the query
// budget, one in Chinese, one without judgements; BEIR's "_id" on one) and
// their judgements, and returns the three paths.
func handMadeBenchmark(t *testing.T) (corpus, queries, qrels string) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	corpus = write("corpus.jsonl", strings.Join([]string{
		`{"id":"weather::forecast","name":"forecast","description":"Weather forecast for a city","doc":{"name":"forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},"annotations":{"readOnlyHint":true}}}`,
		`{"id":"send_email","name":"send_email","description":"Send an email message","doc":{"name":"send_email","parameters":{"type":"object","properties":{"to":{"type":"string"}}}}}`,
		`{"id":"translate","name":"translate","description":"翻译文本到另一种语言","doc":{"name":"translate"}}`,
	}, "\n"))
	queries = write("queries.jsonl", strings.Join([]string{
		`{"id":"q1","text":"weather forecast in Paris"}`,
		`{"_id":"q2","text":"` + longQuery + `"}`,
		`{"id":"q3","text":"把这段话翻译成英文"}`,
		`{"id":"q4","text":"a query without judgements"}`,
	}, "\n"))
	qrels = write("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\tweather::forecast\t1\nq2\tsend_email\t1\nq3\ttranslate\t1\nq3\tmissing::tool\t1\n")
	return corpus, queries, qrels
}

// ownProfile is the profile the importer gives the corpus.
func ownProfile(t *testing.T, corpus string) *profile.Profile {
	data, err := os.ReadFile(corpus)
	require.NoError(t, err)
	_, p, err := importer.Import(beir.Format, data)
	require.NoError(t, err)
	return p
}

// overBudget is 1 when longQuery (ASCII) is over p's query budget.
func overBudget(p *profile.Profile) int {
	runes, bytes := p.QueryBudget()
	if len(longQuery) > min(runes, bytes) {
		return 1
	}
	return 0
}

// TestEvalBenchmark runs a hand-made benchmark whose scores are known: three
// tools, three queries, one of them cut to the query budget and one in
// Chinese.
func TestEvalBenchmark(t *testing.T) {
	corpus, queries, qrels := handMadeBenchmark(t)
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
	own := ownProfile(t, corpus)
	require.Equal(t, own.Name, r.Profile, "the format's own profile")
	require.Equal(t, 3, r.Tools)
	require.Equal(t, 3, r.Queries)
	require.Equal(t, 1, r.Unjudged)
	require.Equal(t, overBudget(own), r.Truncated, "the long query is cut to the budget, not refused")
	require.Zero(t, r.Refused)
	require.Equal(t, []string{"missing::tool"}, r.Missing)
	all := r.Slices["all"]
	// q1 and q2 find their tool first; q3 finds one of its two judged tools
	// (the other is missing): recall 1/2, comprehensiveness 0.
	require.Equal(t, 3, all.Queries)
	require.InDelta(t, (1+1+0.5)/3, all.Recall["@5"], 1e-12)
	require.InDelta(t, 2.0/3, all.Comprehensiveness["@5"], 1e-12)
	require.Equal(t, 1, r.Slices["han"].Queries)
	require.Equal(t, 2, r.Slices["no_han"].Queries)
	// Every judged query's search was timed, per slice as the metrics.
	require.NotNil(t, r.BuildMS, "the corpus was built for the run")
	for slice, summary := range r.Slices {
		l := r.Latency[slice]
		require.Equal(t, summary.Queries, l.Queries, slice)
		require.Positive(t, l.P50, slice)
		require.LessOrEqual(t, l.P50, l.P99, slice)
	}

	code, table, stderr := runCLI(t, "", "eval", "--engine", "native", "--corpus", corpus, "--queries", queries, "--qrels", qrels)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, table, "| profile | slice | queries | nDCG@1 | nDCG@5 | nDCG@10 | R@1 | R@5 | R@10 |")
	require.Contains(t, table, "| MRR@10 | zero | build ms | p50 µs | p99 µs |")
	require.Contains(t, table, "1 judged ids match no tool of the catalog")
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

// TestEvalProfiles: each --profile gives one report, in flag order, built
// with that profile; the catalog format's own profile is what runs without
// the flag.
func TestEvalProfiles(t *testing.T) {
	corpus, queries, qrels := handMadeBenchmark(t)
	args := []string{"eval", "--engine", "native", "--corpus", corpus, "--queries", queries, "--qrels", qrels, "--json"}

	code, stdout, stderr := runCLI(t, "", args...)
	require.Equal(t, 0, code, stderr)
	var byDefault benchmarkReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &byDefault), "without --profile: one object")

	code, stdout, stderr = runCLI(t, "", append(args, "--profile", "dws-v1", "--profile", "generic-v1")...)
	require.Equal(t, 0, code, stderr)
	var reports []benchmarkReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &reports), "with --profile: an array")
	require.Len(t, reports, 2)
	require.Equal(t, "dws-v1", reports[0].Profile, "flag order, and the snapshot was built with the profile asked for")
	require.Equal(t, "generic-v1", reports[1].Profile)
	for _, r := range reports {
		require.NotNil(t, r.BuildMS)
		require.GreaterOrEqual(t, *r.BuildMS, 0.0)
		require.Equal(t, 3, r.Queries)
		require.Equal(t, 256, r.QueryRunes, "%s keeps the wire budget", r.Profile)
		require.Equal(t, 2048, r.QueryBytes)
		require.Equal(t, 1, r.Truncated)
	}

	own := ownProfile(t, corpus)
	code, stdout, stderr = runCLI(t, "", append(args, "--profile", own.Name)...)
	require.Equal(t, 0, code, stderr)
	reports = nil
	require.NoError(t, json.Unmarshal([]byte(stdout), &reports), "one --profile is still an array")
	require.Len(t, reports, 1)
	require.Equal(t, own.Name, byDefault.Profile, "without --profile: the format's own")
	require.Equal(t, byDefault.Slices, reports[0].Slices)

	table := args[:len(args)-1]
	code, stdout, stderr = runCLI(t, "", append(table, "--profile", "generic-v1", "--profile", "dws-v1")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "| generic-v1 | all | 3 |")
	require.Contains(t, stdout, "| dws-v1 | all | 3 |")
	require.Less(t, strings.Index(stdout, "| generic-v1 | all |"), strings.Index(stdout, "| dws-v1 | all |"))

	// Every profile cuts queries to its own budget: the long query (433
	// characters) is cut where the budget is shorter.
	for _, name := range profile.Names() {
		code, stdout, stderr = runCLI(t, "", append(args, "--profile", name)...)
		require.Equal(t, 0, code, stderr)
		reports = nil
		require.NoError(t, json.Unmarshal([]byte(stdout), &reports))
		p, _ := profile.Lookup(name)
		runes, bytes := p.QueryBudget()
		r := reports[0]
		require.Equal(t, []int{runes, bytes}, []int{r.QueryRunes, r.QueryBytes}, name)
		require.Equal(t, overBudget(p), r.Truncated, name)
	}

	code, _, stderr = runCLI(t, "", append(args, "--profile", "no-such-profile")...)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown profile "no-such-profile" (known: dws-v1, generic-v1`)
}

// TestEvalProxyProfile re-indexes the built-in DWS catalog with another
// profile: the report names it and times the build, which the stored
// snapshot served as it is does not have.
func TestEvalProxyProfile(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "eval", "--dws-proxy", "--json", "--engine", "native", "--profile", "generic-v1")
	require.Equal(t, 0, code, stderr)
	var reports []proxyReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &reports))
	require.Len(t, reports, 1)
	r := reports[0]
	require.Equal(t, "generic-v1", r.Profile)
	require.NotNil(t, r.BuildMS)
	require.Equal(t, 1149, r.Intent.Cases, "same budget, same intents")
	require.Equal(t, r.Intent.Cases+r.Forbidden.Cases, r.Latency.Queries)
	require.LessOrEqual(t, r.Latency.P50, r.Latency.P99)

	code, stdout, stderr = runCLI(t, "", "eval", "--dws-proxy", "--json", "--engine", "native")
	require.Equal(t, 0, code, stderr)
	var stored proxyReport
	require.NoError(t, json.Unmarshal([]byte(stdout), &stored))
	require.Nil(t, stored.BuildMS, "the stored snapshot is served as it is")
}

func TestSummarizeLatency(t *testing.T) {
	us := func(n ...int) []time.Duration {
		var out []time.Duration
		for _, v := range n {
			out = append(out, time.Duration(v)*time.Microsecond)
		}
		return out
	}
	for _, c := range []struct {
		calls    []time.Duration
		p50, p99 float64
	}{
		{nil, 0, 0},
		{us(7), 7, 7},
		{us(4, 1, 3, 2), 2, 4}, // nearest rank: ceil(0.5*4)=2nd, ceil(0.99*4)=4th
		{append(us(100), us(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)...), 1, 1}, // 1 slow call in 100: beyond p99
	} {
		l := summarizeLatency(c.calls)
		require.Equal(t, len(c.calls), l.Queries)
		require.Equal(t, c.p50, l.P50)
		require.Equal(t, c.p99, l.P99)
	}
	require.Equal(t, 1.5, summarizeLatency([]time.Duration{1500 * time.Nanosecond}).P50, "a tenth of a microsecond is kept")
}

// TestEvalQrelsByCanonicalPath: qrels that name tools by canonical path
// (what search returns) or by a unique bare name score as those that name
// them by corpus id; an id matching nothing is counted and named.
func TestEvalQrelsByCanonicalPath(t *testing.T) {
	corpus, queries, qrels := handMadeBenchmark(t)
	byPath := filepath.Join(filepath.Dir(qrels), "qrels-paths.tsv")
	require.NoError(t, os.WriteFile(byPath, []byte("q1\tweather.forecast\t1\nq2\ttools.send_email\t1\nq3\ttranslate\t1\nq3\tmissing.tool\t1\n"), 0o644))
	var reports []benchmarkReport
	for _, file := range []string{qrels, byPath} {
		code, stdout, stderr := runCLI(t, "", "eval", "--engine", "native", "--corpus", corpus, "--queries", queries, "--qrels", file, "--k", "1,5", "--json")
		require.Equal(t, 0, code, stderr)
		var report benchmarkReport
		require.NoError(t, json.Unmarshal([]byte(stdout), &report))
		reports = append(reports, report)
	}
	require.Equal(t, reports[0].Slices, reports[1].Slices)
	require.Equal(t, []string{"missing.tool"}, reports[1].Missing)
	require.Equal(t, 1, reports[1].MissingCount)
	code, stdout, _ := runCLI(t, "", "eval", "--engine", "native", "--corpus", corpus, "--queries", queries, "--qrels", byPath)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `1 judged ids match no tool of the catalog by canonical path, corpus id or unique name ("missing.tool")`)
}
