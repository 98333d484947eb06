package snapshot_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
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

var dwsCatalog = fixtures.DWS

func buildDWS(t testing.TB) []byte {
	t.Helper()
	cat, err := dwsCatalog()
	require.NoError(t, err)
	snap, err := compile.Snapshot(cat, profile.DWSV1)
	require.NoError(t, err)
	return snap
}

func TestSnapshotIsDeterministicAndRoundTrips(t *testing.T) {
	a, b := buildDWS(t), buildDWS(t)
	require.Equal(t, a, b, "building twice gives the same bytes")
	body, werr := snapshot.Decode(a)
	require.Nil(t, werr)
	cat, err := dwsCatalog()
	require.NoError(t, err)
	require.Equal(t, *cat, body.Catalog.Plain(), "the catalog survives the round trip exactly (nil and empty lists included)")
	require.Equal(t, "dws-v1", body.Profile)
	t.Logf("snapshot: %d bytes", len(a))
}

// TestLargeSchemaOpens: a tool whose input schema is larger than the
// catalog's list limit (131,072) but within what importers accept (1 MiB)
// builds a snapshot that opens, and Inspect returns the schema whole. (The
// generated decoder refused it: every such snapshot failed to open.)
func TestLargeSchemaOpens(t *testing.T) {
	schema := `{"description":"` + strings.Repeat("d", 200_000) + `","type":"object"}`
	catalogJSON := `{"tools":[{"name":"big","description":"a tool with a large schema","inputSchema":` + schema + `}]}`
	snap, _, err := compile.FromCatalog("mcp", []byte(catalogJSON), importer.Options{})
	require.NoError(t, err)
	e, err := compile.Open(snap)
	require.NoError(t, err)
	require.Len(t, e.Catalog().Products, 1)
	tool := e.Catalog().Products[0].Tools[0]
	require.Equal(t, schema, string(tool.InputSchema))
	v := e.Catalog().Version
	out, err := e.InspectJSON([]byte(`{"version":"schema-inspect.v1","canonical_path":"` + tool.Identity.CanonicalPath +
		`","expected_source_hash":"` + v.SourceHash + `","expected_surface_hash":"` + v.SurfaceHash + `"}`))
	require.NoError(t, err)
	require.Contains(t, string(out), strings.Repeat("d", 200_000))
}

// TestDecodeOwnedKeepsTheInput checks both decodes give the same body, that
// Decode keeps no reference to its input and that Decode with Owned does (its
// strings are views into the input: that is the memory it saves).
func TestDecodeOwnedKeepsTheInput(t *testing.T) {
	snap := buildDWS(t)
	copied, werr := snapshot.Decode(snap)
	require.Nil(t, werr)
	ownedInput := bytes.Clone(snap)
	owned, werr := snapshot.Decode(ownedInput, snapshot.Owned())
	require.Nil(t, werr)
	require.Equal(t, copied, owned)

	name := strings.Clone(owned.Catalog.Products[0].ID)
	require.NotEmpty(t, name)
	clear(ownedInput)
	clear(snap)
	require.NotEqual(t, name, owned.Catalog.Products[0].ID, "an owned decode aliases its input")
	require.Equal(t, name, copied.Catalog.Products[0].ID, "a copying decode does not")
}

// TestSnapshotEngineAnswersLikeNative replays requests through an engine
// opened from a snapshot and one built from the catalog.
func TestSnapshotEngineAnswersLikeNative(t *testing.T) {
	cat, err := dwsCatalog()
	require.NoError(t, err)
	native, err := engine.New(cat, profile.DWSV1)
	require.NoError(t, err)
	opened, werr := compile.Open(buildDWS(t))
	require.Nil(t, werr)
	require.Equal(t, native.Version(), opened.Version())
	for _, request := range []string{
		`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读"}`,
		`{"version":"tool-search.v1","query":"查询","limit":20}`,
		`{"version":"tool-search.v1","query":"AI表格 新增记录","candidate_limit":100,"limit":20}`,
		`{"version":"tool-search.v1","subqueries":["以当前用户身份给群聊发送本地文件","查询指定消息的已读状态和人员"]}`,
		`{"version":"tool-search.v1","query":"chat message read-status"}`,
		`{"version":"tool-search.v1","query":"下载钉盘文件","product_ids":["drive"],"effects":["read"]}`,
	} {
		want, werr := native.SearchJSON([]byte(request))
		require.Nil(t, werr)
		got, werr := opened.SearchJSON([]byte(request))
		require.Nil(t, werr)
		require.Equal(t, string(want), string(got))
	}
	v := native.Version()
	inspect := []byte(`{"version":"schema-inspect.v1","canonical_path":"chat.query_msg_read_status","expected_source_hash":"` + v.SourceHash + `","expected_surface_hash":"` + v.SurfaceHash + `"}`)
	want, _ := native.InspectJSON(inspect)
	got, werr := opened.InspectJSON(inspect)
	require.Nil(t, werr)
	require.Equal(t, string(want), string(got))
}

