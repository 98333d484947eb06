package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolsift/toolsift/bench/harness"
	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
	"github.com/toolsift/toolsift/internal/quality"
)

// The largest public corpus in ../shared/data/bench by tool count, and the
// benchmark directories whose tools the synthetic catalogs recombine.
const largest = "stabletoolbench/solvable_test"

var corpora = []string{
	"acebench/normal_en", "acebench/normal_zh", "bfcl_v4/non_live_and_live",
	"livemcpbench/all", "metatool/all", "stabletoolbench/solvable_test",
}

// Meta describes one exported catalog.
type Meta struct {
	Name          string  `json:"name"`
	Title         string  `json:"title"`
	Source        string  `json:"source"`
	Profile       string  `json:"profile"`
	Tools         int     `json:"tools"`
	Queries       int     `json:"queries"`
	QuerySet      string  `json:"query_set"`
	SnapshotBytes int     `json:"snapshot_bytes"`
	BuildMs       float64 `json:"snapshot_build_ms,omitempty"` // native compile.Snapshot
	CatalogSHA256 string  `json:"catalog_sha256,omitempty"`
}

// runPrep exports every catalog the runners read: the snapshot, the text of
// each indexed field per tool (tools.jsonl) and the queries with their gold
// tools (queries.jsonl).
func runPrep(args []string) error {
	fs := flag.NewFlagSet("prep", flag.ExitOnError)
	out := fs.String("out", "bench/results/data", "output directory")
	shared := fs.String("shared", "../shared/data/bench", "the public benchmarks (BEIR layout)")
	sizes := fs.String("synthetic", "10000,100000", "tool counts of the synthetic catalogs (empty: none)")
	quick := fs.Bool("quick", false, "DWS only")
	fs.Parse(args)

	dws, err := exportDWS(*out)
	if err != nil {
		return fmt.Errorf("dws: %w", err)
	}
	if *quick {
		return nil
	}
	stb, err := exportBenchmark(*out, "stb", filepath.Join(*shared, largest))
	if err != nil {
		return fmt.Errorf("%s: %w", largest, err)
	}
	if *sizes == "" {
		return nil
	}
	pool, err := toolPool(*shared, dws.catalog)
	if err != nil {
		return err
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-synthetic: %w", err)
		}
		if err := exportSynthetic(*out, n, pool, dws, stb); err != nil {
			return fmt.Errorf("synthetic %d: %w", n, err)
		}
	}
	return nil
}

// labelled is an exported catalog with its queries, kept for planting.
type labelled struct {
	catalog *catalog.Catalog
	queries []harness.Query
}

func exportDWS(out string) (*labelled, error) {
	body, werr := snapshot.Decode(fixtures.DWSSnapshot)
	if werr != nil {
		return nil, werr
	}
	// The embedded snapshot is the one opened; its build is timed again
	// from the decoded catalog, for the build column.
	prof, ok := profile.Lookup(body.Profile)
	if !ok {
		return nil, fmt.Errorf("unknown profile %q", body.Profile)
	}
	t := time.Now()
	if _, err := compile.Snapshot(&body.Catalog, prof); err != nil {
		return nil, err
	}
	buildMs := float64(time.Since(t).Microseconds()) / 1000
	// The DWS reference's intent set, as wasmhost eval --dws-proxy makes
	// it (quality.ProxySets): every use_when sentence within the query
	// budget of the snapshot's profile; its owner is the gold.
	var tools []quality.ProxyTool
	for p := range body.Catalog.Products {
		for t := range body.Catalog.Products[p].Tools {
			tool := &body.Catalog.Products[p].Tools[t]
			tools = append(tools, quality.ProxyTool{CanonicalPath: tool.Identity.CanonicalPath, UseWhen: tool.Selection.UseWhen})
		}
	}
	maxRunes, maxBytes := prof.QueryBudget()
	intents, _, _, _ := quality.ProxySets(tools, maxRunes, maxBytes)
	queries := make([]harness.Query, len(intents))
	for i, c := range intents {
		queries[i] = harness.Query{Text: c.Query, Gold: map[string]int{c.Tool: 1}}
	}
	meta := Meta{Name: "dws", Title: "DWS", Source: "testdata/dws (embedded)", QuerySet: "DWS intents (use_when sentences within the query budget)"}
	return &labelled{&body.Catalog, queries}, export(out, &meta, fixtures.DWSSnapshot, &body.Catalog, body.Profile, queries, buildMs)
}

func exportBenchmark(out, name, dir string) (*labelled, error) {
	data, err := os.ReadFile(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return nil, err
	}
	cat, prof, err := importCorpus(data)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	snap, err := compile.Snapshot(cat, prof)
	if err != nil {
		return nil, err
	}
	buildMs := float64(time.Since(t).Microseconds()) / 1000
	queries, err := benchmarkQueries(dir)
	if err != nil {
		return nil, err
	}
	meta := Meta{Name: name, Title: "StableToolBench", Source: dir + " (read at run time)", QuerySet: "the benchmark's queries with qrels, cut to the query budget"}
	return &labelled{cat, queries}, export(out, &meta, snap, cat, prof.Name, queries, buildMs)
}

