// Command blevebench measures bleve, the search library a Go user would
// pick instead of toolsift, on a catalog exported by `toolsiftbench prep`,
// with the same harness as toolsift's Go hosts. It is its own module so
// that bleve never enters toolsift's go.mod.
//
//	go run . -catalog dws -data ../results/data -seconds 2 -out result.json
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"

	"github.com/toolsift/toolsift/bench/harness"
)

func main() {
	var o harness.Options
	o.Flags(flag.CommandLine)
	flag.Parse()
	tools, err := o.LoadTools()
	if err != nil {
		fmt.Fprintln(os.Stderr, "blevebench:", err)
		os.Exit(1)
	}
	res := &harness.Result{
		Engine:   "bleve",
		Host:     "go",
		Library:  "bleve " + moduleVersion("github.com/blevesearch/bleve/v2") + " (scorch, in memory)",
		Ranking:  "BM25 scoring model over 5 fields with the profile's boosts (disjunction of match queries), CJK analyzer (unicode words, width fold, lowercase, Han bigrams)",
		OpenWhat: "build the index from the tool texts (batches of 1,000)",
		Tools:    len(tools),
	}
	harness.Measure(&o, res, func() (*harness.Engine, error) { return open(tools) }, true)
	if err := harness.Write(&o, res); err != nil {
		fmt.Fprintln(os.Stderr, "blevebench:", err)
		os.Exit(1)
	}
}

func open(tools []harness.Tool) (*harness.Engine, error) {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = cjk.AnalyzerName
	m.ScoringModel = bleveindex.BM25Scoring
	doc := bleve.NewDocumentMapping()
	for _, name := range harness.FieldNames {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = cjk.AnalyzerName
		f.Store, f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(name, f)
	}
	m.DefaultMapping = doc
	m.DefaultMapping.Dynamic = false
	var _ mapping.IndexMapping = m

	ix, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	batch := ix.NewBatch()
	for i := range tools {
		fields := map[string]any{}
		for f, name := range harness.FieldNames {
			if tools[i].Fields[f] != "" {
				fields[name] = tools[i].Fields[f]
			}
		}
		if err := batch.Index(tools[i].ID, fields); err != nil {
			return nil, err
		}
		if batch.Size() == 1000 || i == len(tools)-1 {
			if err := ix.Batch(batch); err != nil {
				return nil, err
			}
			batch = ix.NewBatch()
		}
	}
	search := func(q string) (any, error) {
		var fieldQueries []query.Query
		for f, name := range harness.FieldNames {
			mq := bleve.NewMatchQuery(q)
			mq.SetField(name)
			mq.SetBoost(harness.FieldWeights[f])
			fieldQueries = append(fieldQueries, mq)
		}
		req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(fieldQueries...), 10, 0, false)
		return ix.Search(req)
	}
	ranked := func(answer any) ([]string, error) {
		r := answer.(*bleve.SearchResult)
		ids := make([]string, len(r.Hits))
		for i, h := range r.Hits {
			ids[i] = h.ID
		}
		return ids, nil
	}
	return &harness.Engine{Search: search, Ranked: ranked, Close: func() { ix.Close() }}, nil
}

func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "(unknown)"
}