func TestCorruptSnapshotsFailClosed(t *testing.T) {
	good := buildDWS(t)
	reseal := snapshot.Reseal // a valid checksum over a damaged body
	h := snapshot.HeaderSize
	cases := map[string][]byte{
		"empty":                            {},
		"short":                            good[:10],
		"bad magic":                        append([]byte("XXXXXXXX"), good[8:]...),
		"truncated":                        good[:len(good)-100],
		"padded":                           append(bytes.Clone(good), 0),
		"flipped body byte":                flip(good, len(good)/2),
		"flipped header checksum":          flip(good, 27),
		"flipped reserved header byte":     flip(good, 13),
		"body garbage with valid checksum": reseal(append(bytes.Clone(good[:h]), bytes.Repeat([]byte{0xdd}, len(good)-h)...)),
		"absurd array length with valid checksum": func() []byte {
			b := bytes.Clone(good[:h])
			b = append(b, 0x83, 0xa7) // map of 3, then a 7-byte key
			b = append(b, "profile"...)
			b = append(b, 0xdd, 0xff, 0xff, 0xff, 0xff) // array32 claiming 4 billion entries
			return reseal(b)
		}(),
	}
	for name, data := range cases {
		_, err := compile.Open(data)
		require.Equal(t, "invalid_snapshot", reasonOf(t, err), name)
		_, err = compile.Open(bytes.Clone(data), snapshot.Owned())
		require.Equal(t, "invalid_snapshot", reasonOf(t, err), name)
	}
	// The body ends with the identity table, whose last u32 is the tool of
	// the last bare name (generic profiles resolve them): a name that
	// points past the catalog is refused when the table is loaded.
	generic := bytes.Clone(fixtures.GenericSnapshot)
	_, err := compile.Open(generic)
	require.NoError(t, err)
	binary.LittleEndian.PutUint32(generic[len(generic)-4:], 1<<30)
	reseal(generic)
	for _, open := range openers {
		_, err = open(bytes.Clone(generic))
		require.Equal(t, "invalid_snapshot", reasonOf(t, err))
		require.ErrorContains(t, err, "identity table name: key")
	}

	future := bytes.Clone(good)
	binary.LittleEndian.PutUint32(future[8:], 99)
	_, err = compile.Open(future)
	require.Equal(t, "unsupported_snapshot_version", reasonOf(t, err))
	// A version 1 snapshot (24-byte header, CRC-32C) is refused by version.
	v1 := append([]byte("TSIFTSNP\x01\x00\x00\x00"), good[12:]...)
	_, err = compile.Open(v1)
	require.Equal(t, "unsupported_snapshot_version", reasonOf(t, err))
}

// TestDamageGivesTheChecksumErrorFirst: the checksum is computed while
// the body is decoded and the engine built (with more than one processor),
// and a damaged body still fails with the checksum's error, also when its
// damage would fail the decoder or the engine's validation too.
func TestDamageGivesTheChecksumErrorFirst(t *testing.T) {
	good := buildDWS(t)
	h := snapshot.HeaderSize
	damaged := map[string][]byte{
		"flipped body byte": flip(good, len(good)/2),
		"flipped last byte": flip(good, len(good)-1),
		"body garbage":      append(bytes.Clone(good[:h]), bytes.Repeat([]byte{0xdd}, len(good)-h)...),
		"body zeroed":       append(bytes.Clone(good[:h]), make([]byte, len(good)-h)...),
	}
	for _, procs := range []int{1, 2, 4} {
		previous := runtime.GOMAXPROCS(procs)
		for name, data := range damaged {
			for _, open := range openers {
				_, err := open(bytes.Clone(data))
				require.ErrorContains(t, err, "checksum mismatch", "%s, GOMAXPROCS %d", name, procs)
			}
			_, err := snapshot.Decode(data)
			require.ErrorContains(t, err, "checksum mismatch", "%s, GOMAXPROCS %d", name, procs)
		}
		e, err := compile.Open(good)
		require.NoError(t, err, "GOMAXPROCS %d", procs)
		require.Positive(t, e.ToolCount())
		runtime.GOMAXPROCS(previous)
	}
}

