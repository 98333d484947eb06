package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/quality"
)

// runEval measures ranking quality. With --queries and --qrels it runs a
// BEIR-style benchmark against the catalog served (--corpus builds one from
// the benchmark's corpus.jsonl); with --dws-proxy it runs the DWS
// reference's proxy sets, derived from the served catalog itself: every
// use_when sentence is a query whose owner is the gold tool, every
// avoid_when sentence a query whose owner must not appear.
func runEval(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common   engineFlags
		corpus   = fs.String("corpus", "", "a benchmark's corpus.jsonl to index (same as --catalog FILE --format beir)")
		queries  = fs.String("queries", "", "queries.jsonl: one {\"id\",\"text\"} per line")
		qrels    = fs.String("qrels", "", "qrels.tsv: query-id, corpus-id, grade")
		cutoffs  = fs.String("k", "1,5,10", fmt.Sprintf("cut-offs for nDCG, Recall and Comprehensiveness (each 1-%d)", wire.MaxLimit))
		dwsProxy = fs.Bool("dws-proxy", false, "evaluate the served catalog's use_when intents (R@1, R@5, MRR@5) and avoid_when forbidden cases (Forbidden@1, @5), as the DWS reference does")
		name     = fs.String("name", "", "label of the report (default: the queries file's directory)")
		asJSON   = fs.Bool("json", false, "print the report as JSON instead of a table")
	)
	common.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *corpus != "" {
		if common.catalog != "" || common.snapshot != "" {
			fmt.Fprintln(stderr, "wasmhost eval: --corpus cannot be combined with --catalog or --snapshot")
			return 2
		}
		common.catalog, common.format = *corpus, beir.Format
	}
	benchmark := *queries != "" || *qrels != ""
	if benchmark == *dwsProxy || (benchmark && (*queries == "" || *qrels == "")) {
		fmt.Fprintln(stderr, "wasmhost eval: give --queries with --qrels, or --dws-proxy")
		return 2
	}
	ks, err := parseCutoffs(*cutoffs)
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost eval: --k: %v\n", err)
		return 2
	}

	ctx := context.Background()
	snap, err := common.snapshotBytes(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", err)
		return 1
	}
	engine, err := common.openBytes(ctx, snap)
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", err)
		return 1
	}
	defer engine.Close()
	label := *name

	// The catalog itself is read natively, only to list the gold sets and
	// check the judgements; every query goes through the chosen engine.
	body, werr := snapshot.Decode(snap)
	if werr != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", werr)
		return 1
	}
	var report any
	if *dwsProxy {
		if label == "" {
			label = "dws-proxy"
		}
		report, err = evalProxy(ctx, engine, &body.Catalog, label)
	} else {
		if label == "" {
			label = benchmarkName(*queries)
		}
		report, err = evalBenchmark(ctx, engine, &body.Catalog, *queries, *qrels, ks, label)
	}
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost eval: %v\n", err)
		return 1
	}
	if *asJSON {
		out, _ := json.MarshalIndent(report, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	switch r := report.(type) {
	case *benchmarkReport:
		r.writeTable(stdout)
	case *proxyReport:
		r.writeTable(stdout)
	}
	return 0
}

func parseCutoffs(s string) ([]int, error) {
	var ks []int
	for _, part := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || k < 1 || k > wire.MaxLimit {
			return nil, fmt.Errorf("%q is not a cut-off between 1 and %d", part, wire.MaxLimit)
		}
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks, nil
}

func benchmarkName(queriesPath string) string {
	parts := strings.Split(strings.ReplaceAll(queriesPath, "\\", "/"), "/")
	if len(parts) >= 3 {
		return parts[len(parts)-3] + "/" + parts[len(parts)-2]
	}
	return queriesPath
}

// fitQuery cuts a benchmark query to the request budget (some benchmark
// queries are whole dialogues): at most MaxQueryRunes runes and
// MaxQueryBytes bytes, cut at a rune boundary. An agent would have to do
// the same.
func fitQuery(text string) (string, bool) {
	runes := 0
	for i, r := range text {
		if runes == wire.MaxQueryRunes || i+utf8.RuneLen(r) > wire.MaxQueryBytes {
			return text[:i], true
		}
		runes++
	}
	return text, false
}

// rankedPaths searches and returns the candidates' canonical paths, best
// first. A request the engine refuses (a query of control characters, say)
// ranks nothing; refused says so.
func rankedPaths(ctx context.Context, engine backend, query string, limit int) (paths []string, refused bool, err error) {
	request, _ := json.Marshal(map[string]any{
		"version": wire.SearchVersion, "query": query, "limit": limit, "candidate_limit": max(wire.DefaultCandidateLimit, limit),
	})
	out, werr := engine.Search(ctx, request)
	if werr != nil {
		if werr.Category == wire.CategoryValidation {
			return nil, true, nil
		}
		return nil, false, werr
	}
	var response struct {
		Candidates []struct {
			CanonicalPath string `json:"canonical_path"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(out, &response); err != nil {
		return nil, false, fmt.Errorf("response is not JSON: %w", err)
	}
	for _, c := range response.Candidates {
		paths = append(paths, c.CanonicalPath)
	}
	return paths, false, nil
}

// benchmarkReport is the result of one BEIR-style benchmark.
type benchmarkReport struct {
	Name      string   `json:"name"`
	Engine    string   `json:"engine"`
	Profile   string   `json:"profile"`
	Tools     int      `json:"tools"`
	Ks        []int    `json:"k"`
	Queries   int      `json:"queries"`
	Unjudged  int      `json:"queries_without_relevant_tools"`
	Truncated int      `json:"queries_cut_to_budget"`
	Refused   int      `json:"queries_refused"`
	Missing   []string `json:"judged_tools_missing_from_catalog,omitempty"`
	// Slices: "all", and "han" / "no_han" (queries with or without Han
	// characters).
	Slices map[string]quality.Summary `json:"slices"`
}

func evalBenchmark(ctx context.Context, engine backend, cat *catalog.Catalog, queriesPath, qrelsPath string, ks []int, label string) (*benchmarkReport, error) {
	queriesFile, err := os.Open(queriesPath)
	if err != nil {
		return nil, err
	}
	defer queriesFile.Close()
	queries, err := quality.ReadQueries(queriesFile)
	if err != nil {
		return nil, err
	}
	qrelsFile, err := os.Open(qrelsPath)
	if err != nil {
		return nil, err
	}
	defer qrelsFile.Close()
	judgements, err := quality.ReadQrels(qrelsFile)
	if err != nil {
		return nil, err
	}

	info := engine.Info()
	report := &benchmarkReport{Name: label, Engine: info.Engine, Profile: info.Profile, Tools: info.ToolCount, Ks: ks, Slices: map[string]quality.Summary{}}
	inCatalog := map[string]bool{}
	for p := range cat.Products {
		for t := range cat.Products[p].Tools {
			inCatalog[cat.Products[p].Tools[t].Identity.CanonicalPath] = true
		}
	}
	for _, query := range slices.Sorted(maps.Keys(judgements)) {
		for _, id := range slices.Sorted(maps.Keys(judgements[query])) {
			if judgements[query][id] > 0 && !inCatalog[beir.CanonicalPath(id)] {
				report.Missing = append(report.Missing, id)
			}
		}
	}
	limit := ks[len(ks)-1]
	bySlice := map[string][]quality.Scores{}
	for _, q := range queries {
		judged := map[string]int{} // by canonical path
		relevant := 0
		for _, id := range slices.Sorted(maps.Keys(judgements[q.ID])) {
			judged[beir.CanonicalPath(id)] = judgements[q.ID][id]
			if judgements[q.ID][id] > 0 {
				relevant++
			}
		}
		if relevant == 0 {
			report.Unjudged++
			continue
		}
		text, cut := fitQuery(q.Text)
		if cut {
			report.Truncated++
		}
		ranked, refused, err := rankedPaths(ctx, engine, text, limit)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		if refused {
			report.Refused++
		}
		scores := quality.Score(ranked, judged, ks)
		slice := "no_han"
		if quality.HasHan(q.Text) {
			slice = "han"
		}
		bySlice["all"] = append(bySlice["all"], scores)
		bySlice[slice] = append(bySlice[slice], scores)
		report.Queries++
	}
	for _, name := range []string{"all", "han", "no_han"} {
		if len(bySlice[name]) > 0 {
			report.Slices[name] = quality.Summarize(bySlice[name], ks)
		}
	}
	return report, nil
}

func (r *benchmarkReport) writeTable(w io.Writer) {
	fmt.Fprintf(w, "%s: %d tools, %d queries (%d cut to the query budget, %d refused, %d without a relevant tool skipped); %s engine, profile %s\n",
		r.Name, r.Tools, r.Queries, r.Truncated, r.Refused, r.Unjudged, r.Engine, r.Profile)
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "%d judged tools are not in the catalog (first: %q); no ranking can find them\n", len(r.Missing), r.Missing[0])
	}
	fmt.Fprintln(w)
	header := []string{"slice", "queries"}
	for _, k := range r.Ks {
		header = append(header, fmt.Sprintf("nDCG@%d", k))
	}
	for _, k := range r.Ks {
		header = append(header, fmt.Sprintf("R@%d", k))
	}
	for _, k := range r.Ks {
		header = append(header, fmt.Sprintf("C@%d", k))
	}
	header = append(header, "MRR@10", "zero")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, name := range []string{"all", "han", "no_han"} {
		s, ok := r.Slices[name]
		if !ok {
			continue
		}
		row := []string{name, strconv.Itoa(s.Queries)}
		for _, metric := range []map[string]float64{s.NDCG, s.Recall, s.Comprehensiveness} {
			for _, k := range r.Ks {
				row = append(row, fmt.Sprintf("%.4f", metric["@"+strconv.Itoa(k)]))
			}
		}
		row = append(row, fmt.Sprintf("%.4f", s.MRR10), fmt.Sprintf("%.4f", s.ZeroResultRate))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

// proxyReport is the DWS reference's intent and forbidden evaluation.
type proxyReport struct {
	Name                string                    `json:"name"`
	Engine              string                    `json:"engine"`
	Profile             string                    `json:"profile"`
	Tools               int                       `json:"tools"`
	Intent              quality.Proxy             `json:"intent"`
	IntentSlices        map[string]*quality.Proxy `json:"intent_slices"`
	IntentOverBudget    int                       `json:"intent_excluded_over_budget"`
	Forbidden           quality.Forbidden         `json:"forbidden"`
	ForbiddenOverBudget int                       `json:"forbidden_excluded_over_budget"`
}

// evalProxy follows the reference's evaluator: limit 5, candidate limit 20;
// sentences over the query budget are counted and left out, not cut.
func evalProxy(ctx context.Context, engine backend, cat *catalog.Catalog, label string) (*proxyReport, error) {
	info := engine.Info()
	report := &proxyReport{Name: label, Engine: info.Engine, Profile: info.Profile, Tools: info.ToolCount, IntentSlices: map[string]*quality.Proxy{}}
	type intent struct{ query, gold string }
	var intents []intent
	type negative struct{ query, owner string }
	var negatives []negative
	for p := range cat.Products {
		for t := range cat.Products[p].Tools {
			tool := &cat.Products[p].Tools[t]
			for _, q := range tool.Selection.UseWhen {
				if q == "" {
					continue
				}
				if !withinBudget(q) {
					report.IntentOverBudget++
					continue
				}
				intents = append(intents, intent{q, tool.Identity.CanonicalPath})
			}
			for _, q := range tool.Selection.AvoidWhen {
				if q == "" {
					continue
				}
				if !withinBudget(q) {
					report.ForbiddenOverBudget++
					continue
				}
				negatives = append(negatives, negative{q, tool.Identity.CanonicalPath})
			}
		}
	}
	sort.Slice(intents, func(i, j int) bool {
		if intents[i].gold != intents[j].gold {
			return intents[i].gold < intents[j].gold
		}
		return intents[i].query < intents[j].query
	})
	for _, c := range intents {
		ranked, _, err := rankedPaths(ctx, engine, c.query, 5)
		if err != nil {
			return nil, fmt.Errorf("intent %q: %w", c.query, err)
		}
		rank := rankOf(ranked, c.gold)
		report.Intent.Observe(rank, len(ranked) == 0)
		slice := quality.LanguageSlice(c.query)
		if report.IntentSlices[slice] == nil {
			report.IntentSlices[slice] = &quality.Proxy{}
		}
		report.IntentSlices[slice].Observe(rank, len(ranked) == 0)
	}
	for _, c := range negatives {
		ranked, _, err := rankedPaths(ctx, engine, c.query, 5)
		if err != nil {
			return nil, fmt.Errorf("forbidden %q: %w", c.query, err)
		}
		report.Forbidden.Observe(rankOf(ranked, c.owner))
	}
	return report, nil
}

func withinBudget(q string) bool {
	return len(q) <= wire.MaxQueryBytes && utf8.RuneCountInString(q) <= wire.MaxQueryRunes
}

func rankOf(ranked []string, path string) int {
	for i, p := range ranked {
		if p == path {
			return i + 1
		}
	}
	return 0
}

func (r *proxyReport) writeTable(w io.Writer) {
	fmt.Fprintf(w, "%s: %d tools; %s engine, profile %s; %d intents and %d forbidden sentences over the query budget left out\n\n",
		r.Name, r.Tools, r.Engine, r.Profile, r.IntentOverBudget, r.ForbiddenOverBudget)
	fmt.Fprintln(w, "| set | cases | R@1 | R@5 | MRR@5 | zero | Forbidden@1 | Forbidden@5 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	row := func(name string, p *quality.Proxy) {
		fmt.Fprintf(w, "| %s | %d | %.2f%% | %.2f%% | %.4f | %.2f%% | | |\n", name, p.Cases, 100*p.RecallAt1, 100*p.RecallAt5, p.MRRAt5, 100*p.ZeroResultRate)
	}
	row("intent (use_when)", &r.Intent)
	for _, slice := range []string{"chinese_only", "mixed_chinese_ascii", "non_chinese"} {
		if p := r.IntentSlices[slice]; p != nil {
			row("intent, "+slice, p)
		}
	}
	fmt.Fprintf(w, "| forbidden (avoid_when) | %d | | | | | %.2f%% | %.3f%% |\n", r.Forbidden.Cases, 100*r.Forbidden.ForbiddenAt1, 100*r.Forbidden.ForbiddenAt5)
}
