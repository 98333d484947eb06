package wasm_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/internal/fixtures"
	"github.com/toolsift/toolsift/internal/release"
	"github.com/toolsift/toolsift/wasm"
)

// abi drives the raw exports the way ABI.md describes, with no host library
// in between.
type abi struct {
	t   *testing.T
	ctx context.Context
	mod api.Module
}

func newABI(t *testing.T) *abi {
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	t.Cleanup(func() { r.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	mod, err := r.InstantiateWithConfig(ctx, wasm.Binary, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
	require.NoError(t, err)
	return &abi{t: t, ctx: ctx, mod: mod}
}

func (a *abi) call(name string, params ...uint64) uint64 {
	out, err := a.mod.ExportedFunction(name).Call(a.ctx, params...)
	require.NoError(a.t, err, name)
	if len(out) == 0 {
		return 0
	}
	return out[0]
}

// in copies b into a fresh module buffer.
func (a *abi) in(b []byte) (uint64, uint64) {
	ptr := a.call("toolsift_alloc", uint64(len(b)))
	require.True(a.t, a.mod.Memory().Write(uint32(ptr), b))
	return ptr, uint64(len(b))
}

// result unpacks a result descriptor: status byte and a copy of the payload.
func (a *abi) result(descriptor uint64) (byte, []byte) {
	ptr, size := uint32(descriptor>>32), uint32(descriptor)
	view, ok := a.mod.Memory().Read(ptr, size)
	require.True(a.t, ok)
	out := append([]byte(nil), view...)
	a.call("toolsift_free", uint64(ptr))
	return out[0], out[1:]
}

func TestABIEndToEnd(t *testing.T) {
	a := newABI(t)
	status, version := a.result(a.call("toolsift_version"))
	require.Equal(t, byte(0), status)
	require.JSONEq(t, `{"abi":1,"module":"toolsift","version":"`+release.Version+`","snapshot_format":6,"profiles":["dws-v1","generic-v1","generic-v2","generic-v3"],"formats":["dws","toolsift","mcp","openai","anthropic","beir","openapi"]}`, string(version))

	fp, fn := a.in([]byte("dws"))
	cp, cn := a.in(fixtures.DWSCatalog)
	status, snap := a.result(a.call("toolsift_build_snapshot", fp, fn, cp, cn))
	require.Equal(t, byte(0), status, string(snap))

	sp, sn := a.in(snap)
	status, handle := a.result(a.call("toolsift_open", sp, sn))
	require.Equal(t, byte(0), status, string(handle))
	h := uint64(binary.LittleEndian.Uint32(handle))
	require.NotZero(t, h)

	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	require.NoError(t, err)
	cat, err := dws.Import(files)
	require.NoError(t, err)
	native, err := engine.New(cat, profile.DWSV1)
	require.NoError(t, err)
	request := []byte(`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读"}`)
	want, werr := native.SearchJSON(request)
	require.Nil(t, werr)
	rp, rn := a.in(request)
	status, got := a.result(a.call("toolsift_search", h, rp, rn, 0))
	require.Equal(t, byte(0), status)
	require.Equal(t, string(want), string(got))

	status, explained := a.result(a.call("toolsift_search", h, rp, rn, 1))
	require.Equal(t, byte(0), status)
	require.Contains(t, string(explained), `"score_breakdown"`)

	// Refusals are error results, never traps.
	status, body := a.result(a.call("toolsift_search", h, rp, rn, 2))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_flags"`)
	status, body = a.result(a.call("toolsift_search", 999, rp, rn, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"unknown_handle"`)
	status, body = a.result(a.call("toolsift_search", h, rp+1, rn, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_buffer"`)
	status, body = a.result(a.call("toolsift_search", h, rp, rn+1, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_buffer"`)
	bad, bn := a.in([]byte(`{"version":"tool-search.v1","query":"q","bogus":1}`))
	status, body = a.result(a.call("toolsift_search", h, bad, bn, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_request_json"`)
	corrupt := append([]byte(nil), snap...)
	corrupt[len(corrupt)/2] ^= 1
	cp2, cn2 := a.in(corrupt)
	status, body = a.result(a.call("toolsift_open", cp2, cn2))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_snapshot"`)

	// A freed result's memory carries the next result; one the host still
	// holds is never written.
	other := []byte(`{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`)
	wantOther, werr := native.SearchJSON(other)
	require.Nil(t, werr)
	op, on := a.in(other)
	held := a.call("toolsift_search", h, rp, rn, 0)
	freed := a.call("toolsift_search", h, op, on, 0)
	a.call("toolsift_free", freed>>32)
	reused := a.call("toolsift_search", h, op, on, 0)
	require.Equal(t, freed>>32, reused>>32, "the freed buffer carries the next result")
	status, got = a.result(reused)
	require.Equal(t, byte(0), status)
	require.Equal(t, string(wantOther), string(got))
	status, got = a.result(held)
	require.Equal(t, byte(0), status)
	require.Equal(t, string(want), string(got))

	// The handle still serves after all that.
	status, again := a.result(a.call("toolsift_search", h, rp, rn, 0))
	require.Equal(t, byte(0), status)
	require.Equal(t, string(want), string(again))
	require.Equal(t, uint64(0), a.call("toolsift_close", h))
	require.Equal(t, uint64(1), a.call("toolsift_close", h))
	status, _ = a.result(a.call("toolsift_search", h, rp, rn, 0))
	require.Equal(t, byte(1), status)
}

// TestOpenOwned opens a snapshot in place: the engine answers as one opened
// from a copy, and the buffer is the module's from then on (the host's free
// is a no-op, and the module no longer reads requests from it).
func TestOpenOwned(t *testing.T) {
	a := newABI(t)
	request := []byte(`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读"}`)
	rp, rn := a.in(request)

	sp, sn := a.in(fixtures.DWSSnapshot)
	status, handle := a.result(a.call("toolsift_open", sp, sn))
	require.Equal(t, byte(0), status)
	status, want := a.result(a.call("toolsift_search", uint64(binary.LittleEndian.Uint32(handle)), rp, rn, 0))
	require.Equal(t, byte(0), status)

	op, on := a.in(fixtures.DWSSnapshot)
	status, handle = a.result(a.call("toolsift_open_owned", op, on))
	require.Equal(t, byte(0), status, string(handle))
	owned := uint64(binary.LittleEndian.Uint32(handle))
	a.call("toolsift_free", op)
	status, got := a.result(a.call("toolsift_search", owned, rp, rn, 0))
	require.Equal(t, byte(0), status)
	require.Equal(t, string(want), string(got))
	status, body := a.result(a.call("toolsift_search", owned, op, rn, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_buffer"`, "the snapshot buffer is no longer the host's")

	// A refused snapshot is the module's too, and the open engines are
	// untouched.
	corrupt := append([]byte(nil), fixtures.DWSSnapshot...)
	corrupt[len(corrupt)/2] ^= 1
	cp, cn := a.in(corrupt)
	status, body = a.result(a.call("toolsift_open_owned", cp, cn))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_snapshot"`)
	status, body = a.result(a.call("toolsift_search", owned, cp, rn, 0))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_buffer"`)
	status, body = a.result(a.call("toolsift_open_owned", sp+1, sn-1))
	require.Equal(t, byte(1), status)
	require.Contains(t, string(body), `"reason":"invalid_buffer"`)
	status, got = a.result(a.call("toolsift_search", owned, rp, rn, 0))
	require.Equal(t, byte(0), status)
	require.Equal(t, string(want), string(got))
}

// TestSetMemoryLimit: the heap's soft ceiling sits a sixteenth below the host's
// limit, the wasm32 maximum caps it, and 0 only reports it.
func TestSetMemoryLimit(t *testing.T) {
	a := newABI(t)
	require.Equal(t, uint64(256<<20), a.call("toolsift_set_memory_limit", 0), "the ceiling before a host sets one")
	require.Equal(t, uint64(480<<20), a.call("toolsift_set_memory_limit", 512<<20))
	require.Equal(t, uint64(480<<20), a.call("toolsift_set_memory_limit", 0))
	require.Equal(t, uint64(15<<28), a.call("toolsift_set_memory_limit", 1<<40))
}

func BenchmarkABIOpenAndSearch(b *testing.B) {
	t := &testing.T{}
	a := newABI(t)
	a.t = t
	fp, fn := a.in([]byte("dws"))
	cp, cn := a.in(fixtures.DWSCatalog)
	_, snap := a.result(a.call("toolsift_build_snapshot", fp, fn, cp, cn))
	sp, sn := a.in(snap)
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			_, handle := a.result(a.call("toolsift_open", sp, sn))
			a.call("toolsift_close", uint64(binary.LittleEndian.Uint32(handle)))
		}
	})
	_, handle := a.result(a.call("toolsift_open", sp, sn))
	h := uint64(binary.LittleEndian.Uint32(handle))
	rp, rn := a.in([]byte(`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}`))
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			a.result(a.call("toolsift_search", h, rp, rn, 0))
		}
	})
	ep, en := a.in([]byte(`{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`))
	b.Run("exact", func(b *testing.B) {
		for b.Loop() {
			a.result(a.call("toolsift_search", h, ep, en, 0))
		}
	})
	vp, vn := a.in([]byte(`{"version":"tool-search.v1","query":"q","limit":99}`))
	b.Run("invalid", func(b *testing.B) {
		for b.Loop() {
			a.result(a.call("toolsift_search", h, vp, vn, 0))
		}
	})
	b.Run("version", func(b *testing.B) {
		for b.Loop() {
			a.result(a.call("toolsift_version"))
		}
	})
	b.Logf("linear memory after open: %d MiB", a.mod.Memory().Size()>>20)
}
