package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/toolsift/toolsift/bench/harness"
	"github.com/toolsift/toolsift/internal/quality"
)

const (
	startMarker = "<!-- bench:start -->"
	endMarker   = "<!-- bench:end -->"
	heading     = "## Against the alternatives (make bench)"
)

// The order of rows: each host's toolsift first, then its peers.
var rowOrder = []string{
	"toolsift native core", "toolsift wasm (wazero)", "toolsift wasm (wazero, 4096 MiB limit)", "bleve",
	"toolsift wasm (Node)", "minisearch", "flexsearch", "orama",
	"toolsift wasm (Python)", "toolsift wasm (Python, 4096 MiB limit)", "bm25s", "rank-bm25",
}

// The wasm path of each host, the figure its peers are held against.
var wasmOf = map[string]string{"go": "toolsift wasm (wazero)", "node": "toolsift wasm (Node)", "python": "toolsift wasm (Python)"}

const reference = "toolsift wasm (wazero)"

var budget float64 // the runners' quality-pass budget in seconds

// scored is a result with its quality on the catalog's labelled queries.
type scored struct {
	harness.Result
	Recall5, NDCG10 float64
	Judged          int
	// Runs is how many runs the latency and qps figures are the medians
	// of (the first, and the repeats bench/run.sh made in turn with the
	// catalog's other engines); P50Runs lists each run's p50.
	Runs    int       `json:"runs"`
	P50Runs []float64 `json:"p50_runs_us,omitempty"`
}

// runRender scores every result file against its catalog's queries and
// writes the tables between the markers of the benchmarks page.
func runRender(args []string) error {
	fs := flag.NewFlagSet("render", flag.ExitOnError)
	data := fs.String("data", "bench/results/data", "exported catalogs")
	raw := fs.String("results", "bench/results/raw", "result files")
	doc := fs.String("doc", "docs/BENCHMARKS.md", "page to update")
	command := fs.String("command", "make bench", "the command that produced the results")
	jsonOut := fs.String("json", "bench/results/summary.json", "scored summary (without rankings)")
	fs.Float64Var(&budget, "budget", 120, "the runners' -budget (for the notes)")
	fs.Parse(args)

	files, err := filepath.Glob(filepath.Join(*raw, "*.json"))
	if err != nil {
		return err
	}
	byCatalog := map[string][]*scored{}
	metas := map[string]*Meta{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		s := &scored{}
		if err := json.Unmarshal(b, &s.Result); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if metas[s.Catalog] == nil {
			m := &Meta{}
			mb, err := os.ReadFile(filepath.Join(*data, s.Catalog, "meta.json"))
			if err != nil {
				return err
			}
			if err := json.Unmarshal(mb, m); err != nil {
				return err
			}
			metas[s.Catalog] = m
		}
		if s.Error == "" {
			if err := s.score(&harness.Options{Data: *data, Catalog: s.Catalog}); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
		s.Rankings = nil
		if err := s.withRepeats(filepath.Join(*raw, "rounds", strings.TrimSuffix(filepath.Base(f), ".json")+".*.json")); err != nil {
			return err
		}
		byCatalog[s.Catalog] = append(byCatalog[s.Catalog], s)
	}
	if len(byCatalog) == 0 {
		return fmt.Errorf("no results in %s", *raw)
	}
	var out bytes.Buffer
	writeSection(&out, byCatalog, metas, *command)

	summary, _ := json.MarshalIndent(byCatalog, "", " ")
	if err := os.WriteFile(*jsonOut, append(summary, '\n'), 0o644); err != nil {
		return err
	}
	page, err := os.ReadFile(*doc)
	if err != nil {
		return err
	}
	return os.WriteFile(*doc, replaceSection(page, out.Bytes()), 0o644)
}

// withRepeats makes s's latency and qps figures the medians over its own
// run and the repeated runs whose result files match pattern (a repeat that
// failed is left out). Open times, memory and quality stay the first run's.
func (s *scored) withRepeats(pattern string) error {
	s.Runs = 1
	if s.Error != "" {
		return nil
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return err
	}
	sort.Strings(files)
	runs := []harness.Result{s.Result}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r harness.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if r.Error == "" {
			runs = append(runs, r)
		}
	}
	s.Runs = len(runs)
	if len(runs) == 1 {
		return nil
	}
	s.P50Runs = nil
	for _, r := range runs {
		s.P50Runs = append(s.P50Runs, r.P50Us)
	}
	s.P50Us = medianOf(runs, func(r harness.Result) float64 { return r.P50Us })
	s.P99Us = medianOf(runs, func(r harness.Result) float64 { return r.P99Us })
	s.MeanUs = medianOf(runs, func(r harness.Result) float64 { return r.MeanUs })
	s.QPS1 = medianOf(runs, func(r harness.Result) float64 { return r.QPS1 })
	s.QPS2 = medianOf(runs, func(r harness.Result) float64 { return r.QPS2 })
	return nil
}

