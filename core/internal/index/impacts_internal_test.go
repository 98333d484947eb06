package index

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
)

// impactTestIndex is a BM25F index whose terms have 1 to 24 field postings,
// and a term in one document with a frequency over tfMax.
func impactTestIndex() *Index {
	var docs [][profile.NumFields][]string
	for d := range 24 {
		var doc [profile.NumFields][]string
		for w := range 8 {
			if d%(w+1) == 0 {
				doc[w%int(profile.NumFields)] = append(doc[w%int(profile.NumFields)], fmt.Sprintf("w%d", w))
			}
		}
		doc[profile.Description] = append(doc[profile.Description], fmt.Sprintf("only%d", d))
		docs = append(docs, doc)
	}
	for range 9 {
		docs[3][profile.Summary] = append(docs[3][profile.Summary], "often")
	}
	ix := Build(docs)
	ix.PrepareProfile(profile.GenericV2)
	return ix
}

// TestImpactsAreEachTermMerged: a precomputed term's entries are what
// mergeTerm gives for it, and exactly the terms impactThreshold selects
// have entries.
func TestImpactsAreEachTermMerged(t *testing.T) {
	ix := impactTestIndex()
	lengths := ix.termLengths()
	threshold := impactThreshold(lengths, ix.postings())
	require.Greater(t, threshold, impactMinLength, "the test index must leave some terms out")
	kept := 0
	for id := range ix.vocab.refs {
		m := ix.merged(uint32(id))
		if lengths[id] < threshold {
			require.Empty(t, m.docs, "term %q", ix.vocab.terms[id])
			continue
		}
		kept++
		docs, sat, tfs := ix.mergeTerm(&ix.vocab.refs[id], nil, nil, nil)
		require.Equal(t, docs, m.docs, "term %q", ix.vocab.terms[id])
		require.Equal(t, sat, m.sat)
		require.Equal(t, tfs, m.tfs)
	}
	require.Positive(t, kept)
}

// TestImpactThreshold: the longest terms, whole lengths at a time, within
// three quarters of the postings, none under impactMinLength.
func TestImpactThreshold(t *testing.T) {
	for _, tc := range []struct {
		lengths  []int
		postings int
		want     int
	}{
		{[]int{10, 10, 5, 3, 1}, 29, 10},          // budget 21: both 10s, not the 5
		{[]int{10, 10, 5, 3, 1}, 40, 3},           // budget 30: down to 3, not the 1
		{[]int{10, 10, 5, 3, 1}, 24, math.MaxInt}, // budget 18: the two 10s go together or not at all
		{[]int{1, 1, 1}, 3000, math.MaxInt},
		{nil, 0, math.MaxInt},
	} {
		require.Equal(t, tc.want, impactThreshold(tc.lengths, tc.postings), "%v of %d", tc.lengths, tc.postings)
	}
}

// TestStoredImpactsAreReadInPlace: decoded, the tables are views into the
// encoded bytes and PrepareProfile keeps them; for a profile with other
// parameters it computes them again.
func TestStoredImpactsAreReadInPlace(t *testing.T) {
	ix := impactTestIndex()
	backing := make([]uint64, 1<<12) // aligned, like a snapshot's buffer
	out, err := ix.MarshalMsg(unsafe.Slice((*byte)(unsafe.Pointer(&backing[0])), 8<<12)[:0])
	require.NoError(t, err)
	var got Index
	_, err = got.UnmarshalMsg(out)
	require.NoError(t, err)
	require.NoError(t, got.Validate())
	got.PrepareProfile(profile.GenericV2)
	require.Equal(t, ix.impacts, got.impacts)
	start, end := uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&out[0]))+uintptr(len(out))
	for name, at := range map[string]unsafe.Pointer{"start": unsafe.Pointer(&got.impacts.start[0]),
		"docs": unsafe.Pointer(&got.impacts.docs[0]), "sat": unsafe.Pointer(&got.impacts.sat[0]), "tfs": unsafe.Pointer(&got.impacts.tfs[0])} {
		require.True(t, uintptr(at) >= start && uintptr(at) < end, "%s is a copy", name)
	}

	other := *profile.GenericV2
	other.K1 = 2
	got.PrepareProfile(&other)
	want := impactTestIndex()
	want.PrepareProfile(&other)
	require.Equal(t, want.impacts, got.impacts, "computed again for other parameters")
	require.NotEqual(t, ix.impacts.sat, got.impacts.sat)
}

// TestCorruptImpactsFailValidation: every inconsistency validateImpacts
// looks for is an error, before a query reads the tables.
func TestCorruptImpactsFailValidation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(im *impacts)
		err     string
	}{
		{"a document out of range", func(im *impacts) { im.docs[len(im.docs)-1] = 24 }, "document 24 of 24"},
		{"a saturation that is not a number", func(im *impacts) { im.sat[0] = float32(math.NaN()) }, "saturation"},
		{"a negative saturation", func(im *impacts) { im.sat[1] = -0.5 }, "saturation"},
		{"offsets for another vocabulary", func(im *impacts) { im.start = im.start[1:] }, "offsets"},
		{"offsets past the tables", func(im *impacts) { im.start[len(im.start)-1]++ }, "disagree"},
		{"a frequency table of another length", func(im *impacts) { im.tfs = im.tfs[1:] }, "disagree"},
		{"offsets that decrease", func(im *impacts) { decrease(im) }, "do not match"},
		{"entries without offsets", func(im *impacts) { im.start = nil }, "without offsets"},
	} {
		ix := impactTestIndex()
		im := &ix.impacts
		im.start, im.docs, im.sat, im.tfs = append([]uint32(nil), im.start...), append([]uint32(nil), im.docs...),
			append([]float32(nil), im.sat...), append([]uint16(nil), im.tfs...)
		require.NoError(t, ix.Validate(), tc.name)
		tc.corrupt(im)
		require.ErrorContains(t, ix.Validate(), tc.err, tc.name)
	}
}

// decrease moves one term's end below its start, keeping the totals.
func decrease(im *impacts) {
	for id := 1; id+1 < len(im.start); id++ {
		if im.start[id+1] > im.start[id] && im.start[id] > 0 {
			im.start[id] = im.start[id+1] + 1
			return
		}
	}
}
