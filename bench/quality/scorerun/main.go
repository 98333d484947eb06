// Command scorerun scores a ranking file with the metrics of wasmhost eval
// (internal/quality), so that a ranking made elsewhere, such as the plain
// BM25 reference's, can be scored by both implementations and the two
// compared: make quality checks that they agree.
//
//	scorerun --queries queries.jsonl --qrels qrels.tsv --run run.tsv
//
// run.tsv has "query-id TAB rank TAB corpus-id" lines (rank from 1). It
// prints one JSON object: the number of judged queries and nDCG@10,
// Recall@5, Recall@10, Comp@10 and MRR@10, x100, rounded to 2 decimals as
// the reference prints them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/toolsift/toolsift/internal/quality"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scorerun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	queriesPath := fs.String("queries", "", "queries.jsonl")
	qrelsPath := fs.String("qrels", "", "qrels.tsv")
	runPath := fs.String("run", "", "ranking: query-id, rank, corpus-id")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *queriesPath == "" || *qrelsPath == "" || *runPath == "" {
		fmt.Fprintln(stderr, "scorerun: give --queries, --qrels and --run")
		return 2
	}
	out, err := score(*queriesPath, *qrelsPath, *runPath)
	if err != nil {
		fmt.Fprintf(stderr, "scorerun: %v\n", err)
		return 1
	}
	data, _ := json.Marshal(out)
	fmt.Fprintf(stdout, "%s\n", data)
	return 0
}

func score(queriesPath, qrelsPath, runPath string) (map[string]any, error) {
	f, err := os.Open(queriesPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	queries, err := quality.ReadQueries(f)
	if err != nil {
		return nil, err
	}
	g, err := os.Open(qrelsPath)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	judgements, err := quality.ReadQrels(g)
	if err != nil {
		return nil, err
	}
	ranked, err := readRun(runPath)
	if err != nil {
		return nil, err
	}
	ks := []int{5, 10}
	var scores []quality.Scores
	for _, q := range queries {
		if quality.Relevant(judgements[q.ID]) == 0 {
			continue
		}
		scores = append(scores, quality.Score(ranked[q.ID], judgements[q.ID], ks))
	}
	s := quality.Summarize(scores, ks)
	pct := func(v float64) float64 { return math.Round(v*10000) / 100 }
	return map[string]any{
		"queries": s.Queries, "ndcg@10": pct(s.NDCG["@10"]), "recall@5": pct(s.Recall["@5"]),
		"recall@10": pct(s.Recall["@10"]), "comp@10": pct(s.Comprehensiveness["@10"]), "mrr@10": pct(s.MRR10),
	}, nil
}

func readRun(path string) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return quality.ReadRun(f)
}
