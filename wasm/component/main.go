//go:build wasip1

// Command component is the core module of the toolsift WebAssembly
// component: the interface of ../toolsift.wit, lowered by hand to the
// canonical ABI (see ../COMPONENT.md for why by hand), over the same engine
// and the same answers as the core module of ../module. It is built with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared
//
// and made into a component by js/build.mjs (componentEmbed of the WIT,
// componentNew with the WASI preview 1 reactor adapter).
//
// The canonical ABI, as this file follows it: the host lowers each string
// and list argument into memory it gets from cabi_realloc and passes
// (ptr, len); the callee owns that memory from then on. A function whose
// results do not fit one core value writes them to a return area and
// returns its address; the host reads them, then calls the function's
// cabi_post_ export, after which the memory may be reused. One instance is
// single-threaded, so one static return area serves every call.
package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"unicode/utf8"
	"unsafe"

	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/wasm/internal/calls"
)

// The interface's name in core export names (wit-component's names).
const iface = "toolsift:search/tool-search@1.0.0"

var (
	// lent pins every buffer the host got from cabi_realloc, by address,
	// until the call it was lowered for takes it.
	lent = map[uint32][]byte{}
	// results pins what the last call returned until its cabi_post_.
	results [][]byte
	engines = map[uint32]*calls.Open{}
	// nextRep only grows: a dropped engine's rep is never reused.
	nextRep uint32 = 1
	// retArea is the return area; 32 bytes hold the largest result,
	// result<string, error>, and uint32 elements align it to 4.
	retArea [8]uint32
)

func main() {}

func init() { betweenCalls() }

// The canonical ABI forbids a component to call an import while the host
// is lowering arguments into it (wasmtime traps: "cannot leave component
// instance", and every later call of the instance fails), and the host
// lowers through cabi_realloc. A Go allocation there reads the clock, an
// import through the preview 1 adapter, when it starts or assists a
// collection, and when it grows the heap past the scavenger's goal (the
// runtime then returns pages inline and times it: mheap.allocSpan). The
// scavenger's goal is set at the end of a collection and whenever the
// collector's settings change; after a collection the third open of the
// DWS snapshot grew the heap past it (issue 36, item 10).
//
// So the collector runs with its settings only while an exported call runs
// (gcPercent, and the heap's soft ceiling, which the host sets through
// set-memory-limit), and betweenCalls turns both off when a call ends: no
// allocation can start a collection then, and the last change of settings
// leaves the scavenger with no goal to reach inline.
const gcPercent = 100

// ceiling is the heap's soft ceiling during a call: calls.Ceiling of the
// host's memory limit, DefaultMemoryLimit until the host says one.
var ceiling int64 = calls.DefaultMemoryLimit

// largest is the largest argument cabi_realloc had to allocate (one larger
// than the slab); 0 while every argument fitted the slab.
var largest uint32

// duringCall gives the collector its settings for an exported call.
func duringCall() {
	debug.SetMemoryLimit(ceiling)
	debug.SetGCPercent(gcPercent)
}

// betweenCalls turns the collector off when a call ends. SetGCPercent(-1)
// waits for a running cycle to finish; the memory limit goes last, so that
// the scavenger's goal is the one computed with both off (none).
//
// With no collection between calls, the arguments the host lowers are
// allocated however much garbage the heap holds: the garbage of large
// arguments (a snapshot, a catalog) is what would outgrow the host's
// limit, since a call that refuses such an argument allocates too little
// to start a collection. So when the heap could reach the ceiling with
// another argument as large as the largest so far, the call collects
// before it returns, while it may still read the clock.
func betweenCalls() {
	debug.SetGCPercent(-1)
	if largest > 0 && heapObjects()+2*int64(largest) >= ceiling {
		runtime.GC()
	}
	debug.SetMemoryLimit(math.MaxInt64)
}

// heapSample reads the bytes of heap objects, live or not yet collected.
var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapObjects() int64 {
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 // unknown: collect
	}
	return int64(min(heapSample[0].Value.Uint64(), math.MaxInt64))
}

// resourceNew makes an own<engine> handle for rep (the canonical built-in
// resource.new, which the component gives the core module as an import).
//
//go:wasmimport [export]toolsift:search/tool-search@1.0.0 [resource-new]engine
func resourceNew(rep uint32) uint32

