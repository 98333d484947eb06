//go:build wasip1

package main

import "unsafe"

// The WASI preview 1 adapter that componentNew links in keeps its state in
// this module's memory, and allocates it on its first WASI call, which Go's
// runtime makes while _initialize is still starting. Calling back into Go
// there (Go's cabi_realloc) crashes with runtime.badsystemstack, and
// wit-component's --realloc-via-memory-grow takes pages that Go's heap then
// claims as its own. So the adapter gets this allocator instead
// (wit-component uses cabi_realloc_adapter when the module exports it): a
// bump pointer over a static arena, nosplit, touching nothing of the Go
// runtime. The adapter allocates once per instance and never frees.

// adapterArena is the adapter's memory: 256 KiB (64 KiB was too little,
// the adapter's State::new assertion failed). Bytes, not words, so that
// offsets index it; Go aligns a global array of this size to 8.
var adapterArena [256 << 10]byte

var adapterUsed uint32

//go:wasmexport cabi_realloc_adapter
//go:nosplit
func reallocAdapter(oldPtr, oldSize, align, newSize uint32) uint32 {
	if oldPtr != 0 && newSize <= oldSize {
		return oldPtr
	}
	base := uint32(uintptr(unsafe.Pointer(&adapterArena)))
	start := (adapterUsed + align - 1) &^ (align - 1)
	if align == 0 || uint64(start)+uint64(newSize) > uint64(len(adapterArena)) {
		return 0 // the adapter traps on a null allocation
	}
	adapterUsed = start + newSize
	if oldPtr != 0 {
		// Only the adapter reallocates here, and only its own blocks.
		old := oldPtr - base
		for i := uint32(0); i < oldSize; i++ {
			adapterArena[start+i] = adapterArena[old+i]
		}
	}
	return base + start
}
