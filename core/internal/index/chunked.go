package index

import "math"

// The checks that opening a snapshot runs over whole tables (millions of
// postings at 100,000 tools) loop over chunks, each chunk a call of its
// own, because V8 uses a WebAssembly function's optimized code only from
// its next call on (core/snapshot's xxh64 says more): in a Node process's
// first open, each table's one long loop ran baseline code to the end. In
// CPU profiles of that first open at 100,000 tools, validateFields and
// validateImpacts took 66 ms (two runs: 66, 62) as single loops, 32 and
// 21 ms in chunks. Natively and in the runtimes that compile ahead of time
// the chunks change nothing.

// checkChunk is the number of values one call checks.
const checkChunk = 1 << 16

// maxUint32 is the largest of values, 0 for none.
func maxUint32(values []uint32) uint32 {
	highest := uint32(0)
	for len(values) > 0 {
		n := min(len(values), checkChunk)
		highest = max(highest, maxUint32Chunk(values[:n]))
		values = values[n:]
	}
	return highest
}

//go:noinline
func maxUint32Chunk(values []uint32) uint32 {
	highest := uint32(0)
	for _, v := range values {
		highest = max(highest, v)
	}
	return highest
}

// decreases reports whether some value of values is below the one before
// it.
func decreases(values []uint32) bool {
	previous, down := uint32(0), false
	for len(values) > 0 {
		n := min(len(values), checkChunk)
		var chunkDown bool
		chunkDown, previous = decreasesChunk(values[:n], previous)
		down = down || chunkDown
		values = values[n:]
	}
	return down
}

// decreasesChunk is decreases over one chunk after previous, without a
// branch per value (it runs in every open); it returns the chunk's last
// value.
//
//go:noinline
func decreasesChunk(values []uint32, previous uint32) (bool, uint32) {
	down := false
	for _, v := range values {
		down = down || v < previous
		previous = v
	}
	return down, previous
}

// maxDocAndSaturationBits is the largest of docs and the largest bits of
// the float32s sat (as long as docs).
func maxDocAndSaturationBits(docs []uint32, sat []float32) (highest, highestSat uint32) {
	for len(docs) > 0 {
		n := min(len(docs), checkChunk)
		doc, bits := maxDocAndSaturationBitsChunk(docs[:n], sat[:n])
		highest, highestSat = max(highest, doc), max(highestSat, bits)
		docs, sat = docs[n:], sat[n:]
	}
	return highest, highestSat
}

//go:noinline
func maxDocAndSaturationBitsChunk(docs []uint32, sat []float32) (highest, highestSat uint32) {
	sat = sat[:len(docs)]
	for i, doc := range docs {
		highest = max(highest, doc)
		highestSat = max(highestSat, math.Float32bits(sat[i]))
	}
	return highest, highestSat
}
