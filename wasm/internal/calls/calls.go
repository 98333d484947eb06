// Package calls holds the answers the WebAssembly builds give over an open
// engine, whatever their ABI: the version and info JSON, the snapshot build
// with its error mapping, the open with the collector paused and the heap's
// soft ceiling. The core module (wasm/module) and the component
// (wasm/component) both answer through them.
package calls

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/jsonw"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/release"
)

// ABIVersion is the version of wasm/ABI.md the core module implements; the
// component reports the same number, since its answers are the same.
const ABIVersion = 1

// DefaultMemoryLimit is the Go heap's soft ceiling until the host says its
// limit: near it the collector works harder instead of growing memory
// (which WebAssembly never gives back).
const DefaultMemoryLimit = 256 << 20

// checkpointEvery is how many build checkpoints (about one per tool and
// step) pass between two clock reads. Building the DWS snapshot on wazero
// this way makes 428 WASI calls, the longest stretch without one 0.73 s of
// 4.4 s (TestWASICallGaps, 2026-12-03).
const checkpointEvery = 16

// Open is an engine opened from a snapshot, with its explaining twin.
type Open struct {
	Engine   *engine.Engine
	Explain  *engine.Engine
	SnapSize int
}

// AppendVersion appends the toolsift_version JSON.
func AppendVersion(out []byte) []byte {
	out = fmt.Appendf(out, `{"abi":%d,"module":"toolsift","version":%q,"snapshot_format":%d,"profiles":`, ABIVersion, release.Version, snapshot.FormatVersion)
	out = jsonw.AppendStrings(out, profile.Names(), false)
	out = append(out, `,"formats":`...)
	out = jsonw.AppendStrings(out, importer.Formats(), false)
	return append(out, '}')
}

// limitFields are the budgets of tool-search.v1 (core/wire) the module
// reports, in this order.
var limitFields = []struct {
	name  string
	value int
}{
	{"max_request_bytes", wire.MaxRequestBytes},
	{"max_response_bytes", wire.MaxResponseBytes},
	{"default_limit", wire.DefaultLimit},
	{"max_limit", wire.MaxLimit},
	{"default_candidate_limit", wire.DefaultCandidateLimit},
	{"max_candidate_limit", wire.MaxCandidateLimit},
	{"max_query_runes", wire.MaxQueryRunes},
	{"max_query_bytes", wire.MaxQueryBytes},
	{"max_subqueries", wire.MaxSubqueries},
	{"max_subqueries_bytes", wire.MaxSubqueriesBytes},
	{"max_summary_runes", wire.MaxSummaryRunes},
	{"max_pattern_bytes", wire.MaxPatternBytes},
	{"max_pattern_instructions", wire.MaxPatternInstructions},
	{"max_pattern_work", wire.MaxPatternWork},
}

// limitErrors are the errors a host gives in the module's place, by key: a
// request over max_request_bytes is refused before it is copied into an
// instance (copying 60 MB in grew the instance's memory for good), with the
// module's own words. "request_too_large" is a CLI's refusal of a line.
var limitErrors = []struct{ key, what string }{
	{"search_request_too_large", wire.SearchVersion},
	{"inspect_request_too_large", wire.InspectVersion},
	{"provider_request_too_large", "provider"},
	{"request_too_large", "the"},
}

// AppendLimits appends the toolsift_limits JSON: the budgets, then under
// "errors" each error a host gives in the module's place, as the whole
// status-1 payload ({"error":{…}}) the module would answer.
func AppendLimits(out []byte) []byte {
	out = append(out, '{')
	for _, f := range limitFields {
		out = jsonw.AppendString(out, f.name, false)
		out = append(out, ':')
		out = jsonw.AppendInt(out, int64(f.value))
		out = append(out, ',')
	}
	out = append(out, `"errors":{`...)
	for i, e := range limitErrors {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonw.AppendString(out, e.key, false)
		out = append(out, ':')
		out = wire.RequestTooLarge(e.what).AppendJSON(out)
	}
	return append(out, "}}"...)
}

// AppendInfo appends the toolsift_info JSON of an open engine.
func AppendInfo(out []byte, open *Open) []byte {
	e := open.Engine
	v := e.Version()
	out = append(out, `{"profile":`...)
	out = jsonw.AppendString(out, e.Profile().Name, true)
	out = append(out, `,"format":`...)
	out = jsonw.AppendString(out, e.Catalog().Format, true)
	out = append(out, `,"source_hash":`...)
	out = jsonw.AppendString(out, v.SourceHash, true)
	out = append(out, `,"surface_hash":`...)
	out = jsonw.AppendString(out, v.SurfaceHash, true)
	out = append(out, `,"tool_count":`...)
	out = jsonw.AppendInt(out, int64(e.ToolCount()))
	out = append(out, `,"product_count":`...)
	out = jsonw.AppendInt(out, int64(len(e.Catalog().Products)))
	out = append(out, `,"snapshot_bytes":`...)
	out = jsonw.AppendInt(out, int64(open.SnapSize))
	return append(out, '}')
}

