package hostapi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

func readTestdata(t *testing.T, path ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{".."}, path...)...))
	require.NoError(t, err)
	return data
}

// TestNativeBuildMatchesModule: a build with NativeEngine gives the bytes
// the module's build gives, for the DWS catalog and a catalog of every other
// format, and refuses a bad catalog with the module's typed error.
func TestNativeBuildMatchesModule(t *testing.T) {
	ctx := context.Background()
	generic, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	cases := []struct{ name, format string }{
		{"dws catalog.tar.gz", "dws"},
		{"generic MCP catalog (527 tools)", "mcp"},
		{"GitHub and Slack MCP tools", "mcp"},
		{"Galaxy OpenAPI 3.1 (YAML)", "openapi"},
		{"Petstore Swagger 2.0 (JSON)", "openapi"},
		{"OpenAI tools", "openai"},
		{"Anthropic tools", "anthropic"},
		{"toolsift example", "toolsift"},
		{"MetaTool BEIR sample", "beir"},
	}
	inputs := [][]byte{
		fixtures.DWSCatalog, generic, fixtures.GitHubSlackMCP,
		readTestdata(t, "testdata", "openapi", "galaxy-3.1.yaml"),
		readTestdata(t, "testdata", "openapi", "petstore-swagger2.json"),
		readTestdata(t, "testdata", "provider", "openai-tools.json"),
		readTestdata(t, "testdata", "provider", "anthropic-tools.json"),
		readTestdata(t, "testdata", "catalog", "example.json"),
		readTestdata(t, "testdata", "bench", "metatool", "sample.jsonl"),
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			native, err := BuildSnapshot(ctx, c.format, inputs[i], WithEngine(NativeEngine))
			require.NoError(t, err)
			var module []byte
			if c.format == "dws" {
				module = snapshotDWS(t) // built by the module once for the package's tests
				require.True(t, bytes.Equal(fixtures.DWSSnapshot, native), "the committed DWS snapshot differs from the native build")
			} else {
				module, err = BuildSnapshot(ctx, c.format, inputs[i])
				require.NoError(t, err)
			}
			require.Equal(t, len(module), len(native))
			require.True(t, bytes.Equal(module, native), "%s: native and module builds differ", c.name)
		})
	}

	// A DWS dump directory, bundled, builds the same snapshot as the archive.
	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	require.NoError(t, err)
	dump := fstest.MapFS{}
	for name, data := range files {
		dump[name] = &fstest.MapFile{Data: data}
	}
	bundle, err := DWSDumpBundle(dump)
	require.NoError(t, err)
	fromDir, err := BuildSnapshot(ctx, "dws", bundle, WithEngine(NativeEngine))
	require.NoError(t, err)
	require.True(t, bytes.Equal(fixtures.DWSSnapshot, fromDir), "the dump directory built a different snapshot")

	for _, bad := range []struct{ format, catalog, reason string }{
		{"mcp", `{"tools":3}`, "invalid_catalog"},
		{"dws", `not a catalog`, "invalid_catalog"},
		{"yaml-ish", `{}`, "unknown_format"},
	} {
		var refusals []wire.Error
		for _, kind := range []EngineKind{ModuleEngine, NativeEngine} {
			_, err := BuildSnapshot(ctx, bad.format, []byte(bad.catalog), WithEngine(kind))
			var werr *wire.Error
			require.ErrorAs(t, err, &werr, "%s %s", kind, bad.format)
			require.Equal(t, bad.reason, werr.Reason, "%s: %v", kind, err)
			refusals = append(refusals, *werr)
		}
		require.Equal(t, refusals[0], refusals[1], "%s: the engines refuse it differently", bad.format)
	}
}

