//go:build wasip1

// Command module is the toolsift WebAssembly module: the engine behind the
// ABI in ../ABI.md, built with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
//
// (see ../build.sh). It is a WASI reactor: the host calls _initialize once,
// then the exported functions. It holds open engines by handle and pins the
// buffers it hands out until the host frees them. Bad input of any kind is an
// error result, never a trap.
package main

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/jsonw"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
)

// ABIVersion is the version of ../ABI.md this module implements.
const ABIVersion = 1

const (
	statusOK    = 0
	statusError = 1
	flagExplain = 1 << 0
)

var (
	// buffers pins every buffer the host can see, by address, so the
	// garbage collector keeps it and free can find it.
	buffers = map[uint32][]byte{}
	engines = map[uint32]*openEngine{}
	// nextHandle only grows: a closed handle is never reused, so a stale
	// handle cannot reach another snapshot's engine.
	nextHandle uint32 = 1
)

type openEngine struct {
	engine   *engine.Engine
	explain  *engine.Engine
	snapSize int
}

func main() {}

// A soft ceiling on the Go heap keeps the module inside a host's memory
// limit: near it the collector works harder instead of growing memory (which
// WebAssembly can never give back).
func init() {
	debug.SetMemoryLimit(256 << 20)
}

//go:wasmexport toolsift_alloc
func alloc(size uint32) uint32 {
	if size == 0 {
		return 0
	}
	return pin(make([]byte, size))
}

//go:wasmexport toolsift_free
func free(ptr uint32) {
	delete(buffers, ptr)
}

//go:wasmexport toolsift_version
func version() uint64 {
	return guard(func() ([]byte, *wire.Error) {
		out := fmt.Appendf(nil, `{"abi":%d,"module":"toolsift","snapshot_format":%d,"profiles":`, ABIVersion, snapshot.FormatVersion)
		out = jsonw.AppendStrings(out, profile.Names(), false)
		out = append(out, `,"formats":`...)
		out = jsonw.AppendStrings(out, importer.Formats(), false)
		return append(out, '}'), nil
	})
}

//go:wasmexport toolsift_open
func open(ptr, size uint32) uint64 {
	return guard(func() ([]byte, *wire.Error) {
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		// Opening allocates the engine's long-lived tables and little
		// garbage; collecting while they are built would re-mark them again
		// and again (half the time to open), so the collector waits until
		// the open is done (the soft memory limit still applies).
		gcPercent := debug.SetGCPercent(-1)
		e, werr := snapshot.Open(data)
		debug.SetGCPercent(gcPercent)
		if werr != nil {
			return nil, werr
		}
		handle := nextHandle
		nextHandle++
		engines[handle] = &openEngine{engine: e, explain: e.WithExplain(true), snapSize: len(data)}
		return []byte{byte(handle), byte(handle >> 8), byte(handle >> 16), byte(handle >> 24)}, nil
	})
}

//go:wasmexport toolsift_close
func closeEngine(handle uint32) uint32 {
	if _, ok := engines[handle]; !ok {
		return 1
	}
	delete(engines, handle)
	return 0
}

//go:wasmexport toolsift_info
func info(handle uint32) uint64 {
	return guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		e := open.engine
		v := e.Version()
		out := []byte(`{"profile":`)
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
		out = jsonw.AppendInt(out, int64(open.snapSize))
		return append(out, '}'), nil
	})
}

//go:wasmexport toolsift_search
func search(handle, ptr, size, flags uint32) uint64 {
	return guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		if flags&^flagExplain != 0 {
			return nil, wire.Validation("invalid_flags", fmt.Sprintf("unknown search flags %#x", flags&^flagExplain))
		}
		request, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		e := open.engine
		if flags&flagExplain != 0 {
			e = open.explain
		}
		return e.SearchJSON(request)
	})
}

//go:wasmexport toolsift_inspect
func inspect(handle, ptr, size uint32) uint64 {
	return guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		request, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		return open.engine.InspectJSON(request)
	})
}

//go:wasmexport toolsift_build_snapshot
func buildSnapshot(formatPtr, formatSize, ptr, size uint32) uint64 {
	return guard(func() ([]byte, *wire.Error) {
		format, werr := input(formatPtr, formatSize)
		if werr != nil {
			return nil, werr
		}
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		cat, p, err := importer.Import(string(format), data)
		var unknown *importer.UnknownFormatError
		switch {
		case errors.As(err, &unknown):
			return nil, wire.Validation("unknown_format", err.Error())
		case err != nil:
			return nil, wire.Validation("invalid_catalog", err.Error())
		}
		snap, err := snapshot.Build(cat, p)
		if err != nil {
			return nil, wire.Validation("invalid_catalog", err.Error())
		}
		return snap, nil
	})
}

func lookup(handle uint32) (*openEngine, *wire.Error) {
	open, ok := engines[handle]
	if !ok {
		return nil, wire.Validation("unknown_handle", fmt.Sprintf("no open snapshot has handle %d", handle))
	}
	return open, nil
}

// input returns the bytes the host wrote into a buffer from toolsift_alloc.
// A range outside a pinned buffer is refused rather than read.
func input(ptr, size uint32) ([]byte, *wire.Error) {
	if size == 0 {
		return nil, nil
	}
	buf, ok := buffers[ptr]
	if !ok || uint64(size) > uint64(len(buf)) {
		return nil, wire.Validation("invalid_buffer", "the (ptr, len) pair is not inside a buffer from toolsift_alloc")
	}
	return buf[:size], nil
}

// guard runs one call and packs its result; a panic becomes an internal
// error result instead of a trap.
func guard(call func() ([]byte, *wire.Error)) (result uint64) {
	// Between exported calls no goroutine runs, the collector's background
	// workers included; yielding once per call lets them finish their work
	// (sweeping, mostly) so that memory is reused instead of grown.
	defer runtime.Gosched()
	defer func() {
		if r := recover(); r != nil {
			werr := wire.Internal("panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
			result = pack(statusError, werr.AppendJSON(nil))
		}
	}()
	payload, werr := call()
	if werr != nil {
		return pack(statusError, werr.AppendJSON(nil))
	}
	return pack(statusOK, payload)
}

func pack(status byte, payload []byte) uint64 {
	out := make([]byte, 1+len(payload))
	out[0] = status
	copy(out[1:], payload)
	return uint64(pin(out))<<32 | uint64(len(out))
}

func pin(b []byte) uint32 {
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	buffers[ptr] = b
	return ptr
}
