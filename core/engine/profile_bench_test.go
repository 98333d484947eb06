package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/testdata"
)

// GenericBenchQueries are what agents ask of a generic catalog: short
// intents and task descriptions, all within the 256 characters that every
// profile accepts, so each profile answers the same requests.
var GenericBenchQueries = []string{
	"search the web with bing",
	"generate a word cloud chart",
	"生成词云图",
	"convert a PDF to markdown",
	"weather forecast for tomorrow",
	"read a file from the local disk",
	"Show me today's trending topics in the gaming world across all platforms.",
	"Analyze Apple's stock for the past year and summarize it in a PPT in /root/ppt/apple.pptx.",
	"Generate a deep report of bitcoin and save it in /root/markdown/bitcoin.md",
	"Find the latest standard iphone prices at amazon.",
	"Download New York's Air Quality report from Government Data, saved at /root/csv/NY_AIR_QUALITY.csv",
	"查询明天从北京到上海的火车票余票",
}

// BenchmarkGenericProfiles: one query of GenericBenchQueries per iteration,
// in turn, on the LiveMCPBench MCP catalog (527 tools) under each generic
// profile; compare the profiles' ns/op from one run:
//
//	go test -run '^$' -bench GenericProfiles -count 6 ./core/engine/
func BenchmarkGenericProfiles(b *testing.B) {
	catalogJSON, err := testdata.GenericMCPCatalog()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"generic-v1", "generic-v2"} {
		b.Run(name, func(b *testing.B) {
			snap, _, err := snapshot.FromCatalog("mcp", catalogJSON, importer.Options{Profile: name})
			if err != nil {
				b.Fatal(err)
			}
			e, werr := snapshot.Open(snap)
			if werr != nil {
				b.Fatal(werr)
			}
			benchmarkQueries(b, e)
		})
	}
}

func benchmarkQueries(b *testing.B, e *engine.Engine) {
	requests := make([][]byte, len(GenericBenchQueries))
	for i, q := range GenericBenchQueries {
		requests[i] = []byte(`{"version":"tool-search.v1","query":` + quote(q) + `}`)
		if _, werr := e.SearchJSON(requests[i]); werr != nil {
			b.Fatal(q, werr)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, werr := e.SearchJSON(requests[i%len(requests)]); werr != nil {
			b.Fatal(werr)
		}
		i++
	}
}

func quote(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}
