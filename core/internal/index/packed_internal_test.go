package index

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"

	"github.com/toolsift/toolsift/core/profile"
)

func packedTestIndex() *Index {
	var docs [][profile.NumFields][]string
	for i, words := range [][]string{{"群", "消息"}, {"消息", "chat", "read"}, {"file", "群", "状态"}, {"x"}} {
		var doc [profile.NumFields][]string
		for f := range profile.NumFields {
			doc[f] = words[:1+(i+int(f))%len(words)]
		}
		docs = append(docs, doc)
	}
	return Build(docs)
}

// TestPackedTablesAreAlignedViews encodes an index after 0–7 bytes of other
// content: whatever the offset, every u32 table lands 4-byte aligned in the
// output, decodes as a view into it (no copy) and round-trips.
func TestPackedTablesAreAlignedViews(t *testing.T) {
	ix := packedTestIndex()
	for prefix := range 8 {
		backing := make([]uint64, 1<<10) // an 8-byte-aligned buffer, like a snapshot's
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&backing[0])), 8<<10)[:prefix]
		out, err := ix.MarshalMsg(buf)
		require.NoError(t, err)
		require.LessOrEqual(t, len(out), cap(buf), "the test buffer must not be reallocated")
		var got Index
		rest, err := got.UnmarshalMsg(out[prefix:])
		require.NoError(t, err)
		require.Empty(t, rest)
		require.NoError(t, got.Validate())
		start, end := uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&out[0]))+uintptr(len(out))
		for f := range got.Fields {
			field := &got.Fields[f]
			require.Equal(t, ix.Fields[f].Terms, field.Terms)
			for name, table := range map[string][]uint32{"posting_start": field.PostingStart, "posting_doc": field.PostingDoc, "posting_tf": field.PostingTF, "doc_len": field.DocLen} {
				require.NotEmpty(t, table, name)
				at := uintptr(unsafe.Pointer(&table[0]))
				require.True(t, at >= start && at < end, "prefix %d field %d %s is a copy", prefix, f, name)
				require.Zero(t, at%4)
			}
			require.Equal(t, ix.Fields[f].PostingDoc, field.PostingDoc)
			require.Equal(t, ix.Fields[f].PostingTF, field.PostingTF)
		}
		require.Equal(t, ix.vocab, got.vocab)
	}
}

// TestU32TablePadding: padding is what a table's length leaves over a whole
// number of u32, it must be zero, and an unpadded table reads the same.
func TestU32TablePadding(t *testing.T) {
	values := []byte{1, 0, 0, 0, 2, 0, 0, 0}
	for _, tc := range []struct {
		name    string
		payload []byte
		want    []uint32
		err     string
	}{
		{"unpadded", values, []uint32{1, 2}, ""},
		{"padded", append([]byte{0, 0, 0}, values...), []uint32{1, 2}, ""},
		{"non-zero padding", append([]byte{0, 7}, values...), nil, "padding"},
	} {
		var table u32Table
		_, err := table.UnmarshalMsg(msgp.AppendBytes(nil, tc.payload))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		got, err := unpackU32(table)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.name)
	}
}
