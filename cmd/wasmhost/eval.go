package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolsift/toolsift/catalogs/dws"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
	"github.com/toolsift/toolsift/internal/evalset"
	"github.com/toolsift/toolsift/internal/quality"
)

// runEval measures ranking quality. With --queries and --qrels it runs a
// BEIR-style benchmark against the catalog served (--corpus builds one from
// the benchmark's corpus.jsonl); with --dws-proxy it runs the DWS
// reference's proxy sets, derived from the served catalog itself: every
// use_when sentence is a query whose owner is the gold tool, every
// avoid_when sentence a query whose owner must not appear. Each --profile
// gives one report, side by side.
func runEval(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common   engineFlags
		profiles profileList
		corpus   = fs.String("corpus", "", "a benchmark's corpus.jsonl to index (same as --catalog FILE --format beir)")
		queries  = fs.String("queries", "", "queries.jsonl: one {\"id\" or \"_id\", \"text\"} per line")
		qrels    = fs.String("qrels", "", "qrels.tsv: query-id, tool, grade (an optional header line); the tool by corpus id, canonical path or a bare name only one tool has")
		cutoffs  = fs.String("k", "1,5,10", fmt.Sprintf("cut-offs for nDCG, Recall and Comprehensiveness (each 1-%d)", wire.MaxLimit))
		dwsProxy = fs.Bool("dws-proxy", false, "evaluate the served catalog's use_when intents (R@1, R@5, MRR@5) and avoid_when forbidden cases (Forbidden@1, @5), as the DWS reference does")
		name     = fs.String("name", "", "label of the report (default: the queries file's directory)")
		asJSON   = fs.Bool("json", false, "print the report as JSON instead of a table (with --profile: an array, one report per profile in flag order)")
	)
	common.register(fs)
	fs.Var(&profiles, "profile", "rank with this profile instead of the catalog format's own; repeat to compare profiles side by side (known: "+strings.Join(evalset.Profiles(), ", ")+")")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if *corpus != "" {
		if common.catalog != "" || common.snapshot != "" {
			fmt.Fprintln(stderr, "wasmhost eval: --corpus cannot be combined with --catalog or --snapshot")
			return 2
		}
		common.catalog, common.format = *corpus, evalset.BEIRFormat
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
	if common.snapshot != "" && common.catalog != "" {
		fmt.Fprintln(stderr, "wasmhost eval: --snapshot and --catalog are mutually exclusive")
		return 2
	}
	if common.engine != "wasm" && common.engine != "native" {
		fmt.Fprintf(stderr, "wasmhost eval: unknown --engine %q (wasm or native)\n", common.engine)
		return 2
	}
	chosen := []string(profiles)
	for _, n := range chosen {
		if err := evalset.CheckProfile(n); err != nil {
			fmt.Fprintf(stderr, "wasmhost eval: --profile: %v\n", err)
			return 2
		}
	}
	label := *name
	if label == "" {
		label = "dws-proxy"
		if benchmark {
			label = benchmarkName(*queries)
		}
	}

	ctx := context.Background()
	runs := chosen
	if len(runs) == 0 {
		runs = []string{""} // the format's (or the snapshot's) own
	}
	var benchmarks []*benchmarkReport
	var proxies []*proxyReport
	for _, p := range runs {
		snap, tools, heldOut, buildMS, skipped, err := evalSnapshot(&common, p, *dwsProxy)
		if err != nil {
			return fail(stderr, err)
		}
		if err := func() error {
			engine, err := common.openBytes(ctx, snap)
			if err != nil {
				return err
			}
			defer engine.Close(ctx)
			// The catalog itself is read natively (evalset), only to list
			// the gold sets and check the judgements; every query goes
			// through the chosen engine.
			if *dwsProxy {
				r, err := evalProxy(ctx, engine, tools, label)
				if err != nil {
					return err
				}
				r.UseWhenHeldOut = heldOut
				r.BuildMS = buildMS
				proxies = append(proxies, r)
				return nil
			}
			r, err := evalBenchmark(ctx, engine, tools, *queries, *qrels, ks, label)
			if err != nil {
				return err
			}
			r.BuildMS = buildMS
			r.Skipped = skipped
			benchmarks = append(benchmarks, r)
			return nil
		}(); err != nil {
			return fail(stderr, err)
		}
	}
	if *asJSON {
		// Without --profile there is one report, printed as the object it
		// always was; with --profile an array, whatever its length, so
		// that a script gets one shape for one set of flags.
		var report any = benchmarks
		switch {
		case *dwsProxy && len(chosen) == 0:
			report = proxies[0]
		case *dwsProxy:
			report = proxies
		case len(chosen) == 0:
			report = benchmarks[0]
		}
		out, _ := json.MarshalIndent(report, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return 0
	}
	if *dwsProxy {
		writeProxyTable(stdout, proxies)
	} else {
		writeBenchmarkTable(stdout, benchmarks)
	}
	return 0
}

// profileList is the repeatable --profile flag.
type profileList []string

func (l *profileList) String() string { return strings.Join(*l, ",") }

func (l *profileList) Set(name string) error {
	*l = append(*l, name)
	return nil
}

// evalSnapshot returns the snapshot to evaluate profileName on ("" keeps
// the format's or the snapshot's own), the tools of the catalog whose
// intents the DWS proxy asks (as imported), and how long building it took
// in milliseconds (nil when a stored snapshot is served as it is). A
// catalog is imported and indexed natively (evalset), whichever engine then
// serves it: both engines build the same bytes, and the native build is the
// one whose time means something. With a stored snapshot (--snapshot, or
// the built-in DWS one) and a profile, its catalog is re-indexed with that
// profile.
//
// For the proxy (holdOut), a profile that indexes use_when is served the
// catalog without its use_when sentences (heldOut reports it): they are the
// proxy's queries, and indexed they would be found by copying (generic-v2
// would score R@1 99%).
func evalSnapshot(f *engineFlags, profileName string, holdOut bool) (snap []byte, tools []evalset.Tool, heldOut bool, buildMS *float64, skipped []evalset.Skipped, err error) {
	var cat *evalset.Catalog
	var start time.Time
	if f.catalog != "" {
		data, err := readCatalog(f.format, f.catalog)
		if err != nil {
			return nil, nil, false, nil, nil, err
		}
		start = time.Now()
		if cat, err = evalset.Import(f.format, data); err != nil {
			return nil, nil, false, nil, nil, stage("import catalog", "invalid_catalog", err)
		}
	} else {
		stored := dws.Snapshot()
		if f.snapshot != "" || f.snapshotSet {
			if stored, err = f.storedSnapshot(); err != nil {
				return nil, nil, false, nil, nil, err
			}
		}
		if cat, err = evalset.Decode(stored); err != nil {
			return nil, nil, false, nil, nil, err
		}
		start = time.Now()
	}
	snap, heldOut, built, err := cat.Serve(profileName, holdOut)
	if err != nil {
		return nil, nil, false, nil, nil, err
	}
	if built {
		buildMS = milliseconds(time.Since(start))
	}
	return snap, cat.Tools(), heldOut, buildMS, cat.Skipped(), nil
}

func milliseconds(d time.Duration) *float64 {
	ms := math.Round(float64(d.Microseconds())/10) / 100
	return &ms
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

// queryBudget is the longest query, in characters and in UTF-8 bytes,
// that the profile an engine serves lets through its validation.
func queryBudget(engine *hostapi.Engine) (runes, bytes int) {
	return evalset.QueryBudget(engine.Info().Profile)
}

// rankedPaths searches and returns the candidates' canonical paths, best
// first, and how long the search call took. A request the engine refuses
// (a query of control characters, say) ranks nothing; refused says so.
func rankedPaths(ctx context.Context, engine *hostapi.Engine, query string, limit int) (paths []string, took time.Duration, refused bool, err error) {
	request, _ := json.Marshal(map[string]any{
		"version": wire.SearchVersion, "query": query, "limit": limit, "candidate_limit": max(wire.DefaultCandidateLimit, limit),
	})
	start := time.Now()
	out, searchErr := engine.Search(ctx, request)
	took = time.Since(start)
	if werr := typed(searchErr); werr != nil {
		if werr.Category == wire.CategoryValidation {
			return nil, took, true, nil
		}
		return nil, took, false, werr
	}
	var response struct {
		Candidates []struct {
			CanonicalPath string `json:"canonical_path"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(out, &response); err != nil {
		return nil, took, false, fmt.Errorf("response is not JSON: %w", err)
	}
	for _, c := range response.Candidates {
		paths = append(paths, c.CanonicalPath)
	}
	return paths, took, false, nil
}

// Latency summarises the time of the search calls of a set of queries, in
// microseconds: nearest-rank percentiles of the calls as measured, so it
// varies from run to run, unlike every other figure of a report.
type Latency struct {
	Queries int     `json:"queries"`
	P50     float64 `json:"p50_us"`
	P99     float64 `json:"p99_us"`
}

func summarizeLatency(calls []time.Duration) Latency {
	l := Latency{Queries: len(calls)}
	if len(calls) == 0 {
		return l
	}
	sorted := slices.Clone(calls)
	slices.Sort(sorted)
	at := func(q float64) float64 {
		rank := int(math.Ceil(q * float64(len(sorted))))
		return math.Round(float64(sorted[max(rank, 1)-1].Nanoseconds())/100) / 10
	}
	l.P50, l.P99 = at(0.50), at(0.99)
	return l
}

// benchmarkReport is the result of one BEIR-style benchmark.
type benchmarkReport struct {
	Name      string `json:"name"`
	Engine    string `json:"engine"`
	Profile   string `json:"profile"`
	Tools     int    `json:"tools"`
	Ks        []int  `json:"k"`
	Queries   int    `json:"queries"`
	Unjudged  int    `json:"queries_without_relevant_tools"`
	Truncated int    `json:"queries_cut_to_budget"`
	Refused   int    `json:"queries_refused"`
	// Missing names the judged ids that match no tool of the catalog (by
	// canonical path, corpus id or a unique bare name); MissingCount
	// counts them.
	Missing      []string `json:"judged_tools_missing_from_catalog,omitempty"`
	MissingCount int      `json:"judged_tools_missing_count"`
	// Skipped lists the corpus's tools the importer left out, and why
	// (the first importer.MaxListed).
	Skipped []evalset.Skipped `json:"tools_skipped_at_import,omitempty"`
	// QueryRunes and QueryBytes are the query budget the queries were cut
	// to: the served profile's.
	QueryRunes int `json:"query_budget_runes"`
	QueryBytes int `json:"query_budget_bytes"`
	// BuildMS is the time of the import and index (null when a stored
	// snapshot was served as it is).
	BuildMS *float64 `json:"build_ms"`
	// Slices: "all", and "han" / "no_han" (queries with or without Han
	// characters); Latency has the same keys.
	Slices  map[string]quality.Summary `json:"slices"`
	Latency map[string]Latency         `json:"latency_us"`
}

func evalBenchmark(ctx context.Context, engine *hostapi.Engine, tools []evalset.Tool, queriesPath, qrelsPath string, ks []int, label string) (*benchmarkReport, error) {
	// The benchmark's files are the caller's input: a missing or malformed
	// one is a validation error naming the file, not the host's failure.
	queriesFile, err := os.Open(queriesPath)
	if err != nil {
		return nil, stage("read queries", "read_queries_failed", err)
	}
	defer queriesFile.Close()
	queries, err := quality.ReadQueries(queriesFile)
	if err != nil {
		return nil, stage("read queries "+queriesPath, "invalid_queries", err)
	}
	qrelsFile, err := os.Open(qrelsPath)
	if err != nil {
		return nil, stage("read qrels", "read_qrels_failed", err)
	}
	defer qrelsFile.Close()
	judgements, err := quality.ReadQrels(qrelsFile)
	if err != nil {
		return nil, stage("read qrels "+qrelsPath, "invalid_qrels", err)
	}

	info := infoOf(engine)
	report := &benchmarkReport{Name: label, Engine: info.Engine, Profile: info.Profile, Tools: info.ToolCount, Ks: ks,
		Slices: map[string]quality.Summary{}, Latency: map[string]Latency{}}
	report.QueryRunes, report.QueryBytes = queryBudget(engine)
	resolve := judgedToolResolver(tools)
	unmatched := map[string]bool{}
	for _, query := range slices.Sorted(maps.Keys(judgements)) {
		for _, id := range slices.Sorted(maps.Keys(judgements[query])) {
			if _, ok := resolve(id); !ok && judgements[query][id] > 0 && !unmatched[id] {
				unmatched[id] = true
				report.Missing = append(report.Missing, id)
			}
		}
	}
	report.MissingCount = len(report.Missing)
	limit := ks[len(ks)-1]
	bySlice := map[string][]quality.Scores{}
	timesBySlice := map[string][]time.Duration{}
	for _, q := range queries {
		judged := map[string]int{} // by canonical path
		relevant := 0
		for _, id := range slices.Sorted(maps.Keys(judgements[q.ID])) {
			path, ok := resolve(id)
			if !ok {
				path = evalset.CorpusPath(id) // in no ranking, but counted as relevant
			}
			judged[path] = max(judged[path], judgements[q.ID][id])
			if judgements[q.ID][id] > 0 {
				relevant++
			}
		}
		if relevant == 0 {
			report.Unjudged++
			continue
		}
		text, cut := quality.FitQuery(q.Text, report.QueryRunes, report.QueryBytes)
		if cut {
			report.Truncated++
		}
		ranked, took, refused, err := rankedPaths(ctx, engine, text, limit)
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
		timesBySlice["all"] = append(timesBySlice["all"], took)
		timesBySlice[slice] = append(timesBySlice[slice], took)
		report.Queries++
	}
	for _, name := range []string{"all", "han", "no_han"} {
		if len(bySlice[name]) > 0 {
			report.Slices[name] = quality.Summarize(bySlice[name], ks)
			report.Latency[name] = summarizeLatency(timesBySlice[name])
		}
	}
	return report, nil
}

// judgedToolResolver maps an id of a qrels file to the canonical path of a
// tool in cat, in this order: the id is a canonical path ("server.tool",
// what search returns); a corpus id ("server::tool", beir.CanonicalPath);
// a bare tool name that exactly one tool has. ok is false when none
// matches.
func judgedToolResolver(tools []evalset.Tool) func(id string) (string, bool) {
	paths := map[string]bool{}
	byName := map[string]string{} // name → path, "" when two tools share it
	for _, tool := range tools {
		paths[tool.CanonicalPath] = true
		if _, seen := byName[tool.Name]; seen {
			byName[tool.Name] = ""
		} else {
			byName[tool.Name] = tool.CanonicalPath
		}
	}
	return func(id string) (string, bool) {
		if paths[id] {
			return id, true
		}
		if path := evalset.CorpusPath(id); paths[path] {
			return path, true
		}
		if path := byName[id]; path != "" {
			return path, true
		}
		return "", false
	}
}

// writeBenchmarkTable prints one line about each report, then one table
// with a row per profile and slice.
func writeBenchmarkTable(w io.Writer, reports []*benchmarkReport) {
	for _, r := range reports {
		fmt.Fprintf(w, "%s: %d tools, %d queries (%d cut to the query budget of %d characters, %d refused, %d without a relevant tool skipped); %s engine, profile %s, built in %s\n",
			r.Name, r.Tools, r.Queries, r.Truncated, r.QueryRunes, r.Refused, r.Unjudged, r.Engine, r.Profile, buildTime(r.BuildMS))
		if len(r.Skipped) > 0 {
			fmt.Fprintf(w, "%d tools skipped at import (first: %s: %s)\n", len(r.Skipped), r.Skipped[0].Tool, r.Skipped[0].Reason)
		}
		if len(r.Missing) > 0 {
			fmt.Fprintf(w, "%d judged ids match no tool of the catalog by canonical path, corpus id or unique name (%s); no ranking can find them\n", len(r.Missing), quoteFirst(r.Missing, 5))
		}
	}
	if len(reports) == 0 {
		return
	}
	fmt.Fprintln(w)
	ks := reports[0].Ks
	header := []string{"profile", "slice", "queries"}
	for _, k := range ks {
		header = append(header, fmt.Sprintf("nDCG@%d", k))
	}
	for _, k := range ks {
		header = append(header, fmt.Sprintf("R@%d", k))
	}
	for _, k := range ks {
		header = append(header, fmt.Sprintf("C@%d", k))
	}
	header = append(header, "MRR@10", "zero", "build ms", "p50 µs", "p99 µs")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range reports {
		for _, name := range []string{"all", "han", "no_han"} {
			s, ok := r.Slices[name]
			if !ok {
				continue
			}
			row := []string{r.Profile, name, strconv.Itoa(s.Queries)}
			for _, metric := range []map[string]float64{s.NDCG, s.Recall, s.Comprehensiveness} {
				for _, k := range ks {
					row = append(row, fmt.Sprintf("%.4f", metric["@"+strconv.Itoa(k)]))
				}
			}
			build := ""
			if name == "all" && r.BuildMS != nil {
				build = fmt.Sprintf("%.0f", *r.BuildMS)
			}
			l := r.Latency[name]
			row = append(row, fmt.Sprintf("%.4f", s.MRR10), fmt.Sprintf("%.4f", s.ZeroResultRate), build, fmt.Sprintf("%.0f", l.P50), fmt.Sprintf("%.0f", l.P99))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
}

func buildTime(ms *float64) string {
	if ms == nil {
		return "- (a stored snapshot)"
	}
	return fmt.Sprintf("%.0f ms", *ms)
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
	QueryRunes          int                       `json:"query_budget_runes"`
	QueryBytes          int                       `json:"query_budget_bytes"`
	BuildMS             *float64                  `json:"build_ms"`
	// UseWhenHeldOut: the served catalog's use_when sentences were left
	// out of the index, because the profile indexes them and they are the
	// intents asked.
	UseWhenHeldOut bool `json:"use_when_held_out"`
	// Latency is over every search: intents and forbidden cases.
	Latency Latency `json:"latency_us"`
}

// evalProxy follows the reference's evaluator: limit 5, candidate limit 20;
// sentences over the query budget are counted and left out, not cut.
func evalProxy(ctx context.Context, engine *hostapi.Engine, tools []evalset.Tool, label string) (*proxyReport, error) {
	info := infoOf(engine)
	report := &proxyReport{Name: label, Engine: info.Engine, Profile: info.Profile, Tools: info.ToolCount, IntentSlices: map[string]*quality.Proxy{}}
	report.QueryRunes, report.QueryBytes = queryBudget(engine)
	var calls []time.Duration
	proxyTools := make([]quality.ProxyTool, len(tools))
	for i, t := range tools {
		proxyTools[i] = quality.ProxyTool{CanonicalPath: t.CanonicalPath, Description: t.Description, UseWhen: t.UseWhen, AvoidWhen: t.AvoidWhen}
	}
	intents, negatives, intentsOver, negativesOver := quality.ProxySets(proxyTools, report.QueryRunes, report.QueryBytes)
	report.IntentOverBudget, report.ForbiddenOverBudget = intentsOver, negativesOver
	for _, c := range intents {
		ranked, took, _, err := rankedPaths(ctx, engine, c.Query, 5)
		if err != nil {
			return nil, fmt.Errorf("intent %q: %w", c.Query, err)
		}
		calls = append(calls, took)
		rank := rankOf(ranked, c.Tool)
		report.Intent.Observe(rank, len(ranked) == 0)
		for _, slice := range []string{quality.LanguageSlice(c.Query), quality.CopiedSlice(c.Query, c.Description)} {
			if report.IntentSlices[slice] == nil {
				report.IntentSlices[slice] = &quality.Proxy{}
			}
			report.IntentSlices[slice].Observe(rank, len(ranked) == 0)
		}
	}
	for _, c := range negatives {
		ranked, took, _, err := rankedPaths(ctx, engine, c.Query, 5)
		if err != nil {
			return nil, fmt.Errorf("forbidden %q: %w", c.Query, err)
		}
		calls = append(calls, took)
		report.Forbidden.Observe(rankOf(ranked, c.Tool))
	}
	report.Latency = summarizeLatency(calls)
	return report, nil
}

func rankOf(ranked []string, path string) int {
	for i, p := range ranked {
		if p == path {
			return i + 1
		}
	}
	return 0
}

// writeProxyTable prints one line about each report, then one table with
// the rows of every profile.
func writeProxyTable(w io.Writer, reports []*proxyReport) {
	for _, r := range reports {
		heldOut := ""
		if r.UseWhenHeldOut {
			heldOut = " (use_when held out of the index: the intents are those sentences)"
		}
		fmt.Fprintf(w, "%s: %d tools; %s engine, profile %s%s, built in %s; %d intents and %d forbidden sentences over the query budget of %d characters left out; search p50 %.0f µs, p99 %.0f µs over %d calls\n",
			r.Name, r.Tools, r.Engine, r.Profile, heldOut, buildTime(r.BuildMS), r.IntentOverBudget, r.ForbiddenOverBudget, r.QueryRunes, r.Latency.P50, r.Latency.P99, r.Latency.Queries)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| profile | set | cases | R@1 | R@5 | MRR@5 | zero | Forbidden@1 | Forbidden@5 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range reports {
		row := func(name string, p *quality.Proxy) {
			fmt.Fprintf(w, "| %s | %s | %d | %.2f%% | %.2f%% | %.4f | %.2f%% | | |\n", r.Profile, name, p.Cases, 100*p.RecallAt1, 100*p.RecallAt5, p.MRRAt5, 100*p.ZeroResultRate)
		}
		row("intent (use_when)", &r.Intent)
		for _, slice := range []string{"chinese_only", "mixed_chinese_ascii", "non_chinese", "in_description", "not_in_description"} {
			if p := r.IntentSlices[slice]; p != nil {
				row("intent, "+slice, p)
			}
		}
		fmt.Fprintf(w, "| %s | forbidden (avoid_when) | %d | | | | | %.2f%% | %.3f%% |\n", r.Profile, r.Forbidden.Cases, 100*r.Forbidden.ForbiddenAt1, 100*r.Forbidden.ForbiddenAt5)
	}
}

// quoteFirst quotes the first n of list, saying how many more there are.
func quoteFirst(list []string, n int) string {
	var parts []string
	for i, s := range list {
		if i == n {
			parts = append(parts, fmt.Sprintf("… and %d more", len(list)-n))
			break
		}
		parts = append(parts, strconv.Quote(s))
	}
	return strings.Join(parts, ", ")
}
