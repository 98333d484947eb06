package snapshot_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// The public API returns error, not *wire.Error: a success must be a nil
// interface (a nil *wire.Error inside an error is non-nil, and a caller's
// `if err != nil` would take it for a failure), and a failure must hold the
// typed error where errors.As finds it.
func TestPublicErrorsAreNilInterfacesOnSuccess(t *testing.T) {
	isNil := func(name string, err error) {
		t.Helper()
		require.True(t, err == nil, "%s: a successful call returned a non-nil error %#v", name, err)
	}
	_, err := snapshot.Decode(fixtures.DWSSnapshot)
	isNil("Decode", err)
	_, err = snapshot.Decode(bytes.Clone(fixtures.DWSSnapshot), snapshot.Owned())
	isNil("Decode Owned", err)
	_, err = compile.Open(bytes.Clone(fixtures.DWSSnapshot), snapshot.Owned())
	isNil("Open Owned", err)
	e, err := compile.Open(fixtures.DWSSnapshot)
	isNil("Open", err)

	request := []byte(`{"version":"tool-search.v1","query":"发送群消息"}`)
	_, err = e.SearchJSON(request)
	isNil("SearchJSON", err)
	_, err = e.AppendSearchJSON(nil, request)
	isNil("AppendSearchJSON", err)
	decoded, werr := wire.DecodeSearchRequest(request)
	require.Nil(t, werr)
	_, err = e.Search(decoded)
	isNil("Search", err)

	v := e.Version()
	inspect := wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: "chat.query_msg_read_status",
		ExpectedSourceHash: v.SourceHash, ExpectedSurfaceHash: v.SurfaceHash}
	_, err = e.Inspect(inspect)
	isNil("Inspect", err)
}

func TestPublicErrorsHoldTheTypedError(t *testing.T) {
	typed := func(name, reason string, err error) {
		t.Helper()
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%s: %T %v holds no *wire.Error", name, err, err)
		require.Equal(t, reason, werr.Reason, name)
	}
	_, err := snapshot.Decode([]byte("nope"))
	typed("Decode", "invalid_snapshot", err)
	_, err = compile.Open([]byte("nope"))
	typed("Open", "invalid_snapshot", err)

	var e *engine.Engine
	e, err = compile.Open(fixtures.DWSSnapshot)
	require.NoError(t, err)
	_, err = e.SearchJSON([]byte(`{"version":"tool-search.v1"}`))
	typed("SearchJSON", "query_required", err)
	_, err = e.InspectJSON([]byte(`{"version":"schema-inspect.v1","canonical_path":"chat"}`))
	typed("InspectJSON", "incomplete_catalog_version", err)
}

// syntheticMCP is a tools/list result of n generated tools, each with a
// description and two parameters.
func syntheticMCP(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%05d","description":"Fetch record %d of ledger %d and report its balance","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Record id %d"},"limit":{"type":"integer"}},"required":["id"]}}`, i, i, i%97, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// A snapshot over the size limit is refused where it is built, with
// snapshot_too_large naming the limit, instead of being written for every
// host to refuse when it reads it (100,000 MCP tools made 1.09 GB, over the
// 1 GiB the command lines read); and Decode refuses one over the limit
// before reading its header. The limit is lowered here, so that a catalog
// of 300 tools passes it.
func TestSnapshotTooLarge(t *testing.T) {
	catalog := syntheticMCP(300)
	snap, _, err := compile.FromCatalog("mcp", catalog, importer.Options{})
	require.NoError(t, err)
	size := len(snap)
	require.Less(t, size, snapshot.MaxBytes)

	snapshot.SetMaxBytes(t, size) // exactly at the limit: written and read
	again, _, err := compile.FromCatalog("mcp", catalog, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, snap, again)
	_, err = compile.Open(snap)
	require.NoError(t, err)

	snapshot.SetMaxBytes(t, size-1)
	for name, buildIt := range map[string]func() ([]byte, error){
		"FromCatalog": func() ([]byte, error) {
			s, _, err := compile.FromCatalog("mcp", catalog, importer.Options{})
			return s, err
		},
		"Open": func() ([]byte, error) {
			_, err := compile.Open(snap)
			return nil, err
		},
	} {
		out, err := buildIt()
		require.True(t, out == nil, name)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%s: %v", name, err)
		require.Equal(t, "snapshot_too_large", werr.Reason, name)
		require.Equal(t, wire.CategoryValidation, werr.Category, name)
		require.Contains(t, werr.Message, fmt.Sprintf("is %d bytes, over the limit of %d bytes", size, size-1), name)
	}

	// Build (no import report stored) and Encode check the same limit.
	cat, p, err := importer.Import("mcp", catalog)
	require.NoError(t, err)
	snapshot.SetMaxBytes(t, snapshot.MaxBytes)
	built, err := compile.Snapshot(cat, p)
	require.NoError(t, err)
	snapshot.SetMaxBytes(t, len(built)-1)
	out, err := compile.Snapshot(cat, p)
	require.True(t, out == nil)
	require.ErrorContains(t, err, "snapshot_too_large")
}
