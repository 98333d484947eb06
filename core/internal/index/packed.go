package index

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/internal/zerocopy"
	"github.com/toolsift/toolsift/core/profile"
)

// The snapshot stores an index packed: each field's numeric tables as one
// little-endian byte string and its terms as one string with end offsets.
// Decoding is then a handful of allocations and copies instead of one per
// term and per posting, which is what makes opening a snapshot cheap in
// WebAssembly.

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file packed.go -o packed_gen.go -unexported -io=false -tests=false
//go:generate perl -pi -e "s/msgp\\.ReadStringBytes\\(/readStringView(/g" packed_gen.go

//msgp:ignore Index Field u32Table
//msgp:tuple packedIndex packedField packedImpacts

type packedIndex struct {
	Docs   uint32                         `msg:"docs"`
	Fields [profile.NumFields]packedField `msg:"fields"`
	// The vocabulary (see vocabulary.go), prebuilt.
	Vocabulary string   `msg:"vocabulary"` // all distinct terms, sorted, concatenated
	VocabEnds  u32Table `msg:"vocab_ends"` // end offset of each term
	VocabRefs  u32Table `msg:"vocab_refs"` // per term per field: position + 1, or 0
	VocabTable u32Table `msg:"vocab_table"`
	// The BM25F impacts (see impacts.go), empty for other profiles.
	Impacts packedImpacts `msg:"impacts"`
}

type packedImpacts struct {
	K1      float64    `msg:"k1"`
	Weights [5]float64 `msg:"weights"` // profile.NumFields (score.go fails to compile if it changes)
	FieldB  [5]float64 `msg:"field_b"`
	Start   u32Table   `msg:"start"` // per vocabulary term, plus the end
	Docs    u32Table   `msg:"docs"`  // per entry
	Sat     u32Table   `msg:"sat"`   // per entry, float32 bits
	TFs     u32Table   `msg:"tfs"`   // per entry a u16, and a zero u16 when the count is odd
}

type packedField struct {
	Terms        string   `msg:"terms"`         // all terms, concatenated in order
	TermEnds     u32Table `msg:"term_ends"`     // end offset of each term in Terms
	PostingStart u32Table `msg:"posting_start"` // per term, plus the end
	PostingDoc   u32Table `msg:"posting_doc"`   // per posting
	PostingTF    u32Table `msg:"posting_tf"`    // per posting
	DocLen       u32Table `msg:"doc_len"`       // per document
}

// u32Table is a table of little-endian u32 values. It is written as a
// MessagePack bin whose first len%4 bytes are zero padding, as many as put
// the values at a 4-byte-aligned offset of the snapshot (MarshalMsg appends
// to the whole snapshot so far). Decoded in place, an aligned table is a view
// into the snapshot instead of a copy (core/internal/zerocopy): at 100,000
// tools that is 60 MiB less, and searches read aligned tables faster.
type u32Table []byte

// MarshalMsg appends the table, padded to an aligned offset of b.
func (t u32Table) MarshalMsg(b []byte) ([]byte, error) {
	var header, zeros [8]byte
	for pad := range 4 {
		size := uint32(len(t) + pad)
		if (len(b)+len(msgp.AppendBytesHeader(header[:0], size))+pad)%4 == 0 {
			b = msgp.AppendBytesHeader(b, size)
			b = append(b, zeros[:pad]...)
			return append(b, t...), nil
		}
	}
	// No padding aligns it (the header would change size): stored
	// unaligned, it is read as a copy.
	return msgp.AppendBytes(b, t), nil
}

// UnmarshalMsg reads a table in place and drops its padding, which must be
// zero.
func (t *u32Table) UnmarshalMsg(b []byte) ([]byte, error) {
	v, rest, err := msgp.ReadBytesZC(b)
	if err != nil {
		return rest, err
	}
	pad := len(v) % 4
	for _, c := range v[:pad] {
		if c != 0 {
			return rest, fmt.Errorf("table padding is not zero")
		}
	}
	*t = v[pad:]
	return rest, nil
}

// Msgsize is an upper bound of the encoded size (msgp.Sizer).
func (t u32Table) Msgsize() int { return msgp.BytesPrefixSize + 3 + len(t) }

// MarshalMsg appends the packed index (msgp.Marshaler).
func (ix *Index) MarshalMsg(b []byte) ([]byte, error) {
	p := packedIndex{Docs: uint32(ix.Docs)}
	for f := range ix.Fields {
		field := &ix.Fields[f]
		pf := &p.Fields[f]
		pf.Terms, pf.TermEnds = packStrings(field.Terms)
		pf.PostingStart = packU32(field.PostingStart)
		pf.PostingDoc = packU32(field.PostingDoc)
		pf.PostingTF = packU32(field.PostingTF)
		pf.DocLen = packU32(field.DocLen)
	}
	vocab := ix.vocab
	if vocab.table == nil {
		vocab = buildVocabulary(&ix.Fields)
	}
	p.Vocabulary, p.VocabEnds = packStrings(vocab.terms)
	refs := make([]uint32, 0, len(vocab.refs)*int(profile.NumFields))
	for _, r := range vocab.refs {
		for _, pos := range r {
			refs = append(refs, uint32(pos+1))
		}
	}
	p.VocabRefs = packU32(refs)
	p.VocabTable = packU32(vocab.table)
	if im := &ix.impacts; len(im.start) != 0 {
		p.Impacts = packedImpacts{K1: im.k1, Weights: im.weights, FieldB: im.b,
			Start: packU32(im.start), Docs: packU32(im.docs), Sat: packFloat32(im.sat), TFs: packU16(im.tfs)}
	}
	return p.MarshalMsg(b)
}