// TestEveryByteFlipIsRefusedOrHarmless flips bytes across the whole snapshot:
// each damaged copy must be refused (the checksum covers the body; the header
// fields are checked one by one).
func TestEveryByteFlipIsRefused(t *testing.T) {
	good := buildDWS(t)
	step := len(good) / 257
	for i := 0; i < len(good); i += step {
		_, werr := snapshot.Decode(flip(good, i))
		require.NotNil(t, werr, "flip at %d accepted", i)
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x40
	return c
}

func BenchmarkOpenSnapshot(b *testing.B) {
	snap := buildDWS(b)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		if _, werr := compile.Open(snap); werr != nil {
			b.Fatal(werr)
		}
	}
}

func BenchmarkBuildSnapshot(b *testing.B) {
	cat, err := dwsCatalog()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile.Snapshot(cat, profile.DWSV1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCommittedDefaultSnapshotIsFresh: the snapshot every host embeds by
// default must be exactly what the current code builds from the catalog.
func TestCommittedDefaultSnapshotIsFresh(t *testing.T) {
	require.True(t, bytes.Equal(buildDWS(t), fixtures.DWSSnapshot),
		"catalogs/dws/dws.snap is stale: rebuild it with `go run ./cmd/wasmhost snapshot build --engine native --in testdata/dws/catalog.tar.gz -o catalogs/dws/dws.snap`")
}

// FuzzOpen: any bytes are refused with a typed error or open into an engine
// that answers; never a panic. Seeds are the default snapshot and small
// damaged copies of it (with valid checksums, so the decoder is reached).
func FuzzOpen(f *testing.F) {
	good := fixtures.DWSSnapshot
	reseal := snapshot.Reseal
	h := snapshot.HeaderSize
	f.Add(good)
	f.Add(reseal(bytes.Clone(good[:4096])))
	f.Add(reseal(append(bytes.Clone(good[:h]), 0x93, 0xa6, 'd', 'w', 's', '-', 'v', '1', 0x93)))
	f.Add([]byte("TSIFTSNP"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= h && string(data[:8]) == "TSIFTSNP" && binary.LittleEndian.Uint32(data[8:]) == snapshot.FormatVersion {
			data = reseal(bytes.Clone(data)) // reach the body decoder, not just the checksum
		}
		e, err := compile.Open(data)
		// Decoding in place must decide exactly as decoding a copy does.
		if _, owned := compile.Open(bytes.Clone(data), snapshot.Owned()); (err == nil) != (owned == nil) || (err != nil && reasonOf(t, err) != reasonOf(t, owned)) {
			t.Fatalf("Open refused with %v, Open Owned with %v", err, owned)
		}
		if err != nil {
			if reasonOf(t, err) == "" {
				t.Fatalf("untyped refusal: %v", err)
			}
			return
		}
		if _, err := e.SearchJSON([]byte(`{"version":"tool-search.v1","query":"查询 chat"}`)); err != nil && reasonOf(t, err) == "" {
			t.Fatalf("untyped search error: %v", err)
		}
	})
}

// reasonOf fails the test unless err is a non-nil error holding a
// *wire.Error, and returns its reason.
func reasonOf(t testing.TB, err error) string {
	t.Helper()
	var werr *wire.Error
	if !errors.As(err, &werr) {
		t.Fatalf("want a *wire.Error, got %T %v", err, err)
	}
	return werr.Reason
}

// openers open a snapshot with its bytes copied and handed over.
var openers = []func([]byte) (*engine.Engine, error){
	func(data []byte) (*engine.Engine, error) { return compile.Open(data) },
	func(data []byte) (*engine.Engine, error) { return compile.Open(data, snapshot.Owned()) },
}