// cabiRealloc is the canonical ABI's allocator: the host asks it for the
// memory of every string and list it passes in. The buffers are pinned
// until a call takes them.
//
// The host calls it while it lowers arguments, when the component must not
// call an import, and a Go allocation can read the clock (an import through
// the preview 1 adapter: wasmtime traps with "cannot leave component
// instance"). So requests are cut from a slab that the previous call
// allocated, and only what does not fit (a snapshot, a catalog) is
// allocated here; between calls the collector and the soft memory limit
// are off (betweenCalls), which keeps that allocation from the clock.
// Blocks are rounded to 16 bytes, which aligns them for every WIT type.
//
//go:wasmexport cabi_realloc
func cabiRealloc(oldPtr, oldSize, align, newSize uint32) uint32 {
	if newSize == 0 {
		return align
	}
	rounded := newSize + (-newSize & 15)
	var b []byte
	if uint64(slabUsed)+uint64(rounded) <= uint64(len(slab)) {
		b = slab[slabUsed : slabUsed+newSize : slabUsed+rounded]
		slabUsed += rounded
	} else {
		b = make([]byte, rounded)[:newSize]
		largest = max(largest, rounded)
	}
	if old, ok := lent[oldPtr]; ok {
		copy(b, old[:min(oldSize, uint32(len(old)))])
		delete(lent, oldPtr)
	}
	ptr := addr(b)
	lent[ptr] = b
	return ptr
}

// slabSize holds a typical request (a few hundred bytes) with room to
// spare; a slab of 64 KiB, renewed per call, made searches in Node about
// twice as slow through the garbage it left (COMPONENT.md).
const slabSize = 8 << 10

var (
	slab     = make([]byte, slabSize)
	slabUsed uint32
)

// renewSlab gives cabi_realloc a fresh slab after a call that used the
// last one (what that call kept of it stays the collector's to free).
func renewSlab() {
	if slabUsed > 0 {
		slab = make([]byte, slabSize)
		slabUsed = 0
	}
}

// take returns the argument the host lowered at (ptr, size) and unpins it:
// the callee owns it from now on. nil for an empty argument, and for one
// that is not in memory from cabi_realloc (which a host never passes).
func take(ptr, size uint32) []byte {
	if size == 0 {
		return nil
	}
	b, ok := lent[ptr]
	if !ok || size > uint32(len(b)) {
		return nil
	}
	delete(lent, ptr)
	return b[:size]
}

// ret returns the return area with its words cleared.
func ret() *[8]uint32 {
	retArea = [8]uint32{}
	return &retArea
}

func retPtr() uint32 { return uint32(uintptr(unsafe.Pointer(&retArea))) }

// keep pins a result until cabi_post_ and returns its (ptr, len). A result
// string must be valid UTF-8 or the host traps lifting it; the engine's
// JSON always is, and an error message that quotes bad input bytes gets
// them replaced.
func keep(b []byte, isString bool) (uint32, uint32) {
	if len(b) == 0 {
		return 1, 0
	}
	if isString && !utf8.Valid(b) {
		b = []byte(string([]rune(string(b))))
	}
	results = append(results, b)
	return addr(b), uint32(len(b))
}

// postReturn lets the collector have the last call's results.
func postReturn() {
	clear(results)
	results = results[:0]
}

// writeResult stores a result<T, error> with a string or list payload:
// the discriminant at 0, the payload from offset 4.
func writeResult(out []byte, werr *wire.Error, isString bool) uint32 {
	r := ret()
	if werr != nil {
		writeError(r, werr)
	} else {
		r[1], r[2] = keep(out, isString)
	}
	return retPtr()
}

// writeError stores the error case: discriminant 1, then the record's
// category, code, reason and message.
func writeError(r *[8]uint32, werr *wire.Error) {
	r[0] = 1
	r[1], r[2] = keep([]byte(werr.Category), true)
	r[3] = uint32(werr.Code)
	r[4], r[5] = keep([]byte(werr.Reason), true)
	r[6], r[7] = keep([]byte(werr.Message), true)
}

// guard runs one call; a panic becomes an internal error instead of a trap.
// Between exported calls no goroutine runs, the collector's background
// workers included; yielding once per call lets them finish their work
// (sweeping, mostly) so that memory is reused instead of grown.
func guard(call func() ([]byte, *wire.Error)) (out []byte, werr *wire.Error) {
	duringCall()
	defer betweenCalls()
	defer renewSlab()
	defer runtime.Gosched()
	defer func() {
		if r := recover(); r != nil {
			out, werr = nil, calls.Panic(r)
		}
	}()
	return call()
}