// TestNativeImportOptions: the import options reach a native build, its
// report is given, the module refuses them (its build takes none).
func TestNativeImportOptions(t *testing.T) {
	ctx := context.Background()
	_, err := BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP, WithProfile("generic-v1"))
	var werr *wire.Error
	require.ErrorAs(t, err, &werr)
	require.Equal(t, "unsupported_option", werr.Reason)

	var report *ImportReport
	snap, err := BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP, WithEngine(NativeEngine),
		WithProfile("generic-v1"), WithImportReport(func(r *ImportReport) { report = r }))
	require.NoError(t, err)
	require.NotNil(t, report)
	require.True(t, strings.HasPrefix(report.Summary, "import (mcp): "), report.Summary)
	require.Contains(t, string(report.JSON), `"format":"mcp"`)
	e := openSnapshot(t, snap, WithEngine(NativeEngine))
	require.Equal(t, "generic-v1", e.Info().Profile)
	stored, err := StoredImportReport(snap)
	require.NoError(t, err)
	require.Contains(t, string(stored), `"format":"mcp"`)

	_, err = BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP, WithEngine(NativeEngine), WithProfile("nope"))
	require.ErrorAs(t, err, &werr)
	require.Equal(t, "invalid_catalog", werr.Reason)
	require.Contains(t, werr.Message, `unknown profile "nope"`)

	named, err := BuildSnapshot(ctx, "openai", readTestdata(t, "testdata", "provider", "openai-tools.json"),
		WithEngine(NativeEngine), WithDefaultProduct("weather"))
	require.NoError(t, err)
	e = openSnapshot(t, named, WithEngine(NativeEngine))
	out, err := e.Search(ctx, []byte(`{"version":"tool-search.v1","query":"weather"}`))
	require.NoError(t, err)
	require.Contains(t, string(out), `"canonical_path":"weather.`)

	stored, err = StoredImportReport(fixtures.DWSSnapshot)
	require.NoError(t, err)
	require.Nil(t, stored, "a DWS snapshot stores no report")
	_, err = StoredImportReport([]byte("garbage"))
	require.ErrorAs(t, err, &werr)
	require.Equal(t, "invalid_snapshot", werr.Reason)
}

