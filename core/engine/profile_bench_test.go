package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// BenchmarkGenericProfiles: one query of fixtures.GenericBenchQueries per iteration,
// in turn, on the LiveMCPBench MCP catalog (527 tools) under each generic
// profile; compare the profiles' ns/op from one run:
//
//	go test -run '^$' -bench GenericProfiles -count 6 ./core/engine/
func BenchmarkGenericProfiles(b *testing.B) {
	catalogJSON, err := fixtures.GenericMCPCatalog()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"generic-v1", "generic-v2", "generic-v3"} {
		b.Run(name, func(b *testing.B) {
			snap, _, err := compile.FromCatalog("mcp", catalogJSON, importer.Options{Profile: name})
			if err != nil {
				b.Fatal(err)
			}
			e, werr := compile.Open(snap)
			if werr != nil {
				b.Fatal(werr)
			}
			benchmarkQueries(b, e)
		})
	}
}

// BenchmarkBuildGenericProfiles: building the engine (tokenizing, the
// projection's rules, indexing) of the LiveMCPBench MCP catalog under each
// generic profile:
//
//	go test -run '^$' -bench BuildGenericProfiles -count 6 ./core/engine/
func BenchmarkBuildGenericProfiles(b *testing.B) {
	catalogJSON, err := fixtures.GenericMCPCatalog()
	if err != nil {
		b.Fatal(err)
	}
	cat, _, err := importer.Import("mcp", catalogJSON)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []*profile.Profile{profile.GenericV2, profile.GenericV3} {
		b.Run(p.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := engine.New(cat, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchmarkQueries(b *testing.B, e *engine.Engine) {
	requests := make([][]byte, len(fixtures.GenericBenchQueries))
	for i, q := range fixtures.GenericBenchQueries {
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
