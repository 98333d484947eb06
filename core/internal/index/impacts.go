package index

import (
	"fmt"
	"math"
	"slices"

	"github.com/toolsift/toolsift/core/profile"
)

// impacts are the merged postings (mergedTerm) of a BM25F index's longest
// terms, computed once when the index is built and stored in the snapshot,
// where they are read in place like the field postings. TopBM25F adds a
// term found here with one multiply-add per document; any other term is
// saturated from its field postings for the query (addApproxFields).
//
// Why precomputed: the saturations depend on the term, the document and
// the profile only, so a query never needs to compute them. Merging them
// lazily (from a term's second query on, the way before) left every query
// of a new engine on the slow path: natively on 100,000 tools, the 200
// bench queries' first pass took 815 µs p50, the second (merging) 667 µs,
// and only the third 306 µs; with the longest terms merged in advance,
// 418, 305 and 299 µs (a throwaway test over the bench snapshot). In the
// WebAssembly hosts, whose bench passes at 100,000 tools are few, the cold
// passes were the p50.
//
// Which terms: the longest, as many as fit in three quarters of the field
// postings (impactShare), longest first, whole lengths at a time. On the
// 100,000-tool bench catalog that is every term with 47 or more field
// postings (21,068 terms, 6.9 million entries: the snapshot grows from 155
// to 222 MiB); on StableToolBench (2,479 tools) every term with 3 or more.
// A term with fewer postings costs about as much to saturate from its
// fields as to add merged, and the share bounds what the tables add to a
// snapshot (10 bytes an entry beside the 8 of a field posting).
type impacts struct {
	// The profile parameters the saturations were computed with: a stored
	// table serves only a profile with the same ones (see prepareImpacts).
	k1         float64
	weights, b [profile.NumFields]float64
	// start[id]:start[id+1] are vocabulary term id's entries (empty for a
	// term not precomputed), in docs, sat and tfs (see mergedTerm). start
	// is empty when the index has no tables.
	start []uint32
	docs  []uint32
	sat   []float32
	tfs   []uint16
}

// impactShare is the part of the field postings the precomputed terms may
// hold, in quarters (see impacts).
const impactShare = 3

// impactMinLength: terms with fewer field postings are never precomputed.
const impactMinLength = 2

// merged returns vocabulary term id's precomputed merged postings; their
// docs are empty when the term has none.
func (ix *Index) merged(id uint32) mergedTerm {
	im := &ix.impacts
	if len(im.start) == 0 {
		return mergedTerm{}
	}
	lo, hi := im.start[id], im.start[id+1]
	return mergedTerm{docs: im.docs[lo:hi:hi], sat: im.sat[lo:hi:hi], tfs: im.tfs[lo:hi:hi]}
}

// prepareImpacts keeps the stored tables when they were computed with p's
// parameters, and computes them otherwise (an index built from a catalog,
// or a snapshot whose profile has changed since).
func (ix *Index) prepareImpacts(p *profile.Profile) {
	im := &ix.impacts
	if len(im.start) != 0 && im.k1 == p.K1 && im.weights == p.Weights && im.b == p.FieldB {
		return
	}
	lengths := ix.termLengths()
	ix.impacts = ix.buildImpacts(p, lengths, impactThreshold(lengths, ix.postings()))
}

// termLengths is each vocabulary term's count of field postings.
func (ix *Index) termLengths() []int {
	lengths := make([]int, len(ix.vocab.refs))
	for id := range ix.vocab.refs {
		lengths[id] = ix.refsLength(&ix.vocab.refs[id])
	}
	return lengths
}

// buildImpacts merges the terms of at least threshold field postings
// (prepareBM25F must have derived the coefficients).
func (ix *Index) buildImpacts(p *profile.Profile, lengths []int, threshold int) impacts {
	total := 0
	for _, n := range lengths {
		if n >= threshold {
			total += n // an upper bound of the merged entries
		}
	}
	im := impacts{k1: p.K1, weights: p.Weights, b: p.FieldB,
		start: make([]uint32, len(lengths)+1),
		docs:  make([]uint32, 0, total), sat: make([]float32, 0, total), tfs: make([]uint16, 0, total)}
	for id, n := range lengths {
		if n >= threshold {
			im.docs, im.sat, im.tfs = ix.mergeTerm(&ix.vocab.refs[id], im.docs, im.sat, im.tfs)
		}
		im.start[id+1] = uint32(len(im.docs))
	}
	return im
}

