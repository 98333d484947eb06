package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScoreByHand: two judged queries (one with two relevant tools), one
// query without judgements; the run lists ranks out of order.
func TestScoreByHand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	queries := write("queries.jsonl", `{"_id":"q1","text":"a"}`+"\n"+`{"id":"q2","text":"b"}`+"\n"+`{"id":"q3","text":"c"}`)
	qrels := write("qrels.tsv", "q1\ta\t1\nq2\tb\t1\nq2\tc\t1\n")
	// q1: a at rank 2; q2: b at rank 1, c absent.
	run := write("run.tsv", "q1\t2\ta\nq1\t1\tx\nq2\t1\tb\nq3\t1\ta\n")

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, runArgs(t, []string{"--queries", queries, "--qrels", qrels, "--run", run}, &stdout, &stderr), stderr.String())
	var got map[string]float64
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	// nDCG@10: q1 (1/log2 3)/1 = 0.6309, q2 1/(1 + 1/log2 3) = 0.6131.
	require.Equal(t, map[string]float64{
		"queries": 2, "ndcg@10": 62.2, "recall@5": 75, "recall@10": 75, "comp@10": 50, "mrr@10": 75,
	}, got)

	bad := write("bad.tsv", "q1\tfirst\ta\n")
	require.Equal(t, 1, runArgs(t, []string{"--queries", queries, "--qrels", qrels, "--run", bad}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "rank \"first\"")
	require.Equal(t, 2, runArgs(t, []string{"--queries", queries}, &stdout, &stderr))
}

func runArgs(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	t.Helper()
	stdout.Reset()
	stderr.Reset()
	return run(args, stdout, stderr)
}
