// Command modulecompare times builds of toolsearch.wasm against each other in
// the Go host (wazero), alternating them so that the machine's drift falls on
// all alike: every round runs all DWS intents through each build for the
// given time, and the median of the rounds is reported per build. The Node
// and Python versions beside it do the same in those hosts.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o /tmp/a.wasm ./wasm/module   # one build
//	go run ./bench/modulecompare -queries bench/results/data/dws/queries.jsonl /tmp/a.wasm /tmp/b.wasm
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/toolsift/toolsift/hostapi"
	"github.com/toolsift/toolsift/internal/fixtures"
)

func main() {
	queries := flag.String("queries", "bench/results/data/dws/queries.jsonl", "queries, one JSON object with a \"text\" per line (make bench writes this file)")
	rounds := flag.Int("rounds", 7, "rounds; each runs every build once")
	seconds := flag.Float64("seconds", 1.5, "time per build per round")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modulecompare [flags] a.wasm [b.wasm …]")
		os.Exit(2)
	}
	requests, err := readRequests(*queries)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	engines := make([]*hostapi.Engine, flag.NArg())
	for i, path := range flag.Args() {
		module, err := os.ReadFile(path)
		if err == nil {
			engines[i], err = hostapi.Open(ctx, fixtures.DWSSnapshot, hostapi.WithModule(module), hostapi.WithMaxInstances(1))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
	}
	perQuery := make([][]float64, len(engines)) // µs, one per round
	budget := time.Duration(*seconds * float64(time.Second))
	for range *rounds {
		for i, e := range engines {
			start, n := time.Now(), 0
			for time.Since(start) < budget {
				for _, r := range requests {
					if _, err := e.Search(ctx, r); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
					n++
				}
			}
			perQuery[i] = append(perQuery[i], float64(time.Since(start).Microseconds())/float64(n))
		}
	}
	for i, path := range flag.Args() {
		fmt.Printf("%s: median %.1f µs per query; rounds %s\n", path, median(perQuery[i]), format(perQuery[i]))
	}
}

func readRequests(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var requests [][]byte
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		request, _ := json.Marshal(map[string]string{"version": "tool-search.v1", "query": q.Text})
		requests = append(requests, request)
	}
	return requests, scanner.Err()
}

func median(values []float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

func format(values []float64) string {
	out := ""
	for i, v := range values {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%.1f", v)
	}
	return out
}
