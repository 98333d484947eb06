// Package zerocopy decodes parts of a snapshot body as views into it instead
// of copies: the strings and the numeric tables that make up most of a large
// catalog. A view keeps the whole body alive and sees any write to it, so
// callers decode only bodies that nothing writes to again (core/snapshot
// decodes from a private copy, or from a buffer handed over for good).
package zerocopy

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tinylib/msgp/msgp"
)

// String reads a MessagePack string as a view into b. The generated decoders
// call it in place of msgp.ReadStringBytes (go:generate rewrites them).
func String(b []byte) (string, []byte, error) {
	v, rest, err := msgp.ReadStringZC(b)
	if err != nil || len(v) == 0 {
		return "", rest, err
	}
	return unsafe.String(unsafe.SliceData(v), len(v)), rest, nil
}

// Uint32s returns the little-endian u32 values packed in b, which must be a
// whole number of them: a view into b when b is 4-byte aligned on a
// little-endian platform, a copy otherwise. Views of unaligned tables were
// tried: every platform we run on loads them, but the searches that read
// them ran 3–5% slower in wazero.
func Uint32s(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return []uint32{}
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		// Memory order is the table's order: the bytes are the values.
		return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// Float32s is Uint32s for little-endian float32 values (IEEE 754 bits).
func Float32s(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return []float32{}
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Uint16s is Uint32s for little-endian u16 values: a view when b is 2-byte
// aligned on a little-endian platform, a copy otherwise.
func Uint16s(b []byte) []uint16 {
	n := len(b) / 2
	if n == 0 {
		return []uint16{}
	}
	if littleEndian && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%2 == 0 {
		return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

// littleEndian reports the byte order of this platform (wasm, amd64 and
// arm64 are little-endian; s390x is not).
var littleEndian = func() bool {
	probe := uint16(1)
	return *(*byte)(unsafe.Pointer(&probe)) == 1
}()
