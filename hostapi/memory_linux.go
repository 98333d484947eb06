package hostapi

import (
	"math"
	"sync"
	"syscall"
)

// mappedRegion is a linear memory that is one private anonymous mapping of
// the instance's whole memory limit, made at once. MAP_NORESERVE: the
// mapping reserves address space, not memory, so a 4 GiB limit costs
// nothing until the module writes to its pages, and every page it has not
// written reads as zero (which is what growing a wasm memory must give).
// Growing is then a new length over the same bytes: no copy, ever, and no
// collector involved.
//
// Unmapping needs care, because wazero frees a module's memory when the
// module closes (Free), and a Runtime.Close (Engine.Close) closes modules
// that may still be in a call on another goroutine: unmapping then would
// fault inside the call. So Free unmaps nothing; the instance that owns the
// region unmaps it when it is discarded (instance.close, which never runs
// during one of its calls), and a cleanup on the instance does it for one
// dropped without close.
//
// A new instance of the same snapshot copies the snapshot out of a live
// instance's region (Engine.lend) while that instance may be in a call on
// another goroutine: the bytes it reads are ones the module never writes
// (the opened snapshot, see instance.snapshotView), and mu keeps the region
// mapped until the copy is done.
type mappedRegion struct {
	region []byte
	once   sync.Once
	mu     sync.RWMutex // read-held by lenders; release takes it to unmap
}

// mapRegion maps limit bytes, or returns nil when it cannot (a limit that
// is not a positive int, or a system that refuses: an address space too
// small, strict overcommit); the caller then uses a growingMemory.
func mapRegion(limit uint64) *mappedRegion {
	if limit == 0 || limit > math.MaxInt {
		return nil
	}
	region, err := syscall.Mmap(-1, 0, int(limit), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return &mappedRegion{region: region}
}

// Reallocate implements experimental.LinearMemory: the first size bytes of
// the mapping (nil beyond the limit). Bytes past the old length were never
// written, so they are zero: a wasm memory never shrinks.
func (r *mappedRegion) Reallocate(size uint64) []byte {
	if size > uint64(len(r.region)) {
		return nil
	}
	return r.region[:size:size]
}

// Free implements experimental.LinearMemory. It unmaps nothing (see
// mappedRegion); release does.
func (r *mappedRegion) Free() {}

// release unmaps the region, once; nil does nothing. No call may be running
// in the instance the region belongs to, and nothing may read its memory
// afterwards.
func (r *mappedRegion) release() {
	if r == nil {
		return
	}
	r.once.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		_ = syscall.Munmap(r.region)
		r.region = nil
	})
}

// view returns the region's bytes [offset, offset+n), kept mapped until done
// is called; nil (and no done to call) when the region is released or the
// range is outside it. nil does nothing.
func (r *mappedRegion) view(offset, n uint64) (bytes []byte, done func()) {
	if r == nil {
		return nil, nil
	}
	r.mu.RLock()
	if r.region == nil || offset > uint64(len(r.region)) || n > uint64(len(r.region))-offset {
		r.mu.RUnlock()
		return nil, nil
	}
	return r.region[offset : offset+n : offset+n], r.mu.RUnlock
}
