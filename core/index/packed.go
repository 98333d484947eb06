package index

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/profile"
)

// The snapshot stores an index packed: each field's numeric tables as one
// little-endian byte string and its terms as one string with end offsets.
// Decoding is then a handful of allocations and copies instead of one per
// term and per posting, which is what makes opening a snapshot cheap in
// WebAssembly.

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file packed.go -o packed_gen.go -unexported -io=false -tests=false

//msgp:ignore Index Field

type packedIndex struct {
	Docs   uint32                         `msg:"docs"`
	Fields [profile.NumFields]packedField `msg:"fields"`
}

type packedField struct {
	Terms        string `msg:"terms"`         // all terms, concatenated in order
	TermEnds     []byte `msg:"term_ends"`     // u32 end offset of each term in Terms
	PostingStart []byte `msg:"posting_start"` // u32 per term, plus the end
	PostingDoc   []byte `msg:"posting_doc"`   // u32 per posting
	PostingTF    []byte `msg:"posting_tf"`    // u32 per posting
	DocLen       []byte `msg:"doc_len"`       // u32 per document
}

// MarshalMsg appends the packed index (msgp.Marshaler).
func (ix *Index) MarshalMsg(b []byte) ([]byte, error) {
	p := packedIndex{Docs: uint32(ix.Docs)}
	for f := range ix.Fields {
		field := &ix.Fields[f]
		pf := &p.Fields[f]
		size := 0
		for _, term := range field.Terms {
			size += len(term)
		}
		terms := make([]byte, 0, size)
		ends := make([]uint32, len(field.Terms))
		for i, term := range field.Terms {
			terms = append(terms, term...)
			ends[i] = uint32(len(terms))
		}
		pf.Terms = string(terms)
		pf.TermEnds = packU32(ends)
		pf.PostingStart = packU32(field.PostingStart)
		pf.PostingDoc = packU32(field.PostingDoc)
		pf.PostingTF = packU32(field.PostingTF)
		pf.DocLen = packU32(field.DocLen)
	}
	return p.MarshalMsg(b)
}

// UnmarshalMsg decodes a packed index (msgp.Unmarshaler). It checks only the
// packing; Validate checks the index itself.
func (ix *Index) UnmarshalMsg(b []byte) ([]byte, error) {
	var p packedIndex
	rest, err := p.UnmarshalMsg(b)
	if err != nil {
		return rest, err
	}
	out := Index{Docs: int(p.Docs)}
	for f := range p.Fields {
		pf := &p.Fields[f]
		field := &out.Fields[f]
		ends, err := unpackU32(pf.TermEnds)
		if err != nil {
			return rest, fmt.Errorf("field %d term ends: %w", f, err)
		}
		field.Terms = make([]string, len(ends))
		start := uint32(0)
		for i, end := range ends {
			if end < start || int(end) > len(pf.Terms) {
				return rest, fmt.Errorf("field %d: term offsets out of range", f)
			}
			field.Terms[i] = pf.Terms[start:end]
			start = end
		}
		if int(start) != len(pf.Terms) {
			return rest, fmt.Errorf("field %d: term text has trailing bytes", f)
		}
		for _, table := range []struct {
			into *[]uint32
			from []byte
		}{{&field.PostingStart, pf.PostingStart}, {&field.PostingDoc, pf.PostingDoc}, {&field.PostingTF, pf.PostingTF}, {&field.DocLen, pf.DocLen}} {
			if *table.into, err = unpackU32(table.from); err != nil {
				return rest, fmt.Errorf("field %d: %w", f, err)
			}
		}
	}
	*ix = out
	return rest, nil
}

// Msgsize is an upper bound of the encoded size (msgp.Sizer).
func (ix *Index) Msgsize() int {
	n := 64
	for f := range ix.Fields {
		field := &ix.Fields[f]
		n += 6*msgp.BytesPrefixSize + 64 + 4*(2*len(field.Terms)+1+2*len(field.PostingDoc)+len(field.DocLen))
		for _, term := range field.Terms {
			n += len(term)
		}
	}
	return n
}

func packU32(values []uint32) []byte {
	out := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return out
}

func unpackU32(b []byte) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("packed table of %d bytes is not a whole number of u32", len(b))
	}
	out := make([]uint32, len(b)/4)
	if littleEndian {
		// The table is already in memory order: one copy instead of a
		// decode per value (this is most of what opening a snapshot reads).
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
		return out, nil
	}
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, nil
}

// littleEndian reports the byte order of this platform (wasm, amd64 and
// arm64 are little-endian; s390x is not).
var littleEndian = func() bool {
	probe := uint16(1)
	return *(*byte)(unsafe.Pointer(&probe)) == 1
}()
