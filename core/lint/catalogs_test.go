package lint_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/lint"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// catalogSource is one catalog of the repository, or of the shared
// benchmark corpora (../shared/data/bench, used when present).
type catalogSource struct {
	name, format, path string
}

func everyCatalog(t testing.TB) []catalogSource {
	sources := []catalogSource{
		{"dws", "dws", ""},
		{"mcp/github-slack", "mcp", "../../testdata/mcp/github-slack.json"},
		{"mcp/filesystem", "mcp", "../../testdata/mcp/filesystem.json"},
		{"generic/livemcpbench-mcp", "mcp", "../../testdata/generic/livemcpbench-mcp.json.gz"},
		{"catalog/example", "toolsift", "../../testdata/catalog/example.json"},
		{"lint/trips", "mcp", "../../testdata/lint/trips.json"},
		{"lint/native", "toolsift", "../../testdata/lint/native.json"},
		{"provider/openai-tools", "openai", "../../testdata/provider/openai-tools.json"},
		{"provider/anthropic-tools", "anthropic", "../../testdata/provider/anthropic-tools.json"},
		{"openapi/github-rest", "openapi", "../../testdata/openapi/github-rest-v0.0.6.json.gz"},
		{"openapi/galaxy", "openapi", "../../testdata/openapi/galaxy-3.1.json"},
		{"openapi/petstore", "openapi", "../../testdata/openapi/petstore-swagger2.json"},
	}
	samples, err := filepath.Glob("../../testdata/bench/*/sample.jsonl")
	require.NoError(t, err)
	for _, path := range samples {
		sources = append(sources, catalogSource{"bench-sample/" + filepath.Base(filepath.Dir(path)), "beir", path})
	}
	corpora, _ := filepath.Glob("../../../shared/data/bench/*/*/corpus.jsonl")
	for _, path := range corpora {
		split := filepath.Dir(path)
		sources = append(sources, catalogSource{"shared-bench/" + filepath.Base(filepath.Dir(split)) + "/" + filepath.Base(split), "beir", path})
	}
	return sources
}

func openSource(t testing.TB, s catalogSource) *engine.Engine {
	t.Helper()
	snap := fixtures.DWSSnapshot
	if s.path != "" {
		data, err := os.ReadFile(s.path)
		require.NoError(t, err)
		if strings.HasSuffix(s.path, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			require.NoError(t, err)
			data, err = io.ReadAll(zr)
			require.NoError(t, err)
		}
		snap, _, err = compile.FromCatalog(s.format, data, importer.Options{ToolSearch: s.format == "mcp"})
		require.NoError(t, err, s.name)
	}
	e, werr := compile.Open(snap)
	require.Nil(t, werr, s.name)
	return e
}

// TestEveryCatalog lints every catalog under testdata/ (and the shared
// benchmark corpora when present, not with -short): a report for every
// tool, findings in order, the same bytes twice, and the time per 1,000
// tools logged (go test ./core/lint -run TestEveryCatalog -v).
func TestEveryCatalog(t *testing.T) {
	for _, s := range everyCatalog(t) {
		if testing.Short() && strings.HasPrefix(s.name, "shared-bench/") {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			e := openSource(t, s)
			start := time.Now()
			r, err := lint.Run(e, lint.Options{})
			elapsed := time.Since(start)
			require.NoError(t, err)
			require.Equal(t, e.ToolCount(), r.Catalog.Tools)
			require.True(t, slices.IsSortedFunc(r.Findings, func(a, b lint.Finding) int {
				return strings.Compare(a.Tool, b.Tool)
			}))
			first, err := r.AppendJSON(nil)
			require.NoError(t, err)
			again, err := lint.Run(e, lint.Options{})
			require.NoError(t, err)
			second, err := again.AppendJSON(nil)
			require.NoError(t, err)
			require.Equal(t, first, second)
			t.Logf("%d tools, %d self-queries, %d unreachable, %d confusable pairs, %d findings: %v (%.0f ms per 1,000 tools)",
				r.Catalog.Tools, r.Summary.SelfQueries, r.Summary.Unreachable, r.Summary.ConfusablePairs, len(r.Findings),
				elapsed.Round(time.Millisecond), float64(elapsed.Milliseconds())*1000/float64(max(1, r.Catalog.Tools)))
		})
	}
}

// BenchmarkLint: one lint of each catalog with at least 100 tools, as
// ms per 1,000 tools (go test ./core/lint -run '^$' -bench Lint -benchtime 3x).
func BenchmarkLint(b *testing.B) {
	for _, s := range everyCatalog(b) {
		b.Run(s.name, func(b *testing.B) {
			e := openSource(b, s)
			if e.ToolCount() < 100 {
				b.Skip("fewer than 100 tools")
			}
			for b.Loop() {
				if _, err := lint.Run(e, lint.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())*1000/float64(b.N)/float64(e.ToolCount()), "ms/1000tools")
		})
	}
}