func lookup(rep uint32) (*calls.Open, *wire.Error) {
	open, ok := engines[rep]
	if !ok {
		// A host cannot pass a dropped engine; this is a broken invariant.
		return nil, wire.Internal("unknown_handle", "no open engine has this rep")
	}
	return open, nil
}

// engineOpen opens snapshot bytes in place: the canonical ABI already gave
// the buffer to the callee, so the engine keeps it instead of a copy (as
// toolsift_open_owned).
//
//go:wasmexport toolsift:search/tool-search@1.0.0#[static]engine.open
func engineOpen(ptr, size uint32) uint32 {
	data := take(ptr, size)
	var open *calls.Open
	_, werr := guard(func() ([]byte, *wire.Error) {
		var werr *wire.Error
		open, werr = calls.OpenSnapshot(data, snapshot.Owned())
		return nil, werr
	})
	r := ret()
	if werr != nil {
		writeError(r, werr)
		return retPtr()
	}
	rep := nextRep
	nextRep++
	engines[rep] = open
	r[1] = resourceNew(rep)
	return retPtr()
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#[static]engine.open
func postOpen(uint32) { postReturn() }

// engineDrop is the engine's destructor: the host dropped its last handle.
//
//go:wasmexport toolsift:search/tool-search@1.0.0#[dtor]engine
func engineDrop(rep uint32) { delete(engines, rep) }

//go:wasmexport toolsift:search/tool-search@1.0.0#[method]engine.search
func engineSearch(rep, ptr, size, explain uint32) uint32 {
	request := take(ptr, size)
	out, werr := guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(rep)
		if werr != nil {
			return nil, werr
		}
		e := open.Engine
		if explain != 0 {
			e = open.Explain
		}
		out, err := e.AppendSearchJSON(nil, request)
		return out, wire.ErrorOf(err)
	})
	return writeResult(out, werr, true)
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#[method]engine.search
func postSearch(uint32) { postReturn() }

//go:wasmexport toolsift:search/tool-search@1.0.0#[method]engine.inspect
func engineInspect(rep, ptr, size uint32) uint32 {
	request := take(ptr, size)
	out, werr := guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(rep)
		if werr != nil {
			return nil, werr
		}
		out, err := open.Engine.InspectJSON(request)
		return out, wire.ErrorOf(err)
	})
	return writeResult(out, werr, true)
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#[method]engine.inspect
func postInspect(uint32) { postReturn() }

// engineInfo returns a plain string: its (ptr, len) at the return area.
//
//go:wasmexport toolsift:search/tool-search@1.0.0#[method]engine.info
func engineInfo(rep uint32) uint32 {
	out, werr := guard(func() ([]byte, *wire.Error) {
		open, werr := lookup(rep)
		if werr != nil {
			return nil, werr
		}
		return calls.AppendInfo(nil, open), nil
	})
	if werr != nil {
		out = werr.AppendJSON(nil)
	}
	r := ret()
	r[0], r[1] = keep(out, true)
	return retPtr()
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#[method]engine.info
func postInfo(uint32) { postReturn() }

//go:wasmexport toolsift:search/tool-search@1.0.0#build-snapshot
func buildSnapshot(formatPtr, formatSize, ptr, size uint32) uint32 {
	format := take(formatPtr, formatSize)
	data := take(ptr, size)
	out, werr := guard(func() ([]byte, *wire.Error) {
		return calls.AppendSnapshot(nil, string(format), data)
	})
	return writeResult(out, werr, false)
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#build-snapshot
func postBuildSnapshot(uint32) { postReturn() }

//go:wasmexport toolsift:search/tool-search@1.0.0#version
func version() uint32 {
	r := ret()
	r[0], r[1] = keep(calls.AppendVersion(nil), true)
	return retPtr()
}

//go:wasmexport cabi_post_toolsift:search/tool-search@1.0.0#version
func postVersion(uint32) { postReturn() }

//go:wasmexport toolsift:search/tool-search@1.0.0#set-memory-limit
func setMemoryLimit(limit uint64) uint64 {
	if limit != 0 {
		ceiling = calls.Ceiling(limit)
	}
	return uint64(ceiling)
}

func addr(b []byte) uint32 { return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }
