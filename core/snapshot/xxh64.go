package snapshot

import (
	"encoding/binary"
	"math/bits"
)

// The body's checksum is XXH64 (seed 0), written out here from its
// specification (github.com/Cyan4973/xxHash, doc/xxhash_spec.md) rather than
// imported. It replaced CRC-32C in format version 2: WebAssembly has no CRC
// instruction, so hash/crc32 falls back to table lookups there (3.5 ms for
// the 5 MB DWS body in wazero, a tenth of the time to open), while XXH64
// is four independent multiply-rotate lanes over 8-byte loads. Like CRC-32C
// it detects damage, not tampering: a crafted snapshot is caught by
// validation, never by the checksum.

const (
	prime1 uint64 = 0x9E3779B185EBCA87
	prime2 uint64 = 0xC2B2AE3D27D4EB4F
	prime3 uint64 = 0x165667B19E3779F9
	prime4 uint64 = 0x85EBCA77C2B2AE63
	prime5 uint64 = 0x27D4EB2F165667C5
)

// xxh64 is XXH64 of b with seed 0.
func xxh64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		p1 := prime1 // a variable: the constant sums below wrap, as the spec's do
		lanes := [4]uint64{p1 + prime2, prime2, 0, -p1}
		for len(b) >= 32 {
			whole := min(len(b)&^31, stripesPerCall*32)
			xxhStripes(&lanes, b[:whole])
			b = b[whole:]
		}
		v1, v2, v3, v4 := lanes[0], lanes[1], lanes[2], lanes[3]
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxhMerge(h, v1)
		h = xxhMerge(h, v2)
		h = xxhMerge(h, v3)
		h = xxhMerge(h, v4)
	} else {
		h = prime5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h ^= xxhRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

// stripesPerCall bounds the stripes one xxhStripes call takes (1 MiB).
// V8 runs a WebAssembly function first as baseline code and uses its
// optimized code from the next call on; it never replaces a loop already
// running, so in one call over a whole body the first checksum of a
// process ran baseline code to the end. Hashing 240 MiB in the module in
// Node (a throwaway program, four checksums a process): one call took 240
// ms the first time and 21 ms after; in 1 MiB calls, 22 ms the first time
// and 16 ms after. The chunks change nothing natively or in runtimes that
// compile ahead of time (wasmtime, wazero).
const stripesPerCall = 1 << 15

// xxhStripes runs the four lanes over b, whole 32-byte stripes. It is a
// call of its own (see stripesPerCall).
//
//go:noinline
func xxhStripes(lanes *[4]uint64, b []byte) {
	v1, v2, v3, v4 := lanes[0], lanes[1], lanes[2], lanes[3]
	for ; len(b) >= 32; b = b[32:] {
		v1 = xxhRound(v1, binary.LittleEndian.Uint64(b[0:8]))
		v2 = xxhRound(v2, binary.LittleEndian.Uint64(b[8:16]))
		v3 = xxhRound(v3, binary.LittleEndian.Uint64(b[16:24]))
		v4 = xxhRound(v4, binary.LittleEndian.Uint64(b[24:32]))
	}
	lanes[0], lanes[1], lanes[2], lanes[3] = v1, v2, v3, v4
}

func xxhRound(acc, input uint64) uint64 {
	acc += input * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

func xxhMerge(acc, v uint64) uint64 {
	acc ^= xxhRound(0, v)
	return acc*prime1 + prime4
}
