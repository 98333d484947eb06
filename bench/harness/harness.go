// Package harness is the measuring loop every Go runner of `make bench`
// shares (toolsift natively and on wazero, and bleve in the nested module
// bench/go): it reads a catalog's exported tool texts and queries, opens an
// engine, times it, and writes one result file. The Node and Python runners
// follow the same steps and write the same JSON (see bench/README.md).
package harness

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Field names of the exported tool texts, in the order of profile.Field, and
// the weights the dws-v1 and generic-v1 profiles give them.
var (
	FieldNames   = [5]string{"identity", "summary", "description", "parameters", "use_when"}
	FieldWeights = [5]float64{8, 5, 2, 2, 3}
)

// Tool is one line of tools.jsonl: a tool's canonical path and the text of
// each field the catalog's profile indexes (profile.Project).
type Tool struct {
	ID     string    `json:"id"`
	Fields [5]string `json:"fields"`
}

// Text is the fields joined, for libraries that index one text per tool.
func (t *Tool) Text() string { return strings.Join(t.Fields[:], " ") }

// Query is one line of queries.jsonl: the query text (already cut to the
// request budget) and the judged tools by canonical path.
type Query struct {
	Text string         `json:"text"`
	Gold map[string]int `json:"gold"`
}

// Result is what a runner writes for one engine on one catalog.
type Result struct {
	Engine       string `json:"engine"`  // e.g. "toolsift (wasm, wazero)"
	Host         string `json:"host"`    // go | node | python
	Library      string `json:"library"` // name and version
	Ranking      string `json:"ranking"` // how it ranks and tokenizes
	Catalog      string `json:"catalog"`
	Tools        int    `json:"tools"`
	Queries      int    `json:"queries"` // answered in the quality pass
	QueriesTotal int    `json:"queries_total"`
	OpenWhat     string `json:"open_what"` // what open_cold/open_warm time

	OpenColdMs float64 `json:"open_cold_ms"`
	OpenWarmMs float64 `json:"open_warm_ms,omitempty"`
	MemoryMiB  float64 `json:"memory_mib"`
	MemoryHow  string  `json:"memory_how"`

	Samples   int        `json:"latency_samples"`
	P50Us     float64    `json:"p50_us"`
	P99Us     float64    `json:"p99_us"`
	MeanUs    float64    `json:"mean_us"`
	QPS1      float64    `json:"qps_1"`
	QPS2      float64    `json:"qps_2,omitempty"`
	QPS2Note  string     `json:"qps_2_note,omitempty"`
	Rankings  [][]string `json:"rankings,omitempty"` // top 10 per query, in queries.jsonl order
	Error     string     `json:"error,omitempty"`
	StartedAt string     `json:"started_at"`
	LoadAvg   string     `json:"loadavg"`
}

// Options are the flags every runner takes.
type Options struct {
	Data    string  // bench/results/data
	Catalog string  // directory name under Data
	Out     string  // result file
	Seconds float64 // minimum measured time per phase
	Queries int     // use only the first n queries (0: all)
	Budget  float64 // seconds after which the quality pass stops early
}

// WarmupLimit bounds each warm-up: 20 queries or this long, whichever
// comes first.
const WarmupLimit = 5 * time.Second

// Flags registers the common flags.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Data, "data", "bench/results/data", "exported catalogs")
	fs.StringVar(&o.Catalog, "catalog", "dws", "catalog directory under -data")
	fs.StringVar(&o.Out, "out", "", "result JSON file")
	fs.Float64Var(&o.Seconds, "seconds", 2, "minimum seconds of single-thread timing, and of the two-thread run")
	fs.IntVar(&o.Queries, "queries", 0, "use only the first n queries (0: all)")
	fs.Float64Var(&o.Budget, "budget", 120, "stop the quality pass after this many seconds (the result says how many queries it answered)")
}

// LoadTools reads the catalog's tools.jsonl.
func (o *Options) LoadTools() ([]Tool, error) {
	var tools []Tool
	err := readJSONL(filepath.Join(o.Data, o.Catalog, "tools.jsonl"), func(line []byte) error {
		var t Tool
		tools = append(tools, t)
		return json.Unmarshal(line, &tools[len(tools)-1])
	})
	return tools, err
}

// LoadQueries reads the catalog's queries.jsonl.
func (o *Options) LoadQueries() ([]Query, error) {
	var queries []Query
	err := readJSONL(filepath.Join(o.Data, o.Catalog, "queries.jsonl"), func(line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		queries = append(queries, q)
		return nil
	})
	if o.Queries > 0 && len(queries) > o.Queries {
		queries = queries[:o.Queries]
	}
	return queries, err
}