// TestNativeEngine: the native engine's lifecycle answers as the module's
// pool does: the same Info, the same typed errors, a refused swap keeps the
// old snapshot, a done context and Close fail calls the same way.
func TestNativeEngine(t *testing.T) {
	ctx := context.Background()
	module := openDWS(t)
	e := openDWS(t, WithEngine(NativeEngine))
	want := module.Info()
	want.Engine = NativeEngine
	require.Equal(t, want, e.Info())

	huge := `{"version":"tool-search.v1","query":"` + strings.Repeat("文件", 20000) + `"}`
	// A scope (a hidden tool named exactly, alone, in a subquery and under a
	// pattern; a bad scope) is answered alike by the module and the core.
	scoped := []string{
		`{"version":"tool-search.v1","query":"chat.send_personal_message","scope":{"product_ids":["chat","todo"],"exclude_canonical":["chat.send_personal_message"]}}`,
		`{"version":"tool-search.v1","subqueries":["chat.send_personal_message","查已读"],"effects":["read"],"scope":{"exclude_canonical":["chat.send_personal_message"]}}`,
		`{"version":"tool-search.v1","pattern":"send","scope":{"product_ids":["chat"],"effects":["read","write"]}}`,
		`{"version":"tool-search.v1","query":"x","scope":{"effects":["run"]}}`,
	}
	answer, err := module.Search(ctx, []byte(scoped[0]))
	require.NoError(t, err)
	require.NotContains(t, string(answer), "exact_filtered", "the module knows the scope")
	require.NotContains(t, string(answer), `"canonical_path":"chat.send_personal_message"`)
	for _, request := range append([]string{huge, `{"version":"tool-search.v1","query":`, `{"query":"x"}`, ``, `{"version":"tool-search.v1","query":"x","limit":-1}`, chineseQuery, workflowQuery}, scoped...) {
		require.Equal(t, wasmAnswer(module.Search(ctx, []byte(request))), wasmAnswer(e.Search(ctx, []byte(request))), request)
		require.Equal(t, wasmAnswer(module.SearchExplain(ctx, []byte(request))), wasmAnswer(e.SearchExplain(ctx, []byte(request))), request)
	}
	for _, request := range []string{huge, `{"version":"schema-inspect.v1"`, `{"version":"schema-inspect.v1","canonical_path":"chat.query_msg_read_status"}`} {
		require.Equal(t, wasmAnswer(module.Inspect(ctx, []byte(request))), wasmAnswer(e.Inspect(ctx, []byte(request))), request)
	}
	_, err = e.ProviderRaw(ctx, make([]byte, wire.MaxRequestBytes+1))
	var werr *wire.Error
	require.ErrorAs(t, err, &werr)
	require.Equal(t, "request_too_large", werr.Reason)

	before, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	for _, bad := range badSnapshots(snapshotDWS(t)) {
		_, err := Open(ctx, bad.data, WithEngine(NativeEngine))
		require.ErrorAs(t, err, &werr, bad.name)
		require.Equal(t, bad.reason, werr.Reason, "%s: %v", bad.name, err)
		require.ErrorAs(t, e.Swap(ctx, bad.data), &werr, bad.name)
		require.Equal(t, bad.reason, werr.Reason, bad.name)
		after, err := e.Search(ctx, []byte(chineseQuery))
		require.NoError(t, err)
		require.Equal(t, before, after, bad.name)
	}

	b, err := secondSnapshot()
	require.NoError(t, err)
	require.NoError(t, e.Swap(ctx, b.snap))
	require.Equal(t, b.native.Version().SourceHash, e.Info().SourceHash)
	require.Equal(t, len(b.snap), e.Info().SnapshotBytes)
	got, err := e.Search(ctx, []byte(swapRequest))
	require.NoError(t, err)
	wantB, werrB := b.native.SearchJSON([]byte(swapRequest))
	require.Nil(t, werrB)
	require.Equal(t, string(wantB), string(got))

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.Search(done, []byte(chineseQuery))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, e.Swap(done, snapshotDWS(t)), context.Canceled)
	_, err = Open(done, snapshotDWS(t), WithEngine(NativeEngine))
	require.ErrorIs(t, err, context.Canceled)

	info := e.Info()
	require.NoError(t, e.Close(ctx))
	require.NoError(t, e.Close(ctx))
	_, err = e.Search(ctx, []byte(chineseQuery))
	require.ErrorIs(t, err, ErrClosed)
	_, err = e.Inspect(ctx, []byte(`{"version":"schema-inspect.v1"}`))
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, e.Swap(ctx, snapshotDWS(t)), ErrClosed)
	require.Equal(t, info, e.Info())
}

// TestNativeBuildStopsWithContext: a native build whose context ends stops
// at its next checkpoint (about one per tool and step) with the context's
// error, as the module's build does at its next WASI call.
func TestNativeBuildStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(5*time.Millisecond, cancel)
	defer timer.Stop()
	_, err := BuildSnapshot(ctx, "dws", fixtures.DWSCatalog, WithEngine(NativeEngine))
	require.ErrorIs(t, err, context.Canceled)

	_, err = BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP, WithEngine(NativeEngine))
	require.ErrorIs(t, err, context.Canceled, "a done context refuses at once")
	_, err = FromMCPTools(ctx, fixtures.GitHubSlackMCP, WithEngine(NativeEngine))
	require.ErrorIs(t, err, context.Canceled)
}

func TestParseEngine(t *testing.T) {
	for _, kind := range []EngineKind{ModuleEngine, NativeEngine} {
		got, err := ParseEngine(kind.String())
		require.NoError(t, err)
		require.Equal(t, kind, got)
	}
	_, err := ParseEngine("quantum")
	var werr *wire.Error
	require.True(t, errors.As(err, &werr))
	require.Equal(t, "invalid_engine", werr.Reason)
}