// medianOf is the median of one figure over runs (the mean of the middle
// two for an even count).
func medianOf(runs []harness.Result, figure func(harness.Result) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = figure(r)
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// score computes Recall@5 and nDCG@10 of the pass-0 rankings with
// internal/quality, the metrics of wasmhost eval.
func (s *scored) score(o *harness.Options) error {
	queries, err := o.LoadQueries()
	if err != nil {
		return err
	}
	if len(s.Rankings) != s.Queries || s.Queries > len(queries) {
		return fmt.Errorf("%d rankings for %d queries", len(s.Rankings), s.Queries)
	}
	ks := []int{5, 10}
	var all []quality.Scores
	for i, r := range s.Rankings {
		all = append(all, quality.Score(r, queries[i].Gold, ks))
	}
	sum := quality.Summarize(all, ks)
	s.Recall5, s.NDCG10, s.Judged = sum.Recall["@5"], sum.NDCG["@10"], sum.Queries
	return nil
}

func replaceSection(page, section []byte) []byte {
	start := bytes.Index(page, []byte(startMarker))
	end := bytes.Index(page, []byte(endMarker))
	if start < 0 || end < start {
		page = bytes.TrimRight(page, "\n")
		page = append(page, []byte("\n\n"+heading+"\n\n"+startMarker+"\n"+endMarker+"\n")...)
		start = bytes.Index(page, []byte(startMarker))
		end = bytes.Index(page, []byte(endMarker))
	}
	var out bytes.Buffer
	out.Write(page[:start+len(startMarker)])
	out.WriteString("\n")
	out.Write(section)
	out.Write(page[end:])
	return out.Bytes()
}

var catalogOrder = []string{"dws", "stb", "syn10k", "syn100k"}

func writeSection(w *bytes.Buffer, byCatalog map[string][]*scored, metas map[string]*Meta, command string) {
	fmt.Fprintf(w, "Written by `%s` (`bench/run.sh`) on %s%s; do not edit by hand.\n\n", command, time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit())
	fmt.Fprintf(w, "Machine: %s.\n\n", machine())

	names := make([]string, 0, len(byCatalog))
	for name := range byCatalog {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return indexOf(catalogOrder, names[i]) < indexOf(catalogOrder, names[j]) })

	fmt.Fprintln(w, "| catalog | tools | queries | snapshot | profile | source |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---|")
	for _, name := range names {
		m := metas[name]
		fmt.Fprintf(w, "| %s | %s | %s (%s) | %s | %s | %s |\n", m.Title, thousands(m.Tools), thousands(m.Queries), m.QuerySet, mib(float64(m.SnapshotBytes)/(1<<20)), m.Profile, m.Source)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Latency is per query, one thread, over every query of the catalog repeated until at least the measured seconds. Runs: an engine whose run took under a minute is run again, in turn with the catalog's other engines, until it has the runs `bench/run.sh` asks for (three), and its p50, p99 and qps are the medians over them: this machine's speed drifts by more than the differences measured, within minutes, and one run per engine compared engines measured minutes apart. `×wazero` is the p50 divided by the p50 of toolsift wasm on wazero (in bold) on the same catalog, below 1 is faster. qps columns: one thread, and two threads (Go: two goroutines on one engine; Node: two worker threads with an engine each; Python: two threads on one engine or index). Build: what it takes before the first query can be asked of a new catalog: for toolsift, compile.Snapshot of the imported catalog, natively, once in prep (every host opens that snapshot; builds through the module are timed in the section Building a snapshot); for the libraries, building their index from the tool texts (their open cold). Open: toolsift opens a snapshot (cold: first in the process, including compiling the module; warm: again), the libraries build their index from the tool texts (cold: first build; warm: a second build, skipped when the first took over 10 s). Memory: resident-set growth across the first open, after a collection. Quality on the catalog's labelled queries (R@5, nDCG@10), from the same run's first pass.")
	fmt.Fprintln(w)

	for _, name := range names {
		rows := byCatalog[name]
		sort.SliceStable(rows, func(i, j int) bool { return indexOf(rowOrder, rows[i].Engine) < indexOf(rowOrder, rows[j].Engine) })
		// The reference is toolsift on wazero with the default options, or
		// with a raised memory limit when the default could not open the
		// snapshot.
		var ref *scored
		for _, r := range rows {
			if ref == nil && strings.HasPrefix(r.Engine, strings.TrimSuffix(reference, ")")) && r.Error == "" {
				ref = r
			}
		}
		m := metas[name]
		used := 0
		for _, r := range rows {
			used = max(used, r.QueriesTotal)
		}
		fmt.Fprintf(w, "### %s: %s tools, %s queries\n\n", m.Title, thousands(m.Tools), thousands(used))
		fmt.Fprintln(w, "| host | engine | p50 | p99 | ×wazero | qps 1 | qps 2 | runs | build | open cold | open warm | memory | R@5 | nDCG@10 |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, r := range rows {
			if r.Error != "" {
				fmt.Fprintf(w, "| %s | %s | failed: `%s` | | | | | | | | | | | |\n", r.Host, r.Engine, shortError(r.Error))
				continue
			}
			ratio := ""
			if ref != nil {
				ratio = fmt.Sprintf("%.2f×", r.P50Us/ref.P50Us)
			}
			engine := r.Engine
			if r == ref {
				engine = "**" + engine + "**"
			}
			if r.Queries < r.QueriesTotal {
				engine += fmt.Sprintf(" (first %d of %d queries: the quality pass stops after %g s)", r.Queries, r.QueriesTotal, budget)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %.4f | %.4f |\n",
				r.Host, engine, dur(r.P50Us), dur(r.P99Us), ratio, qps(r.QPS1), qps(r.QPS2), r.Runs,
				msOf(buildMs(r, m)), msOf(r.OpenColdMs), msOf(r.OpenWarmMs), mib(r.MemoryMiB), r.Recall5, r.NDCG10)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, "Engines as configured:")
	fmt.Fprintln(w)
	seen := map[string]bool{}
	for _, name := range names {
		for _, r := range byCatalog[name] {
			if seen[r.Engine] || r.Library == "" {
				continue
			}
			seen[r.Engine] = true
			fmt.Fprintf(w, "- **%s** (%s): %s; %s.", r.Engine, r.Library, r.Ranking, r.OpenWhat)
			if r.QPS2Note != "" {
				fmt.Fprintf(w, " qps 2: %s.", r.QPS2Note)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	writeTargets(w, byCatalog)
	fmt.Fprintln(w)
	var loads []string
	for _, name := range names {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range byCatalog[name] {
			var l float64
			if _, err := fmt.Sscanf(r.LoadAvg, "%g", &l); err == nil {
				lo, hi = math.Min(lo, l), math.Max(hi, l)
			}
		}
		if lo <= hi {
			loads = append(loads, fmt.Sprintf("%s %.1f–%.1f", metas[name].Title, lo, hi))
		}
	}
	fmt.Fprintf(w, "One-minute load average when each engine started: %s.\n", strings.Join(loads, "; "))
}

// writeTargets checks issue 8's targets against the figures above.
func writeTargets(w *bytes.Buffer, byCatalog map[string][]*scored) {
	find := func(cat, engine string) *scored {
		for _, r := range byCatalog[cat] {
			if r.Engine == engine && r.Error == "" {
				return r
			}
		}
		return nil
	}
	mark := func(ok bool) string {
		if ok {
			return "✓"
		}
		return "✗"
	}
	fmt.Fprintln(w, "Targets (issue 8), from the figures above:")
	fmt.Fprintln(w)
	if native := find("dws", "toolsift native core"); native != nil {
		for _, host := range []string{"go", "node", "python"} {
			ours := find("dws", wasmOf[host])
			if ours == nil {
				continue
			}
			var peers, faster []string
			for _, r := range byCatalog["dws"] {
				if r.Host != host || r.Error != "" || strings.HasPrefix(r.Engine, "toolsift") {
					continue
				}
				peers = append(peers, fmt.Sprintf("%s %s", r.Engine, dur(r.P50Us)))
				if r.P50Us <= ours.P50Us {
					faster = append(faster, r.Engine)
				}
			}
			fmt.Fprintf(w, "- DWS, %s: %s p50 %s against %s: faster than every peer %s", host, ours.Engine, dur(ours.P50Us), orNone(peers), mark(len(faster) == 0))
			if len(faster) > 0 {
				fmt.Fprintf(w, " (%s faster)", strings.Join(faster, ", "))
			}
			ratio := ours.P50Us / native.P50Us
			fmt.Fprintf(w, "; %.1f× the native core's %s (target ≤ 2.5×) %s\n", ratio, dur(native.P50Us), mark(ratio <= 2.5))
		}
	}
	for _, r := range byCatalog["syn100k"] {
		if !strings.HasPrefix(r.Engine, "toolsift wasm") {
			continue
		}
		if r.Error != "" {
			fmt.Fprintf(w, "- 100,000 tools, %s: failed to open ✗ (`%s`)\n", r.Engine, shortError(r.Error))
			continue
		}
		fmt.Fprintf(w, "- 100,000 tools, %s: p50 %s %s, p99 %s (target: under 5 ms)\n", r.Engine, dur(r.P50Us), mark(r.P50Us < 5000), dur(r.P99Us))
	}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func machine() string {
	model := ""
	if out, err := exec.Command("lscpu").Output(); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "Model name:"); ok {
				model = strings.TrimSpace(v)
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		mem = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
	}
	kernel, _ := exec.Command("uname", "-sr").Output()
	node, _ := exec.Command("node", "--version").Output()
	py, _ := exec.Command("python3", "--version").Output()
	return fmt.Sprintf("%s, %d cores (`nproc`), %s, %s; %s, Node %s, %s",
		model, runtime.NumCPU(), mem, strings.TrimSpace(string(kernel)), runtime.Version(),
		strings.TrimSpace(string(node)), strings.TrimSpace(string(py)))
}

// commit names the source tree measured, when it is a git checkout.
func commit() string {
	head, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	s := " at commit " + strings.TrimSpace(string(head))
	if out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/BENCHMARKS.md").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		s += " with uncommitted changes" // other than this page
	}
	return s
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// shortError is an error's first line, plus the Go runtime's out-of-memory
// line when the module's stderr carries one (wasm stack traces are left out).
func shortError(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	first = strings.TrimSuffix(strings.TrimSpace(first), "wasm backtrace:")
	if i := strings.Index(s, "runtime: out of memory"); i >= 0 {
		oom, _, _ := strings.Cut(s[i:], "\n")
		first += " … " + oom
	}
	return oneLine(first)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/")
	s = strings.ReplaceAll(s, "`", "'")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func dur(us float64) string {
	switch {
	case us <= 0:
		return ""
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 10000:
		return fmt.Sprintf("%.2f ms", us/1000)
	case us < 1e6:
		return fmt.Sprintf("%.1f ms", us/1000)
	}
	return fmt.Sprintf("%.2f s", us/1e6)
}

// buildMs is how long a row's engine takes to index a new catalog: the
// snapshot build prep timed for toolsift (the same snapshot in every host),
// a library's first index build otherwise.
func buildMs(r *scored, m *Meta) float64 {
	if strings.HasPrefix(r.Engine, "toolsift") {
		return m.BuildMs
	}
	return r.OpenColdMs
}

func msOf(ms float64) string {
	if ms <= 0 {
		return "—"
	}
	return dur(ms * 1000)
}

func qps(q float64) string {
	switch {
	case q <= 0:
		return "—"
	case q < 10:
		return fmt.Sprintf("%.1f", q)
	}
	return thousands(int(q + 0.5))
}

func mib(m float64) string {
	if m < 10 {
		return fmt.Sprintf("%.1f MiB", m)
	}
	return fmt.Sprintf("%.0f MiB", m)
}
