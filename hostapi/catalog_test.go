package hostapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// A native build is the module's build: the same bytes from the same
// catalog (the generic MCP catalog's snapshot is pinned by its SHA-256,
// which the module's own build is tested against; the small one is built
// by the module here), and its view agrees with what the engine serving
// it says.
func TestNativeBuildAndViewAreTheModules(t *testing.T) {
	generic, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	snap, view, err := buildCatalog("mcp", generic)
	require.NoError(t, err)
	sum := sha256.Sum256(snap)
	require.Equal(t, strings.TrimSpace(string(fixtures.GenericV3SnapshotSHA256)), hex.EncodeToString(sum[:]))
	require.Equal(t, 527, view.Len())

	snap, view, err = buildCatalog("mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	module, err := BuildSnapshot(context.Background(), "mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	require.Equal(t, module, snap, "the native build differs from the module's")

	e := openSnapshot(t, snap)
	info := e.Info()
	source, surface := view.Hashes()
	require.Equal(t, info.SourceHash, source)
	require.Equal(t, info.SurfaceHash, surface)
	require.Equal(t, info.Format, view.Format())
	require.Equal(t, info.Profile, view.Profile())
	require.Equal(t, info.ToolCount, view.Len())
	require.Equal(t, 34, view.Len())
	served, err := e.Catalog()
	require.NoError(t, err)
	require.Equal(t, view, served, "the engine's view of the snapshot is not the build's")
}

// The view's tools are the catalog's, in its order, with what a caller
// routes by: the canonical path, the product, the name on the server, the
// safety and the input schema.
func TestCatalogView(t *testing.T) {
	_, view, err := buildCatalog("mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)

	var products []Product
	for p := range view.Products() {
		products = append(products, p)
	}
	require.Equal(t, []Product{{ID: "github", Name: "github", Tools: 26}, {ID: "slack", Name: "slack", Tools: 8}}, products)

	var paths []string
	for tool := range view.Tools() {
		paths = append(paths, tool.CanonicalPath)
		got, ok := view.Tool(tool.CanonicalPath)
		require.True(t, ok)
		require.Equal(t, tool, got)
	}
	require.Len(t, paths, 34)
	require.IsNonDecreasing(t, paths[:26])
	require.IsNonDecreasing(t, paths[26:])
	require.True(t, strings.HasPrefix(paths[0], "github.") && strings.HasPrefix(paths[33], "slack."))

	tool, ok := view.Tool("github.create_or_update_file")
	require.True(t, ok)
	require.Equal(t, "github", tool.ProductID)
	require.Equal(t, "create_or_update_file", tool.Name)
	require.Equal(t, "github", tool.RPCProductID)
	require.Equal(t, "create_or_update_file", tool.RPCName)
	require.Equal(t, "Create or update a single file in a GitHub repository", tool.Description)
	require.Equal(t, "mcp", tool.Mode)
	require.Contains(t, []string{"read", "write", "destructive"}, tool.Effect)
	require.True(t, strings.HasPrefix(tool.InputSchema, `{"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false,"properties":{"branch":`), tool.InputSchema)

	_, ok = view.Tool("github.no_such_tool")
	require.False(t, ok)

	// A Tool is a value: changing the one handed out changes nothing else.
	tool.CanonicalPath, tool.Effect = "changed", "read"
	again, _ := view.Tool("github.create_or_update_file")
	require.Equal(t, "github.create_or_update_file", again.CanonicalPath)

	// Stopping an iteration early stops it.
	n := 0
	for range view.Tools() {
		if n++; n == 3 {
			break
		}
	}
	require.Equal(t, 3, n)
}

// The view carries the import's report: a tool the importer skips is
// counted and named.
func TestCatalogImportReport(t *testing.T) {
	catalog := []byte(`{"servers":{"s":{"tools":[` +
		`{"name":"echo","description":"Echo a message back","inputSchema":{"type":"object"}},` +
		`{"name":"bad\u200bname","description":"A name with a zero-width space","inputSchema":{"type":"object"}}]}}}`)
	_, view, err := buildCatalog("mcp", catalog)
	require.NoError(t, err)
	require.Equal(t, 1, view.ToolsSkipped())
	require.Contains(t, view.ImportSummary(), "import (mcp): 2 tools read, 1 imported, 1 skipped")
	require.Contains(t, view.ImportSummary(), `skipped tool "s.bad\u200bname"`)
	require.Equal(t, 1, view.Len())

	// A DWS snapshot stores no report.
	dws, err := DecodeCatalog(fixtures.DWSSnapshot)
	require.NoError(t, err)
	require.Equal(t, 0, dws.ToolsSkipped())
	require.Equal(t, "", dws.ImportSummary())
	require.Equal(t, "dws", dws.Format())
}

// A catalog the importer refuses, and a snapshot that is not one, are typed
// errors with the module's reasons.
func TestCatalogRefusals(t *testing.T) {
	for _, tc := range []struct {
		format, catalog, reason string
	}{
		{"no-such-format", `{}`, "unknown_format"},
		{"mcp", `{"servers":`, "invalid_catalog"},
		{"mcp", `[1,2,3]`, "invalid_catalog"},
	} {
		_, _, err := buildCatalog(tc.format, []byte(tc.catalog))
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		require.Equal(t, tc.reason, werr.Reason, "%s %s", tc.format, tc.catalog)
		checked := CheckCatalog(tc.format, []byte(tc.catalog))
		require.Equal(t, err, checked, "CheckCatalog refuses as the build does")
		// The module refuses it for the same reason.
		_, err = BuildSnapshot(context.Background(), tc.format, []byte(tc.catalog))
		require.Error(t, err)
		require.Contains(t, err.Error(), "("+tc.reason+")")
	}
	require.NoError(t, CheckCatalog("mcp", fixtures.GitHubSlackMCP))

	snap, _, err := buildCatalog("mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	for _, bad := range [][]byte{nil, []byte("not a snapshot"), snap[:len(snap)-1], flipped(snap, len(snap)/2)} {
		_, err := DecodeCatalog(bad)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		require.Equal(t, "invalid_snapshot", werr.Reason)
	}
}

func flipped(b []byte, at int) []byte {
	out := append([]byte(nil), b...)
	out[at] ^= 0xFF
	return out
}

// Engine.Catalog is made once per snapshot, follows Swap, and agrees with
// the answers of the snapshot serving; under concurrent calls and swaps
// every view it returns is one of the two catalogs whole.
func TestEngineCatalogFollowsSwap(t *testing.T) {
	forEachEngine(t, func(t *testing.T, kind EngineKind) { testEngineCatalogFollowsSwap(t, kind) })
}

func testEngineCatalogFollowsSwap(t *testing.T, kind EngineKind) {
	snapA, viewA, err := buildCatalog("mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	snapB, viewB, err := buildCatalog("mcp", fixtures.FilesystemMCP)
	require.NoError(t, err)
	sourceA, _ := viewA.Hashes()
	sourceB, _ := viewB.Hashes()
	require.NotEqual(t, sourceA, sourceB)

	ctx := context.Background()
	e, err := Open(ctx, snapA, WithMaxInstances(2), WithEngine(kind))
	require.NoError(t, err)
	first, err := e.Catalog()
	require.NoError(t, err)
	again, err := e.Catalog()
	require.NoError(t, err)
	require.Same(t, first, again, "the view is made once per snapshot")
	require.Equal(t, viewA, first)

	require.NoError(t, e.Swap(ctx, snapB))
	swapped, err := e.Catalog()
	require.NoError(t, err)
	require.Equal(t, viewB, swapped)
	answer, err := e.Search(ctx, []byte(`{"version":"tool-search.v1","query":"read a file"}`))
	require.NoError(t, err)
	require.Equal(t, sourceB, sourceHashOf(t, answer))

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Go(func() {
			for i := range 8 {
				if w == 0 {
					next := snapA
					if i%2 == 1 {
						next = snapB
					}
					if err := e.Swap(ctx, next); err != nil {
						errs <- err
					}
					continue
				}
				view, err := e.Catalog()
				if err != nil {
					errs <- err
					continue
				}
				if source, _ := view.Hashes(); source != sourceA && source != sourceB || (source == sourceA) != (view.Len() == viewA.Len()) {
					errs <- errors.New("a view mixes two catalogs")
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	require.NoError(t, e.Close(ctx))
	_, err = e.Catalog()
	require.ErrorIs(t, err, ErrClosed)
}

// buildCatalog is what the gateway does: a native build, then the view of
// the snapshot it made.
func buildCatalog(format string, catalog []byte) ([]byte, *Catalog, error) {
	snap, err := BuildSnapshot(context.Background(), format, catalog, WithEngine(NativeEngine))
	if err != nil {
		return nil, nil, err
	}
	view, err := DecodeCatalog(snap)
	return snap, view, err
}

// What the view costs beside a native build (tens to hundreds of ms): the
// decode, and the view alone, over the generic MCP catalog (527 tools).
//
//	go test ./hostapi -run '^$' -bench 'DecodeCatalog' -count 5
func BenchmarkDecodeCatalog(b *testing.B) {
	generic, err := fixtures.GenericMCPCatalog()
	require.NoError(b, err)
	snap, _, err := buildCatalog("mcp", generic)
	require.NoError(b, err)
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := snapshotDecode(snap); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("view", func(b *testing.B) {
		body, report, err := snapshotDecode(snap)
		require.NoError(b, err)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			viewOf(body.Profile, &body.Catalog, report)
		}
	})
}
