package zerocopy

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
)

func TestStringIsAView(t *testing.T) {
	b := msgp.AppendString(nil, "飞书 chat")
	b = msgp.AppendInt(b, 7)
	s, rest, err := String(b)
	require.NoError(t, err)
	require.Equal(t, "飞书 chat", s)
	require.Len(t, rest, 1)
	b[len(b)-2] = 'T'
	require.Equal(t, "飞书 chaT", s, "the string shares b's memory")

	_, _, err = String([]byte{0xa5, 'a'}) // a 5-byte string with 1 byte
	require.Error(t, err)
	s, _, err = String(msgp.AppendString(nil, ""))
	require.NoError(t, err)
	require.Equal(t, "", s)
}

func TestUint32sAtEveryAlignment(t *testing.T) {
	want := []uint32{0, 1, 0xdeadbeef, 1 << 31, 42}
	packed := make([]byte, 4*len(want))
	for i, v := range want {
		binary.LittleEndian.PutUint32(packed[4*i:], v)
	}
	backing := make([]byte, len(packed)+3)
	for offset := range 4 {
		b := backing[offset : offset+len(packed)]
		copy(b, packed)
		require.Equal(t, want, Uint32s(b), "offset %d", offset)
	}
	require.Equal(t, []uint32{}, Uint32s(nil))
}

func TestUint32sViewsAlignedTablesOnly(t *testing.T) {
	if !littleEndian {
		t.Skip("a big-endian platform always copies")
	}
	backing := make([]uint32, 3) // 4-byte aligned
	b := unsafe.Slice((*byte)(unsafe.Pointer(&backing[0])), 12)
	aligned, unaligned := Uint32s(b[:8]), Uint32s(b[1:9])
	b[4] = 5
	require.Equal(t, uint32(5), aligned[1], "an aligned table is a view")
	require.Equal(t, uint32(0), unaligned[0], "an unaligned one is a copy")
}

func TestFloat32sAndUint16sAtEveryAlignment(t *testing.T) {
	floats := []float32{0, 0.25, 1, -3.5, 0.999999}
	packed := make([]byte, 4*len(floats))
	for i, v := range floats {
		binary.LittleEndian.PutUint32(packed[4*i:], math.Float32bits(v))
	}
	shorts := []uint16{0, 1, 0xbeef, 1 << 15, 7, 9}
	packed16 := make([]byte, 2*len(shorts))
	for i, v := range shorts {
		binary.LittleEndian.PutUint16(packed16[2*i:], v)
	}
	backing := make([]byte, len(packed)+len(packed16)+3)
	for offset := range 4 {
		b := backing[offset : offset+len(packed)]
		copy(b, packed)
		require.Equal(t, floats, Float32s(b), "offset %d", offset)
		b16 := backing[offset : offset+len(packed16)]
		copy(b16, packed16)
		require.Equal(t, shorts, Uint16s(b16), "offset %d", offset)
	}
	require.Equal(t, []float32{}, Float32s(nil))
	require.Equal(t, []uint16{}, Uint16s(nil))
	if littleEndian {
		words := make([]uint32, 2) // 4-byte aligned
		b := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8)
		view16, copy16 := Uint16s(b[:4]), Uint16s(b[1:5])
		viewF := Float32s(b[:8])
		b[2] = 3
		require.Equal(t, uint16(3), view16[1], "an aligned u16 table is a view")
		require.Equal(t, uint16(0), copy16[0], "an unaligned one is a copy")
		require.Equal(t, math.Float32frombits(3<<16), viewF[0], "an aligned float table is a view")
	}
}
