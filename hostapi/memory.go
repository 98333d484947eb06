package hostapi

import "github.com/tetratelabs/wazero/experimental"

// Linear memory grows in steps: the Go runtime in the module asks for one
// 4 MiB heap arena at a time. wazero's default memory grows its []byte by
// append, which adds about a quarter each time it runs out, so opening the
// DWS snapshot (24 MiB of linear memory) copied the whole memory six or seven
// times, about 100 MB allocated per instance (in a CPU profile of
// BenchmarkWasmOpenSnapshot, memory growth was 15 ms of a 37 ms open). Two
// changes: an instance reserves at once the memory the last instance of its
// runtime had after opening its snapshot (moduleRuntime.opened), and beyond
// that the capacity doubles, so each byte is copied about once. (Growing by
// a quarter above 128 MiB, as this did before, put 2.95 s of copying into a
// 5.5 s open of a 100,000-tool snapshot, in a CPU profile.) The slack costs address
// space, not memory: the bytes past the length are never touched until the
// module grows into them.

// Where the system maps memory on demand (Linux), none of this applies: an
// instance's memory is one mapping of its whole limit (memory_linux.go), so
// growing it copies nothing and touches no page, and the kernel supplies
// zero pages as the module first writes them; nor is a reserved []byte
// zeroed up front. On the 100,000-tool snapshot (toolsiftbench run -engine
// wasm -catalog syn100k, old and new alternated, two rounds): open cold
// 5.14, 5.53 → 4.55, 4.45 s, warm 2.82, 2.86 → 1.40, 1.49 s, p50 3.63, 3.51
// → 2.77, 2.83 ms (queries grow the memory too), resident memory level.

// growingMemory is a linear memory backed by an ordinary Go []byte (the
// collector frees it with the instance; nothing to unmap).
type growingMemory struct {
	buf []byte
	max uint64
}

// memorySource makes the linear memory of one instance, and keeps the
// mapping behind it (Linux) so that the instance can release it. reserve is
// a capacity to start an ordinary []byte with: the memory an instance of
// the same runtime had after opening its snapshot (0 before the first), so
// that later instances reach that size without a single copy.
type memorySource struct {
	reserve uint64
	mapped  *mappedRegion // the memory made, when it is a mapping
}

// allocator is what wazero calls to make the memory: a mapping of the
// whole limit where the system gives one (mapRegion), else a growingMemory.
func (s *memorySource) allocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, limit uint64) experimental.LinearMemory {
		if r := mapRegion(limit); r != nil {
			s.mapped = r
			return r
		}
		return &growingMemory{buf: make([]byte, 0, min(max(capacity, s.reserve), limit)), max: limit}
	})
}

// Reallocate implements experimental.LinearMemory: the memory's new length,
// with its contents kept and the new bytes zero.
func (m *growingMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size] // bytes past the old length are still zero: memory never shrinks
		return m.buf
	}
	grown := min(max(2*uint64(cap(m.buf)), size), m.max)
	buf := make([]byte, size, grown)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

// Free implements experimental.LinearMemory.
func (m *growingMemory) Free() { m.buf = nil }
