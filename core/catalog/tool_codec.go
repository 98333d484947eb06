package catalog

import "github.com/tinylib/msgp/msgp"

// toolArray is the number of elements of a stored tool with an original
// definition; without one the last element is left out, so that a snapshot
// of a catalog that keeps no definitions has the bytes (and the format
// version) it had before the field existed.
const toolArray = 15

// MarshalMsg appends the tool's MessagePack array.
func (z *Tool) MarshalMsg(b []byte) ([]byte, error) {
	start := len(b)
	o, err := (*toolFields)(z).MarshalMsg(b)
	if err != nil || len(z.Original) > 0 {
		return o, err
	}
	// The generated code wrote a fixarray header of toolArray elements and,
	// last, a nil (or an empty bin8) for the absent original: shorten the
	// one, drop the other.
	tail := 1
	if z.Original != nil {
		tail = 2
	}
	o[start] = 0x90 | (toolArray - 1)
	return o[:len(o)-tail], nil
}

// UnmarshalMsg reads a tool of toolArray elements, or one fewer (no
// original definition).
func (z *Tool) UnmarshalMsg(bts []byte) ([]byte, error) {
	n, _, err := msgp.ReadArrayHeaderBytes(bts)
	if err != nil {
		return bts, msgp.WrapError(err)
	}
	if n != toolArray && n != toolArray-1 {
		return bts, msgp.ArrayError{Wanted: toolArray, Got: n}
	}
	z.Original = nil
	return (*toolFields)(z).UnmarshalMsg(bts)
}

// Msgsize bounds the size of the tool's encoding.
func (z *Tool) Msgsize() int { return (*toolFields)(z).Msgsize() }
