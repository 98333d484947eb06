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
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/wasm/internal/calls"
)

// ABIVersion is the version of ../ABI.md this module implements.
const ABIVersion = calls.ABIVersion

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

// openEngine is an open snapshot: its engine, its explaining twin, its size.
type openEngine = calls.Open

func main() {}

// A soft ceiling on the Go heap keeps the module inside a host's memory
// limit: near it the collector works harder instead of growing memory (which
// WebAssembly can never give back). 256 MiB until the host says its limit.
func init() {
	debug.SetMemoryLimit(calls.DefaultMemoryLimit)
}

// setMemoryLimit is told the host's cap on linear memory, in bytes, and puts
// the soft ceiling a sixteenth below it. Go's ceiling already counts all the
// memory the runtime holds (stacks and its own tables too); the margin is for
// what it allocates before the collector catches up. A large catalog's live
// heap can exceed a fixed 256 MiB ceiling (100,000 synthetic tools hold about 385 MiB),
// and then the collector would run on every few allocations. It returns the
// ceiling in force; 0 leaves it as it is.
//
//go:wasmexport toolsift_set_memory_limit
func setMemoryLimit(limit uint64) uint64 { return calls.SetMemoryLimit(limit) }

//go:wasmexport toolsift_alloc
func alloc(size uint32) uint32 {
	if size == 0 {
		return 0
	}
	return pin(make([]byte, size))
}

//go:wasmexport toolsift_free
func free(ptr uint32) {
	b, ok := buffers[ptr]
	if !ok {
		return
	}
	delete(buffers, ptr)
	if cap(b) >= resultCapacity && cap(b) <= spareMaxBytes && len(spare) < spareBuffers {
		spare = append(spare, b)
	}
}

//go:wasmexport toolsift_version
func version() uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		return calls.AppendVersion(out), nil
	})
}

// limits reports the budgets of the wire and the errors a host gives in the
// module's place (wire.AppendLimits), so that no host copies them.
//
//go:wasmexport toolsift_limits
func limits() uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		return wire.AppendLimits(out), nil
	})
}

//go:wasmexport toolsift_open
func open(ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		return openSnapshot(out, data)
	})
}

// openOwned is open without the copy: the buffer passes to the module, which
// decodes the snapshot in place (see ../ABI.md). That halves the memory a
// snapshot takes while it is opened.
//
//go:wasmexport toolsift_open_owned
func openOwned(ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		// Unpinned whatever the result: the engine keeps the bytes alive if
		// the open succeeds, the collector takes them if it fails, and the
		// host's free of ptr is a no-op either way.
		delete(buffers, ptr)
		return openSnapshot(out, data, snapshot.Owned())
	})
}

func openSnapshot(out, data []byte, opts ...snapshot.DecodeOption) ([]byte, *wire.Error) {
	opened, werr := calls.OpenSnapshot(data, opts...)
	if werr != nil {
		return nil, werr
	}
	handle := nextHandle
	nextHandle++
	engines[handle] = opened
	return append(out, byte(handle), byte(handle>>8), byte(handle>>16), byte(handle>>24)), nil
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
	return guard(func(out []byte) ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		return calls.AppendInfo(out, open), nil
	})
}

//go:wasmexport toolsift_search
func search(handle, ptr, size, flags uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
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
		e := open.Engine
		if flags&flagExplain != 0 {
			e = open.Explain
		}
		out, err := e.AppendSearchJSON(out, request)
		return out, wire.ErrorOf(err)
	})
}

//go:wasmexport toolsift_inspect
func inspect(handle, ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		request, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		response, err := open.Engine.InspectJSON(request)
		return append(out, response...), wire.ErrorOf(err)
	})
}

//go:wasmexport toolsift_build_snapshot
func buildSnapshot(formatPtr, formatSize, ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		format, werr := input(formatPtr, formatSize)
		if werr != nil {
			return nil, werr
		}
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		return calls.AppendSnapshot(out, string(format), data)
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
// error result instead of a trap. The call appends its payload to out, a
// result buffer whose first byte is reserved for the status.
func guard(call func(out []byte) ([]byte, *wire.Error)) (result uint64) {
	// Between exported calls no goroutine runs, the collector's background
	// workers included; yielding now and then lets them finish their work
	// (sweeping, mostly) so that memory is reused instead of grown.
	if callsSinceYield++; callsSinceYield == yieldEvery {
		callsSinceYield = 0
		defer runtime.Gosched()
	}
	defer func() {
		if r := recover(); r != nil {
			result = pack(statusError, calls.Panic(r).AppendJSON(resultBuffer()))
		}
	}()
	buf := resultBuffer()
	out, werr := call(buf)
	if werr != nil {
		return pack(statusError, werr.AppendJSON(buf[:1]))
	}
	return pack(statusOK, out)
}

// yieldEvery: guard yields to the scheduler once every so many calls. A
// yield runs the Go scheduler, which in WebAssembly costs more than a short
// search: a one-word search on wazero took 68, 72 µs (p50) yielding on
// every call and 52, 57 µs never yielding, in Node 22.3, 22.9 against 20.1,
// 19.2 µs. Between those, the collector's workers still get a turn while a
// host searches; the memory after the bench queries was the same either way
// (RSS in Node at 100,000 tools 575 MiB yielding every call, 564 never; at
// StableToolBench 124 and 126 MiB), as allocation sweeps and assists as it
// goes.
const yieldEvery = 8

var callsSinceYield int

// spare holds result buffers the host has freed, for the next results: a
// search then allocates nothing for its answer. Few and small ones only, so
// that one large answer does not keep its memory.
var spare [][]byte

const (
	spareBuffers   = 4
	spareMaxBytes  = 1 << 20
	resultCapacity = 4096
)

// resultBuffer returns an empty result: one byte, for the status.
func resultBuffer() []byte {
	if n := len(spare); n > 0 {
		b := spare[n-1]
		spare = spare[:n-1]
		return b[:1]
	}
	return make([]byte, 1, resultCapacity)
}

// pack sets the status byte of a result from resultBuffer and pins it.
func pack(status byte, out []byte) uint64 {
	out[0] = status
	return uint64(pin(out))<<32 | uint64(len(out))
}

func pin(b []byte) uint32 {
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	buffers[ptr] = b
	return ptr
}