// UnmarshalMsg decodes a packed index (msgp.Unmarshaler). It checks only the
// packing; Validate checks the index itself. The index's terms and tables
// are views into b where the platform allows (see core/internal/zerocopy):
// b must stay alive and unchanged for as long as the index is used, as for
// the catalog decoded beside it.
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
		if field.Terms, err = unpackStrings(pf.Terms, pf.TermEnds); err != nil {
			return rest, fmt.Errorf("field %d terms: %w", f, err)
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
	if out.vocab.terms, err = unpackStrings(p.Vocabulary, p.VocabEnds); err != nil {
		return rest, fmt.Errorf("vocabulary: %w", err)
	}
	refs, err := unpackU32(p.VocabRefs)
	if err != nil || len(refs) != len(out.vocab.terms)*int(profile.NumFields) {
		return rest, fmt.Errorf("vocabulary: %d positions for %d terms", len(refs), len(out.vocab.terms))
	}
	out.vocab.refs = make([]termRefs, len(out.vocab.terms))
	for i := range out.vocab.refs {
		for f := range out.vocab.refs[i] {
			out.vocab.refs[i][f] = int32(refs[i*int(profile.NumFields)+f]) - 1
		}
	}
	if out.vocab.table, err = unpackU32(p.VocabTable); err != nil {
		return rest, fmt.Errorf("vocabulary table: %w", err)
	}
	if out.impacts, err = unpackImpacts(&p.Impacts); err != nil {
		return rest, fmt.Errorf("impacts: %w", err)
	}
	*ix = out
	return rest, nil
}

// packStrings concatenates strings and records where each ends.
func packStrings(values []string) (string, u32Table) {
	size := 0
	for _, v := range values {
		size += len(v)
	}
	text := make([]byte, 0, size)
	ends := make([]uint32, len(values))
	for i, v := range values {
		text = append(text, v...)
		ends[i] = uint32(len(text))
	}
	return string(text), packU32(ends)
}

// unpackStrings cuts text at the packed end offsets (substrings: no copies).
func unpackStrings(text string, packedEnds u32Table) ([]string, error) {
	ends, err := unpackU32(packedEnds)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ends))
	start := uint32(0)
	for i, end := range ends {
		if end < start || int(end) > len(text) {
			return nil, fmt.Errorf("offsets out of range")
		}
		out[i] = text[start:end]
		start = end
	}
	if int(start) != len(text) {
		return nil, fmt.Errorf("text has trailing bytes")
	}
	return out, nil
}

// unpackImpacts reads the impact tables, in place where they are aligned;
// validateImpacts checks them against the index.
func unpackImpacts(p *packedImpacts) (impacts, error) {
	im := impacts{k1: p.K1, weights: p.Weights, b: p.FieldB}
	var err error
	if im.start, err = unpackU32(p.Start); err != nil {
		return im, err
	}
	if im.docs, err = unpackU32(p.Docs); err != nil {
		return im, err
	}
	if len(p.Sat)%4 != 0 || len(p.TFs)%4 != 0 {
		return im, fmt.Errorf("packed tables of %d and %d bytes are not whole numbers of u32", len(p.Sat), len(p.TFs))
	}
	im.sat, im.tfs = zerocopy.Float32s(p.Sat), zerocopy.Uint16s(p.TFs)
	if n := len(im.docs); len(im.tfs) == n+1 && im.tfs[n] == 0 {
		im.tfs = im.tfs[:n] // the padding of an odd count
	}
	return im, nil
}

// Msgsize is an upper bound of the encoded size (msgp.Sizer).
func (ix *Index) Msgsize() int {
	im := &ix.impacts
	n := 256 + 4*len(im.start) + 10*len(im.docs) + 4*(msgp.BytesPrefixSize+3)
	for f := range ix.Fields {
		field := &ix.Fields[f]
		n += 6*(msgp.BytesPrefixSize+3) + 64 + 4*(2*len(field.Terms)+1+2*len(field.PostingDoc)+len(field.DocLen))
		for _, term := range field.Terms {
			n += len(term)
		}
	}
	return n
}

func packFloat32(values []float32) u32Table {
	out := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

// packU16 packs values two to a u32, the last padded with a zero.
func packU16(values []uint16) u32Table {
	out := make([]byte, 4*((len(values)+1)/2))
	for i, v := range values {
		binary.LittleEndian.PutUint16(out[2*i:], v)
	}
	return out
}

func packU32(values []uint32) u32Table {
	out := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// unpackU32 reads a packed table, in place where it is aligned.
func unpackU32(b u32Table) ([]uint32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("packed table of %d bytes is not a whole number of u32", len(b))
	}
	return zerocopy.Uint32s(b), nil
}

// readStringView reads a MessagePack string as a view into the body: the
// generated decoder calls it (go:generate rewrites msgp's ReadStringBytes).
func readStringView(b []byte) (string, []byte, error) { return zerocopy.String(b) }