// OpenSnapshot opens data with openWith (snapshot.Open or OpenOwned).
// Opening allocates the engine's long-lived tables and little garbage;
// collecting while they are built would re-mark them again and again (half
// the time to open), so the collector waits until the open is done (the
// soft memory limit still applies).
func OpenSnapshot(data []byte, openWith func([]byte) (*engine.Engine, error)) (*Open, *wire.Error) {
	reserveHeap(len(data))
	gcPercent := debug.SetGCPercent(-1)
	e, err := openWith(data)
	debug.SetGCPercent(gcPercent)
	if err != nil {
		return nil, wire.ErrorOf(err)
	}
	return &Open{Engine: e, Explain: e.WithExplain(true), SnapSize: len(data)}, nil
}

// AppendSnapshot builds a snapshot from a catalog with the default options
// (a bad tool is skipped and reported, the format's own profile ranks), as a
// native build without flags.
//
// The collector is off during the build, and the heap's soft ceiling (the
// host's memory limit less a sixteenth) is what starts a collection. In the
// module a collection runs inline on the one thread, and the import's
// decoded JSON is maps and interfaces it must trace: for 3,608 MCP tools on
// wazero the build took a median 2.73 s instead of 3.62 s (bench/buildtime,
// 2026-12-02). The price is memory: the instance grows to about what the
// build allocates (129 MiB of linear memory instead of 76 MiB there), and
// every host builds in an instance of its own that it drops afterwards.
//
// The collector was also what made WASI calls during a build (it reads the
// clock), and a host may stop a call only at one (hostapi's stopAtHostCall),
// so the import's checkpoint reads the clock instead: once every
// checkpointEvery tools.
func AppendSnapshot(out []byte, format string, data []byte) ([]byte, *wire.Error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	ticks := 0
	checkpoint := func() {
		if ticks++; ticks%checkpointEvery == 0 {
			_ = time.Now() // clock_time_get: a WASI call
		}
	}
	snap, _, err := snapshot.FromCatalog(format, data, importer.Options{Checkpoint: checkpoint})
	var unknown *importer.UnknownFormatError
	var werr *wire.Error
	switch {
	case errors.As(err, &unknown):
		return nil, wire.Validation("unknown_format", err.Error())
	case errors.As(err, &werr): // the snapshot's own refusal (snapshot_too_large)
		return nil, werr
	case err != nil:
		return nil, wire.Validation("invalid_catalog", err.Error())
	}
	return append(out, snap...), nil
}

// SetMemoryLimit is told the host's cap on linear memory, in bytes, and puts
// the heap's soft ceiling a sixteenth below it (wasm32 caps memory at 4 GiB).
// It returns the ceiling in force; 0 leaves it as it is.
func SetMemoryLimit(limit uint64) uint64 {
	if limit == 0 {
		return uint64(debug.SetMemoryLimit(-1))
	}
	ceiling := Ceiling(limit)
	debug.SetMemoryLimit(ceiling)
	return uint64(ceiling)
}

// Ceiling is the heap's soft ceiling for a host's cap on linear memory:
// a sixteenth below it, the cap at most 4 GiB (wasm32).
func Ceiling(limit uint64) int64 {
	limit = min(limit, 1<<32)
	return int64(limit - limit/16)
}

// Panic is the error a panic inside a call becomes (a bug), instead of a trap.
func Panic(r any) *wire.Error {
	return wire.Internal("panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
}

// reserveHeap grows linear memory by about n bytes at once, ahead of an open
// that allocates about as much as the snapshot holds: the Go runtime
// otherwise grows it one 4 MiB heap arena at a time, and in V8 each
// memory.grow, and the JavaScript collections that follow them, cost more
// than the arena's worth of decoding. It allocates n bytes, drops them and
// collects, so their pages return to the heap, untouched (not resident)
// until the open fills them. Opening 100,000 tools in Node (the module
// compiled): 1,413, 1,699, 1,598, 1,640 → 962, 994, 1,045, 1,044 ms; on
// wazero and wasmtime within the noise (2.8–3.0 s, 1.1–1.3 s); RSS after
// the bench queries 568 → 567 MiB.
func reserveHeap(n int) {
	if n < reserveMin {
		return
	}
	reserved = make([]byte, n)
	reserved = nil
	runtime.GC() // frees it: its pages go back to the heap for the open to reuse
}

// reserved holds the reservation until it is dropped (a package variable,
// so that the allocation cannot be left out).
var reserved []byte

const reserveMin = 16 << 20