// impactThreshold is the least length (field postings) a precomputed term
// has: the longest terms, whole lengths at a time, whose lengths add up to
// at most impactShare quarters of postings, and never under
// impactMinLength. The choice depends on the lengths alone, so every host
// builds the same tables.
func impactThreshold(lengths []int, postings int) int {
	sorted := slices.Clone(lengths)
	slices.SortFunc(sorted, func(a, b int) int { return b - a })
	budget := postings / 4 * impactShare
	threshold, sum := math.MaxInt, 0
	for i := 0; i < len(sorted) && sorted[i] >= impactMinLength; {
		n, j := sorted[i], i
		for j < len(sorted) && sorted[j] == n {
			sum += n
			j++
		}
		if sum > budget {
			break
		}
		threshold, i = n, j
	}
	return threshold
}

// refsLength is how many field postings a vocabulary term has.
func (ix *Index) refsLength(refs *termRefs) int {
	n := 0
	for f, t := range refs {
		if t >= 0 {
			n += int(ix.Fields[f].PostingStart[t+1] - ix.Fields[f].PostingStart[t])
		}
	}
	return n
}

// postings is how many field postings the index has.
func (ix *Index) postings() int {
	n := 0
	for f := range ix.Fields {
		n += len(ix.Fields[f].PostingDoc)
	}
	return n
}

// validateImpacts checks what TopBM25F relies on in stored tables: offsets
// inside them, one entry list per vocabulary term, no more entries than the
// term's field postings and no fewer than its longest field's, documents
// that exist, and saturations in [0, 1]. (Which documents and values they
// are only changes scores, which the checksum protects, as for the field
// postings.) Plain loops without an early exit, as in validateFields.
func (ix *Index) validateImpacts() error {
	im := &ix.impacts
	if len(im.start) == 0 {
		if len(im.docs)+len(im.sat)+len(im.tfs) != 0 {
			return fmt.Errorf("index impacts: entries without offsets")
		}
		return nil
	}
	if ix.vocab.table == nil || len(im.start) != len(ix.vocab.refs)+1 {
		return fmt.Errorf("index impacts: %d offsets for %d vocabulary terms", len(im.start), len(ix.vocab.refs))
	}
	if im.start[0] != 0 || int(im.start[len(im.start)-1]) != len(im.docs) || len(im.sat) != len(im.docs) || len(im.tfs) != len(im.docs) {
		return fmt.Errorf("index impacts: tables disagree")
	}
	bad := false
	for id := range ix.vocab.refs {
		lo, hi := im.start[id], im.start[id+1]
		if hi == lo {
			continue // not precomputed (most terms)
		}
		n, longest, total := int(hi)-int(lo), 0, 0
		for f, t := range ix.vocab.refs[id] {
			if t >= 0 {
				length := int(ix.Fields[f].PostingStart[t+1] - ix.Fields[f].PostingStart[t])
				longest, total = max(longest, length), total+length
			}
		}
		bad = bad || n < longest || n > total // n < 0 too: offsets that decrease
	}
	if bad {
		return fmt.Errorf("index impacts: a term's entries do not match its postings")
	}
	// One pass over the entries (in chunks, see chunked.go), without a
	// branch per entry: the largest document, and the largest saturation's
	// bits (the bits of a float in [0, 1] are at most 1's, and a negative
	// one, an infinity or a NaN has larger ones).
	highest, highestSat := maxDocAndSaturationBits(im.docs, im.sat)
	if len(im.docs) > 0 && int64(highest) >= int64(ix.Docs) {
		return fmt.Errorf("index impacts: an entry names document %d of %d", highest, ix.Docs)
	}
	if highestSat > math.Float32bits(1) {
		return fmt.Errorf("index impacts: a saturation outside [0, 1]")
	}
	return nil
}
