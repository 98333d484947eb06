package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
)

// wireError unwraps the typed error of a failed call (nil when err is).
func wireError(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) && we != nil {
		return we
	}
	return nil
}

// smallEngine is a two-tool catalog under p.
func smallEngine(t *testing.T, p *profile.Profile) *engine.Engine {
	t.Helper()
	cat := &catalog.Catalog{
		Version: catalog.VersionRef{SourceHash: "source-test", SurfaceHash: "surface-test"},
		Products: []catalog.Product{{ID: "tools", Name: "tools", Tools: []catalog.Tool{
			tool("tools", "read_file", "read-file", "Read a file", "read"),
			tool("tools", "write_file", "write-file", "Write a file", "write"),
		}}},
	}
	e, err := engine.New(cat, p)
	require.NoError(t, err)
	return e
}

func inspectPath(e *engine.Engine, path, sourceHash string) (*wire.Error, bool) {
	v := e.Version()
	if sourceHash == "" {
		sourceHash = v.SourceHash
	}
	out, err := e.Inspect(wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: path,
		ExpectedSourceHash: sourceHash, ExpectedSurfaceHash: v.SurfaceHash})
	if out != nil {
		return nil, true
	}
	return wireError(err), false
}

// TestInspectRefusesOrEscapesUnsafePaths: issue 17 item 8, Inspect echoed
// U+202E, U+200B and a 60 KB path raw in its error.
func TestInspectRefusesOrEscapesUnsafePaths(t *testing.T) {
	for _, p := range []*profile.Profile{profile.DWSV1, profile.GenericV2} {
		e := smallEngine(t, p)
		for _, path := range []string{"tools.read_file\u202e", "tools.\u200bread_file", "tools.read_file\x01", "\u2066tools"} {
			werr, ok := inspectPath(e, path, "")
			require.False(t, ok, "%s %q", p.Name, path)
			require.NotNil(t, werr)
			require.Equal(t, "dangerous_path_unicode", werr.Reason, "%s %q", p.Name, path)
			require.False(t, strings.ContainsAny(werr.Message, "\u202e\u200b\x01\u2066"), "echoed raw: %q", werr.Message)
		}
		// The hashes are checked first, as the reference orders it.
		werr, _ := inspectPath(e, "tools.read_file\u202e", "sha256:stale")
		require.Equal(t, "catalog_changed", werr.Reason)

		long := "tools." + strings.Repeat("é", 30<<10) // 60 KB
		werr, _ = inspectPath(e, long, "")
		require.Equal(t, "unknown_path", werr.Reason)
		require.Less(t, len(werr.Message), 1024, "the echo is capped")
		require.Contains(t, werr.Message, "é…\"")
	}

	// Characters dws-v1 accepts for conformance are escaped in the echo;
	// generic-v2 refuses them.
	for _, r := range []rune{0x200E, 0x200F, 0x061C, 0x2060, 0xE0041, 0x0085, 0x009B, 0x00AD} {
		path := "tools.read" + string(r) + "_file"
		werr, _ := inspectPath(smallEngine(t, profile.DWSV1), path, "")
		require.Equal(t, "unknown_path", werr.Reason, "U+%04X", r)
		require.NotContains(t, werr.Message, string(r), "U+%04X is echoed raw", r)
		require.Regexp(t, `tools\.read\\[uU]0*[0-9A-F]{4,5}_file`, werr.Message, "U+%04X", r)

		werr, _ = inspectPath(smallEngine(t, profile.GenericV2), path, "")
		require.Equal(t, "dangerous_path_unicode", werr.Reason, "U+%04X", r)
	}
}

// TestQueryUnicodePerProfile: issue 17 item 9. dws-v1 keeps the
// reference's list (U+200E passes there, for conformance); generic-v2
// refuses every invisible character in queries, subqueries and filters.
func TestQueryUnicodePerProfile(t *testing.T) {
	dws, generic := smallEngine(t, profile.DWSV1), smallEngine(t, profile.GenericV2)
	refused := func(e *engine.Engine, r wire.SearchRequest) string {
		r.Version = wire.SearchVersion
		response, err := e.Search(r)
		if response != nil {
			return ""
		}
		return wireError(err).Reason
	}
	for _, r := range []rune{0x200E, 0x200F, 0x061C, 0x2060, 0xE0041, 0xE0020, 0x0085, 0x009B, 0x00AD, 0x180E, 0xFE0F} {
		s := "read" + string(r) + " file"
		require.Equal(t, "", refused(dws, wire.SearchRequest{Query: s}), "dws-v1 U+%04X", r)
		require.Equal(t, "dangerous_query_unicode", refused(generic, wire.SearchRequest{Query: s}), "generic-v2 U+%04X", r)
		require.Equal(t, "dangerous_query_unicode", refused(generic, wire.SearchRequest{Subqueries: []string{"read file", s}}), "generic-v2 subquery U+%04X", r)
		require.Equal(t, "dangerous_filter_unicode", refused(generic, wire.SearchRequest{Query: "read file", ExcludeCanonical: []string{s}}), "generic-v2 filter U+%04X", r)
	}
	// Both refuse the reference's list.
	for _, e := range []*engine.Engine{dws, generic} {
		require.Equal(t, "dangerous_query_unicode", refused(e, wire.SearchRequest{Query: "read\u202efile"}))
	}
	// Ordinary non-ASCII text stays accepted.
	for _, q := range []string{"读取文件", "café file", "naïve\u0301 read", "read file 🔍"} {
		require.Equal(t, "", refused(generic, wire.SearchRequest{Query: q}), q)
	}
}