// benchmarkQueries reads queries.jsonl and qrels.tsv with wasmhost eval's
// readers (internal/quality): judgements by canonical path, queries without
// a relevant tool skipped, text cut to the wire's request budget.
func benchmarkQueries(dir string) ([]harness.Query, error) {
	qf, err := os.ReadFile(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	qs, err := quality.ReadQueries(bytes.NewReader(qf))
	if err != nil {
		return nil, err
	}
	rf, err := os.ReadFile(filepath.Join(dir, "qrels.tsv"))
	if err != nil {
		return nil, err
	}
	qrels, err := quality.ReadQrels(bytes.NewReader(rf))
	if err != nil {
		return nil, err
	}
	var out []harness.Query
	for _, q := range qs {
		if quality.Relevant(qrels[q.ID]) == 0 {
			continue
		}
		gold := map[string]int{}
		for id, grade := range qrels[q.ID] {
			gold[beir.CanonicalPath(id)] = grade
		}
		// The wire's budget (256 runes, 2 KiB), whatever the profile: under
		// generic-v2 and -v3 wasmhost eval keeps up to 2,048 runes, so the
		// longer StableToolBench queries are cut shorter here than there
		// (kept so that make bench's tables stay comparable).
		text, _ := quality.FitQuery(q.Text, wire.MaxQueryRunes, wire.MaxQueryBytes)
		out = append(out, harness.Query{Text: text, Gold: gold})
	}
	return out, nil
}

// export writes one catalog directory.
func export(out string, meta *Meta, snap []byte, cat *catalog.Catalog, profileName string, queries []harness.Query, buildMs float64) error {
	prof, ok := profile.Lookup(profileName)
	if !ok {
		return fmt.Errorf("unknown profile %q", profileName)
	}
	dir := filepath.Join(out, meta.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tools bytes.Buffer
	enc := json.NewEncoder(&tools)
	enc.SetEscapeHTML(false)
	n := 0
	for p := range cat.Products {
		for t := range cat.Products[p].Tools {
			tool := &cat.Products[p].Tools[t]
			f := prof.Project(tool, &cat.Products[p])
			if err := enc.Encode(harness.Tool{ID: tool.Identity.CanonicalPath, Fields: f}); err != nil {
				return err
			}
			n++
		}
	}
	var qs bytes.Buffer
	enc = json.NewEncoder(&qs)
	enc.SetEscapeHTML(false)
	for _, q := range queries {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	meta.Profile, meta.Tools, meta.Queries, meta.SnapshotBytes, meta.BuildMs = prof.Name, n, len(queries), len(snap), buildMs
	m, _ := json.MarshalIndent(meta, "", " ")
	for name, data := range map[string][]byte{"catalog.snap": snap, "tools.jsonl": tools.Bytes(), "queries.jsonl": qs.Bytes(), "meta.json": append(m, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "prep: %s: %d tools, %d queries, snapshot %d bytes\n", meta.Name, n, len(queries), len(snap))
	return nil
}

// source is a real tool's text, the material of the synthetic catalogs.
type source struct {
	path                        string
	product, productName, name  string
	title, summary, description string
	parameters                  []native.Parameter
}

func sourceOf(p *catalog.Product, t *catalog.Tool) source {
	s := source{
		path: t.Identity.CanonicalPath, product: p.ID, productName: p.Name,
		title: t.Title, summary: t.Selection.AgentSummary, description: t.Description,
	}
	_, s.name, _ = strings.Cut(s.path, ".")
	seen := map[string]bool{}
	for _, q := range t.Params() {
		if q.Name == "" || seen[q.Name] {
			continue
		}
		seen[q.Name] = true
		d := q.Description
		if d == "" {
			d = q.InterfaceDescription
		}
		s.parameters = append(s.parameters, native.Parameter{Name: q.Name, Type: q.Type, Description: d, Required: q.Required, Enum: q.Enum})
	}
	return s
}

// toolPool is every tool of the DWS catalog and of every public benchmark,
// in a fixed order.
func toolPool(shared string, dws *catalog.Catalog) ([]source, error) {
	var pool []source
	add := func(cat *catalog.Catalog) {
		for p := range cat.Products {
			for t := range cat.Products[p].Tools {
				pool = append(pool, sourceOf(&cat.Products[p], &cat.Products[p].Tools[t]))
			}
		}
	}
	add(dws)
	for _, c := range corpora {
		data, err := os.ReadFile(filepath.Join(shared, c, "corpus.jsonl"))
		if err != nil {
			return nil, err
		}
		cat, _, err := importCorpus(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		add(cat)
	}
	return pool, nil
}

// importCorpus imports a benchmark's corpus as `snapshot build` does by
// default: a tool that breaks a rule (ACEBench Chinese has two whose names
// differ only in case) is left out, not the whole corpus.
func importCorpus(data []byte) (*catalog.Catalog, *profile.Profile, error) {
	cat, prof, _, err := importer.ImportWith(beir.Format, data, importer.Options{})
	return cat, prof, err
}

// Seeds of the synthetic catalogs: the same bytes on every run.
const seed1, seed2 = 0x746f6f6c, 0x73696674

// syntheticQueries is how many labelled queries each synthetic catalog gets,
// half DWS intents and half StableToolBench tasks.
const syntheticQueries = 200

// exportSynthetic builds a catalog of n tools: the gold tools of 200
// sampled real queries (100 DWS intents, 100 StableToolBench tasks), planted
// with their real text (DWS use_when left out, since those sentences are
// the queries), and n minus that many recombined tools, each taking its
// name, title and summary from one real tool, its description from a second
// and its parameters from a third (the planted tools excluded), under
// products syn00000, syn00001, … of 100 tools each.
func exportSynthetic(out string, n int, pool []source, dws, stb *labelled) error {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	pick := func(qs []harness.Query, k int) []harness.Query {
		idx := rng.Perm(len(qs))[:k]
		sort.Ints(idx)
		picked := make([]harness.Query, k)
		for i, j := range idx {
			picked[i] = qs[j]
		}
		return picked
	}
	queries := append(pick(dws.queries, syntheticQueries/2), pick(stb.queries, syntheticQueries/2)...)
	rng.Shuffle(len(queries), func(i, j int) { queries[i], queries[j] = queries[j], queries[i] })

	planted := map[string]bool{}
	for _, q := range queries {
		for path := range q.Gold {
			planted[path] = true
		}
	}
	doc := &native.Document{}
	products := map[string]int{}
	plant := func(cat *catalog.Catalog) {
		for p := range cat.Products {
			for t := range cat.Products[p].Tools {
				tool := &cat.Products[p].Tools[t]
				if !planted[tool.Identity.CanonicalPath] {
					continue
				}
				s := sourceOf(&cat.Products[p], tool)
				i, ok := products[s.product]
				if !ok {
					i = len(doc.Products)
					products[s.product] = i
					doc.Products = append(doc.Products, native.Product{ID: s.product, Name: s.productName})
				}
				doc.Products[i].Tools = append(doc.Products[i].Tools, native.Tool{
					Name: s.name, Title: s.title, Summary: s.summary, Description: s.description, Parameters: s.parameters,
				})
			}
		}
	}
	plant(dws.catalog)
	plant(stb.catalog)
	plantedCount := 0
	for _, p := range doc.Products {
		plantedCount += len(p.Tools)
	}
	var material []source
	for _, s := range pool {
		if !planted[s.path] {
			material = append(material, s)
		}
	}
	for k := 0; plantedCount+k < n; k++ {
		a, b, c := &material[rng.IntN(len(material))], &material[rng.IntN(len(material))], &material[rng.IntN(len(material))]
		if k%100 == 0 {
			doc.Products = append(doc.Products, native.Product{ID: fmt.Sprintf("syn%05d", k/100)})
		}
		p := &doc.Products[len(doc.Products)-1]
		p.Tools = append(p.Tools, native.Tool{
			Name:        truncate(a.name, 200) + "_" + strconv.Itoa(k),
			Title:       a.title,
			Summary:     a.summary,
			Description: b.description,
			Parameters:  append([]native.Parameter(nil), c.parameters...),
		})
	}

	// Through the JSON document, as `wasmhost snapshot build --format
	// toolsift` would read it.
	data := native.AppendJSON(nil, doc)
	sum := sha256.Sum256(data)
	cat, prof, err := importer.Import(native.Format, data)
	if err != nil {
		return err
	}
	t := time.Now()
	snap, err := compile.Snapshot(cat, prof)
	if err != nil {
		return err
	}
	buildMs := float64(time.Since(t).Microseconds()) / 1000
	name := fmt.Sprintf("syn%dk", n/1000)
	meta := Meta{
		Name: name, Title: fmt.Sprintf("synthetic %s", thousands(n)),
		Source:        fmt.Sprintf("seeded generator (PCG %#x, %#x): %d planted gold tools + recombined real tool texts", seed1, seed2, plantedCount),
		QuerySet:      "100 DWS intents + 100 StableToolBench tasks (seeded sample), gold tools planted",
		CatalogSHA256: hex.EncodeToString(sum[:]),
	}
	dir := filepath.Join(out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), data, 0o644); err != nil {
		return err
	}
	return export(out, &meta, snap, cat, prof.Name, queries, buildMs)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
