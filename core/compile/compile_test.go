package compile_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestCommittedSnapshotsRebuildByteForByte: building the DWS catalog and
// the generic MCP catalog (whose snapshots store an import report, as a
// section of their own) gives exactly the committed snapshots' bytes, so
// that splitting the format (core/snapshot) from building (this package)
// changed no snapshot any host reads.
func TestCommittedSnapshotsRebuildByteForByte(t *testing.T) {
	dws, _, err := compile.FromCatalog("dws", fixtures.DWSCatalog, importer.Options{})
	require.NoError(t, err)
	require.True(t, bytes.Equal(fixtures.DWSSnapshot, dws), "catalogs/dws/dws.snap")

	generic, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	for _, c := range []struct {
		profile string
		want    []byte // the snapshot, or the hex of its SHA-256 and a newline
	}{
		{"generic-v1", fixtures.GenericV1Snapshot},
		{"generic-v2", fixtures.GenericSnapshot},
		{"generic-v3", fixtures.GenericV3SnapshotSHA256},
	} {
		snap, report, err := compile.FromCatalog("mcp", generic, importer.Options{Profile: c.profile})
		require.NoError(t, err)
		got := snap
		if c.profile == "generic-v3" {
			sum := sha256.Sum256(snap)
			got = []byte(hex.EncodeToString(sum[:]) + "\n")
		}
		require.True(t, bytes.Equal(c.want, got), "testdata/generic snapshot of %s", c.profile)

		// The stored report is the import's, less what is returned but
		// not stored.
		body, err := snapshot.Decode(snap)
		require.NoError(t, err)
		require.NotEmpty(t, body.Report)
		encoded, err := report.MarshalMsg(nil)
		require.NoError(t, err)
		require.Equal(t, encoded, []byte(body.Report))
		stored, err := compile.Report(body)
		require.NoError(t, err)
		require.Equal(t, report.ToolsImported, stored.ToolsImported)
		require.Equal(t, len(report.Fields), len(stored.Fields))
	}
}

// TestDWSStoresNoReport: the DWS import's report is returned, not stored.
func TestDWSStoresNoReport(t *testing.T) {
	body, err := snapshot.Decode(fixtures.DWSSnapshot)
	require.NoError(t, err)
	require.Empty(t, body.Report)
	report, err := compile.Report(body)
	require.NoError(t, err)
	require.Nil(t, report)
}

// TestDamagedReportIsInvalidSnapshot: a report section that is one
// MessagePack value but no report passes the format and is refused when
// read, as an invalid snapshot.
func TestDamagedReportIsInvalidSnapshot(t *testing.T) {
	body, err := snapshot.Decode(fixtures.GenericSnapshot)
	require.NoError(t, err)
	report := bytes.Clone(body.Report)
	for name, damaged := range map[string][]byte{
		"not a report":   {0x93, 0x01, 0x02, 0x03}, // an array of three ints
		"trailing bytes": append(bytes.Clone(report), 0xc0),
	} {
		body.Report = damaged
		_, err = compile.Report(body)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%s: %v", name, err)
		require.Equal(t, "invalid_snapshot", werr.Reason, name)
	}
	body.Report = report
	_, err = compile.Report(body)
	require.NoError(t, err)

	// The format keeps a report section it cannot read; opening refuses it.
	body.Report = []byte{0x93, 0x01, 0x02, 0x03}
	damaged, err := snapshot.Encode(body)
	require.NoError(t, err)
	_, err = snapshot.Decode(damaged)
	require.NoError(t, err)
	for _, opts := range [][]snapshot.DecodeOption{nil, {snapshot.Owned()}} {
		e, err := compile.Open(bytes.Clone(damaged), opts...)
		require.Nil(t, e)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		require.Equal(t, "invalid_snapshot", werr.Reason)
		require.ErrorContains(t, err, "import report")
	}
}

// TestOptionsAreTheOldPairs: each option gives what the paired function it
// replaces gave: WithReport stores the report (and Encode of an engine is
// Snapshot of its catalog), WithCheckpoint is called and changes no byte,
// snapshot.Owned opens the same engine.
func TestOptionsAreTheOldPairs(t *testing.T) {
	cat, p, report, err := importer.ImportWith("mcp", fixtures.GitHubSlackMCP, importer.Options{})
	require.NoError(t, err)
	plain, err := compile.Snapshot(cat, p)
	require.NoError(t, err)
	calls := 0
	checked, err := compile.Snapshot(cat, p, compile.WithCheckpoint(func() { calls++ }))
	require.NoError(t, err)
	require.Equal(t, plain, checked)
	require.Positive(t, calls)

	withReport, err := compile.Snapshot(cat, p, compile.WithReport(report))
	require.NoError(t, err)
	require.NotEqual(t, plain, withReport)
	e, err := engine.New(cat, p)
	require.NoError(t, err)
	encoded, err := compile.Encode(e, compile.WithReport(report))
	require.NoError(t, err)
	require.Equal(t, withReport, encoded)

	copied, err := compile.Open(withReport)
	require.NoError(t, err)
	owned, err := compile.Open(bytes.Clone(withReport), snapshot.Owned())
	require.NoError(t, err)
	request := []byte(`{"version":"tool-search.v1","query":"create an issue"}`)
	want, err := copied.SearchJSON(request)
	require.NoError(t, err)
	got, err := owned.SearchJSON(request)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// TestOpenRunsCallersThenFirst: a snapshot.Then given to Open runs before
// the engine is built, and its error is Open's.
func TestOpenRunsCallersThenFirst(t *testing.T) {
	refused := wire.Validation("refused", "the caller refused this snapshot")
	var seen string
	e, err := compile.Open(fixtures.DWSSnapshot, snapshot.Then(func(body *snapshot.Body) error {
		seen = body.Profile
		return refused
	}))
	require.Nil(t, e)
	require.Equal(t, profile.DWSV1.Name, seen)
	var werr *wire.Error
	require.True(t, errors.As(err, &werr))
	require.Equal(t, "refused", werr.Reason)
}