// Snapshot reads the catalog's snapshot.
func (o *Options) Snapshot() ([]byte, error) {
	return os.ReadFile(filepath.Join(o.Data, o.Catalog, "catalog.snap"))
}

func readJSONL(path string, each func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := each(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// Searcher answers one query with the engine's own answer (for toolsift the
// response bytes, for a library its result list): what is timed.
type Searcher func(query string) (any, error)

// Engine is what a runner opens: a searcher that two goroutines may call at
// once, and Ranked, which turns an answer into canonical paths, best first,
// outside the timed call.
type Engine struct {
	Search Searcher
	Ranked func(answer any) ([]string, error)
	Close  func()
}

// Measure runs the common steps: open (cold, then warm when openAgain is
// true), memory after open, one pass over every query for quality (after a
// short warm-up), more passes until Seconds of single-thread time, then two
// goroutines for Seconds. res has Engine, Host, Library, Ranking and
// OpenWhat filled in; errors end up in res.Error.
func Measure(o *Options, res *Result, open func() (*Engine, error), openAgain bool) *Result {
	res.Catalog = o.Catalog
	res.StartedAt = time.Now().UTC().Format(time.RFC3339)
	res.LoadAvg = loadAvg()
	res.MemoryHow = "RSS delta"
	queries, err := o.LoadQueries()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Queries, res.QueriesTotal = len(queries), len(queries)

	rss0 := settledRSS()
	t := time.Now()
	e, err := open()
	res.OpenColdMs = ms(time.Since(t))
	if err != nil {
		res.Error = "open: " + err.Error()
		return res
	}
	defer e.Close()
	res.MemoryMiB = float64(settledRSS()-rss0) / (1 << 20)
	if openAgain {
		t = time.Now()
		again, err := open()
		res.OpenWarmMs = ms(time.Since(t))
		if err != nil {
			res.Error = "second open: " + err.Error()
			return res
		}
		again.Close()
		runtime.GC()
	}

	t = time.Now()
	for i := 0; i < 20 && i < len(queries) && time.Since(t) < WarmupLimit; i++ { // warm-up
		if _, err := e.Search(queries[i].Text); err != nil {
			res.Error = fmt.Sprintf("query %q: %v", queries[i].Text, err)
			return res
		}
	}
	var lat []time.Duration
	var total time.Duration
	res.Rankings = make([][]string, len(queries))
	for pass := 0; pass == 0 || total.Seconds() < o.Seconds; pass++ {
		for i, q := range queries {
			if pass == 0 && o.Budget > 0 && total.Seconds() > o.Budget {
				// Too slow to answer every query in the budget: quality
				// and latency come from the queries answered.
				queries, res.Rankings, res.Queries = queries[:i], res.Rankings[:i], i
				break
			}
			t = time.Now()
			answer, err := e.Search(q.Text)
			d := time.Since(t)
			if err == nil && pass == 0 {
				res.Rankings[i], err = e.Ranked(answer)
				if len(res.Rankings[i]) > 10 {
					res.Rankings[i] = res.Rankings[i][:10]
				}
			}
			if err != nil {
				res.Error = fmt.Sprintf("query %q: %v", q.Text, err)
				return res
			}
			lat = append(lat, d)
			total += d
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	res.Samples = len(lat)
	res.P50Us = us(percentile(lat, 50))
	res.P99Us = us(percentile(lat, 99))
	res.MeanUs = us(total) / float64(len(lat))
	res.QPS1 = float64(len(lat)) / total.Seconds()

	// Warm two goroutines at once, so that a pool grows its second
	// instance before the clock starts.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			for i := 0; i < 20 && i < len(queries) && time.Since(start) < WarmupLimit; i++ {
				e.Search(queries[i].Text)
			}
		}()
	}
	wg.Wait()
	var done atomic.Int64
	var stop atomic.Bool
	t = time.Now()
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * len(queries) / 2; !stop.Load(); i++ {
				e.Search(queries[i%len(queries)].Text)
				done.Add(1)
			}
		}()
	}
	time.Sleep(time.Duration(o.Seconds * float64(time.Second)))
	stop.Store(true)
	wg.Wait()
	res.QPS2 = float64(done.Load()) / time.Since(t).Seconds()
	return res
}

// Write writes res to o.Out as JSON.
func Write(o *Options, res *Result) error {
	data, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	if o.Out == "" {
		_, err = os.Stdout.Write(append(data, '\n'))
		return err
	}
	return os.WriteFile(o.Out, append(data, '\n'), 0o644)
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(0, min(len(sorted)-1, i-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// settledRSS is the process's resident set after a full collection.
func settledRSS() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
