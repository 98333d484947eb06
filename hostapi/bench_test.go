package hostapi

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/fixtures"
)

func benchSearch(b *testing.B, request string, opts ...Option) {
	benchSearchContext(b, context.Background(), request, opts...)
}

// benchSearchWithDeadline: the same search with a context that can end (an
// hour away): what a caller with a deadline pays.
func benchSearchWithDeadline(b *testing.B, request string, opts ...Option) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	benchSearchContext(b, ctx, request, opts...)
}

func benchSearchContext(b *testing.B, ctx context.Context, request string, opts ...Option) {
	e := openDWS(b, append([]Option{WithMaxInstances(1)}, opts...)...)
	want, err := e.Search(ctx, []byte(request))
	require.NoError(b, err)
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Search(ctx, []byte(request)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWasmSearchChineseQuery: one search through the module (pool of
// one instance, so no instantiation is measured).
func BenchmarkWasmSearchChineseQuery(b *testing.B) { benchSearch(b, chineseQuery) }

// BenchmarkWasmSearchExactGuard: a query that names a tool (the cost of a
// call more than of a search).
func BenchmarkWasmSearchExactGuard(b *testing.B) { benchSearch(b, exactQuery) }

// BenchmarkWasmSearchWorkflow: a decomposed two-subquery search.
func BenchmarkWasmSearchWorkflow(b *testing.B) { benchSearch(b, workflowQuery) }

func BenchmarkWasmSearchChineseQueryWithDeadline(b *testing.B) {
	benchSearchWithDeadline(b, chineseQuery)
}

func BenchmarkWasmSearchWorkflowWithDeadline(b *testing.B) {
	benchSearchWithDeadline(b, workflowQuery)
}

// The same searches compiled with wazero's termination checks
// (WithInterruptibleCalls): what mid-call cancellation costs.
func BenchmarkWasmSearchChineseQueryInterruptible(b *testing.B) {
	benchSearch(b, chineseQuery, WithInterruptibleCalls())
}

func BenchmarkWasmSearchWorkflowInterruptible(b *testing.B) {
	benchSearch(b, workflowQuery, WithInterruptibleCalls())
}

// The native engine on the same requests, for reference.
func BenchmarkNativeSearchChineseQuery(b *testing.B) { benchNative(b, chineseQuery) }

func BenchmarkNativeSearchWorkflow(b *testing.B) { benchNative(b, workflowQuery) }

func BenchmarkNativeSearchExactGuard(b *testing.B) { benchNative(b, exactQuery) }

// The same searches through an Engine opened WithEngine(NativeEngine): the
// native core's cost plus hostapi's (the request size check, the context
// and closed checks, a panic guard).
func BenchmarkNativeEngineSearchChineseQuery(b *testing.B) {
	benchSearch(b, chineseQuery, WithEngine(NativeEngine))
}

func BenchmarkNativeEngineSearchWorkflow(b *testing.B) {
	benchSearch(b, workflowQuery, WithEngine(NativeEngine))
}

// The slowest pattern searches the bounds admit on the DWS catalog
// (core/engine's TestPatternWorstAccepted lists the families; docs/INTEGRATIONS.md
// quotes these): through the module and natively.
var worstPatternRequests = []struct{ name, request string }{
	{"class", `{"version":"tool-search.v1","pattern":"[^\\x01]{0,24}\\x01"}`},
	{"optional", `{"version":"tool-search.v1","pattern":"(?:[^\\x01]?){16}\\x01"}`},
	{"unicode", `{"version":"tool-search.v1","pattern":"(?:.|\\pL){0,24}\\x01"}`},
	{"star", `{"version":"tool-search.v1","pattern":"(?:[^\\x01]*){16}\\x01"}`},
}

func BenchmarkWasmSearchWorstPattern(b *testing.B) {
	for _, p := range worstPatternRequests {
		b.Run(p.name, func(b *testing.B) { benchSearch(b, p.request) })
	}
}

func BenchmarkNativeSearchWorstPattern(b *testing.B) {
	for _, p := range worstPatternRequests {
		b.Run(p.name, func(b *testing.B) { benchNative(b, p.request) })
	}
}

func benchNative(b *testing.B, request string) {
	e := nativeEngine(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, werr := e.SearchJSON([]byte(request)); werr != nil {
			b.Fatal(werr)
		}
	}
}

// BenchmarkWasmSearchParallel: searches from GOMAXPROCS goroutines on a pool
// of GOMAXPROCS instances.
func BenchmarkWasmSearchParallel(b *testing.B) {
	e := openDWS(b)
	ctx := context.Background()
	_, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.Search(ctx, []byte(chineseQuery)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkWasmOpenSnapshot: a fresh instance (instantiation and
// _initialize) plus opening the DWS snapshot in it: what the pool pays for
// each new instance.
func BenchmarkWasmOpenSnapshot(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"interruptible", []Option{WithInterruptibleCalls()}}, {"uninterruptible", nil}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			snap := snapshotDWS(b)
			mr, err := newModuleRuntime(ctx, newConfig(mode.opts))
			require.NoError(b, err)
			defer mr.close(ctx)
			g := &generation{size: len(snap)}
			b.SetBytes(int64(len(snap)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				in, err := mr.instantiate(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := in.open(ctx, g, snap); err != nil {
					b.Fatal(err)
				}
				in.close()
			}
		})
	}
}

// BenchmarkCompileModule: compiling toolsearch.wasm with no cache (what the
// first Open of a process pays, or every Open with WithCompilationCache(nil)),
// with and without wazero's termination checks (WithInterruptibleCalls).
func BenchmarkCompileModule(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"interruptible", []Option{WithInterruptibleCalls()}}, {"uninterruptible", nil}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			opts := append([]Option{WithCompilationCache(nil)}, mode.opts...)
			b.ReportAllocs()
			for b.Loop() {
				mr, err := newModuleRuntime(ctx, newConfig(opts))
				if err != nil {
					b.Fatal(err)
				}
				_ = mr.close(ctx)
			}
		})
	}
}

// BenchmarkWasmGenericProfiles: fixtures.GenericBenchQueries, one per iteration in turn, through the module on
// the LiveMCPBench MCP catalog under each generic profile:
//
//	go test -run '^$' -bench WasmGenericProfiles -count 6 ./hostapi/
func BenchmarkWasmGenericProfiles(b *testing.B) {
	queries := fixtures.GenericBenchQueries
	for _, g := range []struct {
		name string
		snap []byte
	}{{"generic-v1", fixtures.GenericV1Snapshot}, {"generic-v2", fixtures.GenericSnapshot}} {
		b.Run(g.name, func(b *testing.B) {
			ctx := context.Background()
			e, err := Open(ctx, g.snap, WithMaxInstances(1))
			require.NoError(b, err)
			defer e.Close(ctx)
			requests := make([][]byte, len(queries))
			for i, q := range queries {
				requests[i] = []byte(`{"version":"tool-search.v1","query":` + strconv.Quote(q) + `}`)
				_, err := e.Search(ctx, requests[i])
				require.NoError(b, err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := e.Search(ctx, requests[i%len(requests)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkModuleVersion is the cost of a one-shot call around the module's
// work: a runtime (kept per configuration since 4a2648a) and a fresh
// instance.
func BenchmarkModuleVersion(b *testing.B) {
	ctx := context.Background()
	_, err := ModuleVersion(ctx) // compile once
	require.NoError(b, err)
	for b.Loop() {
		if _, err := ModuleVersion(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
