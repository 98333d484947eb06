package index

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/toolsift/toolsift/core/profile"
)

// TopBM25F answers what Top(ScoreExpanded(…), k, quantum) answers under a
// BM25F profile, the same Ranked values in the same order and the same
// FieldScores for them, without scoring every document exactly.
//
// ScoreExpanded walks each query term's postings field by field and
// saturates every document it touches: at 100,000 tools a long query touches
// most of the catalog, and that exact, per-field work was the whole query
// (a CPU profile of the 200 bench queries on syn100k natively: 85% in
// addTermField, saturate and reset, 8% more in the final totals). But a term's saturation in a document,
// tf~/(k1+tf~), depends on the term and the document alone, and the query
// only weighs it (idf, pair and expansion weights). So:
//
//  1. The longest terms' postings are merged over the fields when the
//     index is built, with their saturation per document rounded to
//     float32, and stored in the snapshot (mergedTerm, impacts); any other
//     term is saturated from its field postings for the query
//     (addApproxFields).
//  2. A query adds w_t · sat(t, d) over its terms: one multiply-add per
//     document a term is in, an approximation a(d) of the exact score e(d).
//  3. Only the documents whose a(d) could put e(d) among the best k are
//     scored exactly, in exactly ScoreExpanded's arithmetic (rescore), and
//     ranked by Top.
//
// Why 3 loses nothing: every step of both sums adds positive values, so
// a(d) and e(d) each lie within a relative 1e-7 of the real value (float32
// rounding is 2^-24; float64 rounding over n terms is (n+15)·2^-53, 5e-13
// for 2,000 terms), and a relative slack of ρ = 1e-6 bounds |a − e| with
// room to spare. The k-th best exact score T_e is at least T_a/(1+ρ), where
// T_a is the k-th best approximation, so every document Top could keep (an
// exact score of at least T_e − 2/quantum − 1e-12·T_e) has a(d) ≥ cutoff
// below. Top over that superset finds the same k-th best score, the same
// cutoff and the same hits. TestTopBM25FIsTopOfScoreExpanded checks it on
// random catalogs, core/engine's TestTopBM25FMatchesExhaustive on random
// queries through the whole engine, and the generic golden files (written
// before TopBM25F) in every host.
//
// The returned slice lives in s until the next call.
func (ix *Index) TopBM25F(tokens, expansions []string, expansionWeight float64, eligible []bool, k int, quantum float64, s *Scratch) []Ranked {
	return ix.topBM25F(tokens, expansions, expansionWeight, eligible, k, quantum, true, s)
}

// topBM25F is TopBM25F, adding densely when allowDense and the query reads
// postings for a good part of the catalog: a(d) is then added without
// marking which documents the query touched, and read back in document
// order (denseApprox). Marking costs a store and a load per posting, and
// reading the touched list jumps across a(d) at random; a long query on a
// large catalog touches most documents anyway (at 100,000 tools the bench
// queries touched 20,000 to 80,000).
func (ix *Index) topBM25F(tokens, expansions []string, expansionWeight float64, eligible []bool, k int, quantum float64, allowDense bool, s *Scratch) []Ranked {
	eligible = eligible[:ix.Docs]
	s.reset(ix.Docs)
	s.weights = [profile.NumFields]float64{1, 1, 1, 1, 1} // already in the coefficients
	if len(s.approx) != ix.Docs {
		s.approx = make([]float64, ix.Docs)
	}
	if k > 0 && cap(s.best) < 2*k+1 { // denseApprox's padded heap, kthBest's
		s.best = make([]float64, 0, 2*k+1)
	}
	terms := ix.addExpansions(ix.queryTerms(tokens, s), expansions, s)
	dense := false
	if allowDense && k > 0 {
		length := 0
		for i := range terms {
			length += ix.termLength(&terms[i])
		}
		dense = length >= ix.Docs/denseMin
	}
	s.termWeights, s.termMerged = s.termWeights[:0], s.termMerged[:0]
	for i := range terms {
		m := ix.merged(terms[i].id)
		var weight float64
		if len(m.docs) == 0 { // not precomputed: saturated from the field postings
			weight = ix.addApproxFields(&terms[i], expansionWeight, dense, s)
		} else {
			weight = ix.bm25fTermWeight(&terms[i], len(m.docs), expansionWeight)
			s.addApprox(&m, weight, dense)
		}
		s.termWeights, s.termMerged = append(s.termWeights, weight), append(s.termMerged, m)
	}
	var hits []Hit
	if dense {
		var ok bool
		if hits, ok = s.denseApprox(eligible, k, quantum); !ok {
			defer func() { s.path = pathDenseRetried }()
			return ix.topBM25F(tokens, expansions, expansionWeight, eligible, k, quantum, false, s)
		}
		s.path = pathDense
	} else {
		hits = s.touchedApprox(eligible)
		s.path = pathSparse
	}
	if k == 0 {
		s.hits = hits[:0]
		return []Ranked{} // as Top: nothing to rescore
	}
	if k < 0 || k > len(hits) {
		k = len(hits)
	}
	cutoff := math.Inf(-1)
	if k < len(hits) && !dense { // denseApprox listed only what reaches its cutoff
		cutoff = approxCutoff(kthBest(hits, k, s.best), quantum)
	}
	exact := hits[:0] // rescored in place: each hit is read before it is overwritten
	for _, hit := range hits {
		if hit.Score >= cutoff {
			exact = append(exact, hit)
		}
	}
	if !dense { // rescoring walks the postings forward: documents ascending
		slices.SortFunc(exact, func(a, b Hit) int { return cmp.Compare(a.Doc, b.Doc) })
	}
	if dense { // rescore writes s.acc[doc]: listed for reset
		for _, hit := range exact {
			s.touched[s.touchedCount] = hit.Doc
			s.touchedCount++
		}
	}
	exact = ix.rescore(exact, terms, s)
	s.hits = exact
	s.ranked = topInto(s.ranked, s.best, exact, min(k, len(exact)), quantum)
	return s.ranked
}

// approxCutoff is the lowest a(d) that can still put e(d) among the best k
// when the k-th best approximation is t (see TopBM25F).
func approxCutoff(t, quantum float64) float64 {
	return t - approxSlack*math.Abs(t) - 3/quantum
}

// approxSlack is the relative slack between a(d) and e(d) that TopBM25F
// allows for: ten times what its bound above gives, and twice again for the
// cutoff's own rounding.
const approxSlack = 4e-6

// mergedTerm is one vocabulary term's postings merged over the fields: the
// documents it is in, ascending, and its saturation tf~/(k1+tf~) in each,
// rounded to float32 (for a(d) only; exact scores never use it).
type mergedTerm struct {
	docs []uint32
	sat  []float32
	// tfs packs the term's frequency in each field of the document, 3 bits
	// a field (field f at bits 3f..3f+2, 0 where the field lacks it), so
	// that rescoring finds it with one search of docs instead of one per
	// field; an entry with a frequency over 7 is tfsOverflow with bit f set
	// where field f has the term, and rescoring searches those fields.
	tfs []uint16
}

// tfBits is the width of one field's frequency in mergedTerm.tfs, and
// tfsOverflow marks an entry that holds the field set instead. Within 3
// bits: in the 200 syn100k bench queries' merged terms, frequencies above
// 7 were rare (the overflow path keeps them exact anyway), and the entry
// adds 2 bytes to the 8 of document and saturation.
const (
	tfBits      = 3
	tfMax       = 1<<tfBits - 1
	tfsOverflow = 1 << 15
)

// mergeTerm appends a term's postings merged over the fields (each
// doc-ascending) to docs, sat and tfs, computing tf~ per document as
// saturate does: each field's part tf·coef, added in field order.
func (ix *Index) mergeTerm(refs *termRefs, docs []uint32, sat []float32, tfs []uint16) ([]uint32, []float32, []uint16) {
	var lists [profile.NumFields]struct {
		docs, tfs []uint32
	}
	for f := range lists {
		t, field := refs[f], &ix.Fields[f]
		if t < 0 {
			continue
		}
		lo, hi := field.PostingStart[t], field.PostingStart[t+1]
		lists[f].docs, lists[f].tfs = field.PostingDoc[lo:hi], field.PostingTF[lo:hi]
	}
	k1 := ix.bm25fK1
	for {
		doc, any := uint32(math.MaxUint32), false
		for f := range lists {
			if len(lists[f].docs) > 0 && lists[f].docs[0] <= doc {
				doc, any = lists[f].docs[0], true
			}
		}
		if !any {
			return docs, sat, tfs
		}
		var row [profile.NumFields]float64
		packed, fields, over := uint16(0), uint16(0), false
		for f := range lists {
			l := &lists[f]
			if len(l.docs) > 0 && l.docs[0] == doc {
				row[f] = float64(float64(l.tfs[0]) * ix.bm25fCoef[doc][f])
				packed |= uint16(min(l.tfs[0], tfMax)) << (tfBits * f)
				fields |= 1 << f
				over = over || l.tfs[0] > tfMax
				l.docs, l.tfs = l.docs[1:], l.tfs[1:]
			}
		}
		if over {
			packed = tfsOverflow | fields
		}
		tf := row[0] + row[1] + row[2] + row[3] + row[4]
		docs = append(docs, doc)
		sat = append(sat, float32(tf/(k1+tf)))
		tfs = append(tfs, packed)
	}
}

// addApprox adds weight·sat(t, d) to a(d) for every document of m, marking
// them touched unless dense (without a branch per posting, as addTermField
// does).
func (s *Scratch) addApprox(m *mergedTerm, weight float64, dense bool) {
	approx := s.approx
	sat := m.sat[:len(m.docs)]
	if dense {
		addDense(approx, m.docs, sat, weight)
		return
	}
	touched, mark, n := s.touched, s.mark, s.touchedCount
	for i, doc := range m.docs {
		touched[n] = doc
		seen := &mark[doc]
		n += int(1 - *seen)
		*seen = 1
		approx[doc] += float64(weight * float64(sat[i]))
	}
	s.touchedCount = n
}

// addDense adds weight·sat[i] to approx[docs[i]] for every posting, eight
// per iteration and without bounds checks, as Scratch.add does for the
// field postings and for its reasons (a bounds check per posting, and a
// dispatch per branch back, in WebAssembly). Unrolled four times, in Node,
// p50 alternated: syn100k 1415, 1323 → 908, 911 µs, syn10k 375, 406 →
// 351, 347 µs, StableToolBench level; natively syn100k 807, 766 → 668,
// 708 µs. Eight at a time from a pointer to the next eight, instead of
// four from a re-sliced slice: on wazero, StableToolBench, 120,000 →
// 105,000 instructions a query (callgrind). Its
// accesses stay in range because a merged term's documents come
// from the validated field postings, every one below ix.Docs, and
// topBM25F sizes approx to ix.Docs.
//
//go:noinline
func addDense(approx []float64, docs []uint32, sat []float32, weight float64) {
	if len(docs) == 0 {
		return
	}
	sat = sat[:len(docs)]
	base := unsafe.Pointer(unsafe.SliceData(approx))
	add := func(doc uint32, sat float32) {
		*(*float64)(unsafe.Add(base, uintptr(doc)*8)) += float64(weight * float64(sat))
	}
	i := 0
	for ; i+8 <= len(docs); i += 8 {
		d, w := (*[8]uint32)(unsafe.Pointer(&docs[i])), (*[8]float32)(unsafe.Pointer(&sat[i]))
		add(d[0], w[0])
		add(d[1], w[1])
		add(d[2], w[2])
		add(d[3], w[3])
		add(d[4], w[4])
		add(d[5], w[5])
		add(d[6], w[6])
		add(d[7], w[7])
	}
	for ; i < len(docs); i++ {
		add(docs[i], sat[i])
	}
}

// addApproxFields adds a term's weight·sat(t, d) to a(d) from its field
// postings, as scoreBM25F computes tf~ (termParts), marking the documents
// touched unless dense, and returns its weight.
func (ix *Index) addApproxFields(qt *queryTerm, expansionWeight float64, dense bool, s *Scratch) float64 {
	count := ix.termParts(qt, s)
	weight, k1 := ix.bm25fTermWeight(qt, count, expansionWeight), ix.bm25fK1
	approx, part, termMark := s.approx, s.part, s.termMark
	if dense {
		for _, doc := range s.termDocs[:count] {
			row := &part[doc]
			tf := row[0] + row[1] + row[2] + row[3] + row[4]
			approx[doc] += float64(weight * float64(tf/(k1+tf)))
			*row = [profile.NumFields]float64{}
			termMark[doc] = 0
		}
		return weight
	}
	touched, mark, n := s.touched, s.mark, s.touchedCount
	for _, doc := range s.termDocs[:count] {
		row := &part[doc]
		tf := row[0] + row[1] + row[2] + row[3] + row[4]
		touched[n] = doc
		seen := &mark[doc]
		n += int(1 - *seen)
		*seen = 1
		approx[doc] += float64(weight * float64(tf/(k1+tf)))
		*row = [profile.NumFields]float64{}
		termMark[doc] = 0
	}
	s.touchedCount = n
	return weight
}

// termLength is how many field postings a term has.
func (ix *Index) termLength(qt *queryTerm) int {
	n := 0
	for f := range ix.Fields {
		if t := qt.refs[f]; t >= 0 {
			n += int(ix.Fields[f].PostingStart[t+1] - ix.Fields[f].PostingStart[t])
		}
	}
	return n
}

// touchedApprox lists the eligible touched documents with their a(d), and
// sets a(d) back to 0 (a document whose every saturation rounded to 0 keeps
// a(d) = 0 and stays a hit: it may still be needed when fewer than k others
// are).
func (s *Scratch) touchedApprox(eligible []bool) []Hit {
	hits := s.hitBuffer(s.touchedCount)
	n := 0
	for _, doc := range s.touched[:s.touchedCount] {
		hits[n] = Hit{Doc: doc, Score: s.approx[doc]}
		s.approx[doc] = 0
		if eligible[doc] {
			n++
		}
	}
	return hits[:n]
}

// denseApprox lists, in document order, the eligible documents whose a(d)
// can reach the best k (at least approxCutoff of the k-th best positive
// a(d)), and sets every a(d) back to 0. It reads a(d) once, keeping the k
// best in a min-heap whose root is the one to beat, and lists only the
// documents at or above the cutoff of the root at the time: the root only
// rises, so the list is a superset of the answer, cut at the end. Past the
// first few hundred documents almost none reaches the cutoff, so the pass
// is a load and a compare per document. Listing every positive document and
// selecting among them afterwards (the way before) was a store and an
// unpredictable branch per document: natively on 100,000 tools, half of a
// query.
//
// Unmarked, a document the query touched whose saturations all rounded to
// 0 looks untouched: it cannot be among the candidates when the cutoff is
// positive and at least k others are positive. Otherwise it returns false,
// and TopBM25F answers the query again, marking what it touches.
func (s *Scratch) denseApprox(eligible []bool, k int, quantum float64) ([]Hit, bool) {
	approx := s.approx
	heap, hits := s.best[:0], s.hits[:0]
	doc := 0
	for ; doc < len(approx) && len(heap) < k; doc++ {
		if a := approx[doc]; a > 0 && eligible[doc] {
			heap = append(heap, a)
			hits = append(hits, Hit{Doc: uint32(doc), Score: a})
		}
	}
	if len(heap) < k {
		s.best = heap
		clear(approx)
		return nil, false
	}
	heap = padHeap(heap)
	s.best = heap
	for i := k/2 - 1; i >= 0; i-- {
		siftDownPadded(heap, i, heap[i])
	}
	root := heap[0]
	cutoff := approxCutoff(root, quantum)
	// listed: a(d) at or above the cutoff, and positive while the cutoff
	// is not.
	floor := positiveFloor(cutoff)
	for {
		if doc = nextReaching(approx, doc, floor); doc == len(approx) {
			break
		}
		if a := approx[doc]; eligible[doc] {
			hits = append(hits, Hit{Doc: uint32(doc), Score: a})
			if a > root {
				siftDownPadded(heap, 0, a)
				root = heap[0]
				cutoff = approxCutoff(root, quantum)
				floor = positiveFloor(cutoff)
			}
		}
		doc++
	}
	clear(approx)
	s.hits = hits
	if cutoff <= 0 {
		return nil, false
	}
	kept := hits[:0]
	for _, hit := range hits {
		if hit.Score >= cutoff {
			kept = append(kept, hit)
		}
	}
	return kept, true
}

// padHeap extends a heap of n scores with n+1 infinities, so that every
// node of the heap has two children in the slice (2(n−1)+2 = 2n): a node
// whose children are both padding is never moved past, and siftDownPadded
// needs no bounds checks and no test for a missing child.
func padHeap(heap []float64) []float64 {
	n := len(heap)
	heap = slices.Grow(heap, n+1)[:2*n+1]
	for i := n; i < len(heap); i++ {
		heap[i] = math.Inf(1)
	}
	return heap
}

// siftDownPadded puts x at node i of a padded min-heap (see padHeap) whose
// subtrees below i are heaps, moving smaller children up into the hole:
// one branch a level, the one that ends it (the smaller child is chosen by
// an integer from the comparison, which Go compiles without a branch in
// WebAssembly, where each branch is a dispatch). Replacing the root is
// most of denseApprox on StableToolBench: four levels for almost every
// document listed (81 of 82 a query). With siftDown, on wazero, denseApprox
// ran 133,000 instructions a query; with this, 98,000 with the sift
// (callgrind). x is finite, as every a(d) is.
//
//go:nosplit
func siftDownPadded(heap []float64, i int, x float64) {
	base := unsafe.Pointer(unsafe.SliceData(heap))
	at := func(j int) *float64 { return (*float64)(unsafe.Add(base, uintptr(j)*8)) }
	for {
		child := 2*i + 1
		right := 0
		if *at(child + 1) < *at(child) {
			right = 1
		}
		child += right
		smaller := *at(child)
		if x <= smaller {
			break
		}
		*at(i) = smaller
		i = child
	}
	*at(i) = x
}

// nextReaching returns the first document from doc on whose a(d) reaches
// floor (positive), or len(approx). It is the pass over every document, so
// it is kept out of line and does as little per document as it can in
// WebAssembly, where Go sends every branch back through a function-wide
// dispatch table: eight documents per branch while none reaches the floor,
// read as integers straight from memory. a(d) is never negative, and the
// bits of non-negative floats order as their values, so the floor's bits
// minus 1 minus a(d)'s have their top bit set exactly where a(d) reaches
// the floor. (math.Float64bits on a loaded float is a store and a load
// through the stack in WebAssembly; indexing a slice, a bounds check and a
// call to panic. Reading the bits with one load instead: on wazero,
// StableToolBench, 139,000 → 68,000 instructions a query, callgrind.)
//
//go:noinline
func nextReaching(approx []float64, doc int, floor float64) int {
	f := math.Float64bits(floor) - 1
	base := unsafe.Pointer(unsafe.SliceData(approx))
	for ; doc+8 <= len(approx); doc += 8 {
		// In range: doc+8 ≤ len(approx), and doc ≥ 0 (callers start at 0
		// or past a document they read).
		a := (*[8]uint64)(unsafe.Add(base, uintptr(doc)*8))
		reached := (f - a[0]) | (f - a[1]) | (f - a[2]) | (f - a[3]) |
			(f - a[4]) | (f - a[5]) | (f - a[6]) | (f - a[7])
		if reached>>63 != 0 {
			break
		}
	}
	for ; doc < len(approx); doc++ {
		if approx[doc] >= floor {
			return doc
		}
	}
	return doc
}

// positiveFloor is max(cutoff, the smallest positive float), without the
// builtin: for floats it is a runtime call in WebAssembly.
func positiveFloor(cutoff float64) float64 {
	if cutoff > math.SmallestNonzeroFloat64 {
		return cutoff
	}
	return math.SmallestNonzeroFloat64
}

// topPath is the way the last TopBM25F went (for tests).
type topPath uint8

const (
	pathSparse       topPath = iota // marking what it touched
	pathDense                       // adding densely
	pathDenseRetried                // adding densely, then again marking (see denseApprox)
)

// denseMin: a query whose terms have at least Docs/denseMin field postings
// adds densely (see topBM25F).
const denseMin = 4

// rescore replaces each hit's score (hits ascending by document) with its
// exact score, leaving its per-field shares in s.acc[doc] for FieldScores,
// and keeps the positive ones: the operations of addTermField, saturate and
// total for each document, in the same order, so the same bits. It goes
// term by term, so each document's shares are still added in term order,
// and finds the hits among a term's postings in one of two ways:
//
//   - scanning: the hits are marked (hitMark), and the term's postings are
//     read in order, eight documents' marks per branch for a merged term.
//     Most postings are not hits, so this is two loads and no branch per
//     posting.
//   - galloping: one forward search per hit (gallop), from where the last
//     hit was found, for a term with more than rescoreScanMax postings per
//     hit, where the search skips what the scan would read.
//
// A merged term gives each field's frequency from its packed entry; a term
// not precomputed is found in each field's postings. (Walking the merged
// postings beside the sorted hits, and galloping each field for each hit
// of a term not precomputed, the way before: on wazero, StableToolBench,
// rescoring took 378,000 instructions a query; scanning takes 161,000,
// callgrind.)
func (ix *Index) rescore(hits []Hit, terms []queryTerm, s *Scratch) []Hit {
	if len(hits) == 0 {
		return hits
	}
	s.sizeTermScratch(ix.Docs)
	if len(s.hitMark) != ix.Docs {
		s.hitMark = make([]uint8, ix.Docs)
	}
	for _, hit := range hits {
		s.hitMark[hit.Doc] = 1
	}
	scanMax := rescoreScanMax * len(hits)
	s.rescoreWays = 0
	for i := range terms {
		qt, weight, m := &terms[i], s.termWeights[i], &s.termMerged[i]
		switch {
		case len(m.docs) > scanMax:
			ix.rescoreMergedGalloping(hits, m, qt, weight, s)
			s.rescoreWays |= 1 << rescoreMergedGalloping
		case len(m.docs) > 0:
			ix.rescoreMergedScanning(m, qt, weight, s)
			s.rescoreWays |= 1 << rescoreMergedScanning
		case ix.termLength(qt) > scanMax:
			ix.rescoreFieldsGalloping(hits, qt, weight, s)
			s.rescoreWays |= 1 << rescoreFieldsGalloping
		default:
			ix.rescoreFieldsScanning(qt, weight, s)
			s.rescoreWays |= 1 << rescoreFieldsScanning
		}
	}
	kept := hits[:0]
	for _, hit := range hits {
		s.hitMark[hit.Doc] = 0
		if score := total(&s.acc[hit.Doc], &s.weights); score > 0 {
			kept = append(kept, Hit{Doc: hit.Doc, Score: score})
		}
	}
	return kept
}

// The ways rescore finds a term's hits, bits of Scratch.rescoreWays.
const (
	rescoreMergedScanning = iota
	rescoreMergedGalloping
	rescoreFieldsScanning
	rescoreFieldsGalloping
)

// rescoreScanMax: a term with at most this many postings per hit is
// rescored by scanning its postings, a longer one by galloping to each hit
// (see rescore).
const rescoreScanMax = 64

// rescoreMergedScanning adds a merged term's shares to every marked hit
// among its documents. Its loads stay in range without bounds checks:
// merged documents are below ix.Docs (validateImpacts), the size of
// hitMark.
func (ix *Index) rescoreMergedScanning(m *mergedTerm, qt *queryTerm, weight float64, s *Scratch) {
	marks := unsafe.Pointer(unsafe.SliceData(s.hitMark))
	mark := func(doc uint32) uint { return uint(*(*uint8)(unsafe.Add(marks, doc))) }
	docs, k1 := m.docs, ix.bm25fK1
	at := 0
	for ; at+8 <= len(docs); at += 8 {
		// Which of the next eight are hits, a bit each (marks are 0 or 1
		// here).
		d := (*[8]uint32)(unsafe.Pointer(&docs[at]))
		found := mark(d[0]) | mark(d[1])<<1 | mark(d[2])<<2 | mark(d[3])<<3 |
			mark(d[4])<<4 | mark(d[5])<<5 | mark(d[6])<<6 | mark(d[7])<<7
		for ; found != 0; found &= found - 1 {
			entry := at + bits.TrailingZeros(found)
			doc, packed := docs[entry], m.tfs[entry]
			if packed&tfsOverflow != 0 {
				ix.addMergedShares(m, entry, qt, doc, weight, s)
				continue
			}
			// addMergedShares, written out: a call here saves and reloads
			// every live value through memory in WebAssembly (on wazero,
			// StableToolBench: 58,000 fewer instructions a query,
			// callgrind). The same operations in the same order, so the
			// same bits.
			coef, acc := &ix.bm25fCoef[doc], &s.acc[doc]
			r0 := float64(float64(packed&tfMax) * coef[0])
			r1 := float64(float64(packed>>tfBits&tfMax) * coef[1])
			r2 := float64(float64(packed>>(2*tfBits)&tfMax) * coef[2])
			r3 := float64(float64(packed>>(3*tfBits)&tfMax) * coef[3])
			r4 := float64(float64(packed>>(4*tfBits)&tfMax) * coef[4])
			scale := weight / (k1 + (r0 + r1 + r2 + r3 + r4))
			acc[0] += float64(r0 * scale)
			acc[1] += float64(r1 * scale)
			acc[2] += float64(r2 * scale)
			acc[3] += float64(r3 * scale)
			acc[4] += float64(r4 * scale)
		}
	}
	for ; at < len(docs); at++ {
		if doc := docs[at]; mark(doc) != 0 {
			ix.addMergedShares(m, at, qt, doc, weight, s)
		}
	}
}

// rescoreMergedGalloping adds a merged term's shares to the hits it is in
// (hits ascending by document), galloping from each hit to the next.
func (ix *Index) rescoreMergedGalloping(hits []Hit, m *mergedTerm, qt *queryTerm, weight float64, s *Scratch) {
	at := 0
	for _, hit := range hits {
		var ok bool
		if at, ok = gallop(m.docs, at, hit.Doc); ok {
			ix.addMergedShares(m, at, qt, hit.Doc, weight, s)
		}
	}
}

// rescoreFieldsScanning adds the shares of a term not precomputed to every
// marked hit among its field postings: each field's part of tf~ goes into
// s.part[doc] (listing the document in s.termDocs the first time, bit 2 of
// its mark), and the listed documents' shares are added once every field
// is read, as saturate adds them.
func (ix *Index) rescoreFieldsScanning(qt *queryTerm, weight float64, s *Scratch) {
	marks, listed, n := s.hitMark, s.termDocs, 0
	for f := profile.Field(0); f < profile.NumFields; f++ {
		t, field := qt.refs[f], &ix.Fields[f]
		if t < 0 {
			continue
		}
		lo, hi := field.PostingStart[t], field.PostingStart[t+1]
		tfs := field.PostingTF[lo:hi]
		for p, doc := range field.PostingDoc[lo:hi] {
			if marks[doc] == 0 {
				continue
			}
			s.part[doc][f] = float64(float64(tfs[p]) * ix.bm25fCoef[doc][f])
			if marks[doc] == 1 {
				marks[doc] = 3
				listed[n] = doc
				n++
			}
		}
	}
	for _, doc := range listed[:n] {
		addShares(&s.acc[doc], &s.part[doc], weight, ix.bm25fK1)
		s.part[doc] = [profile.NumFields]float64{}
		marks[doc] = 1
	}
}

// rescoreFieldsGalloping adds the shares of a term not precomputed to the
// hits it is in (hits ascending by document), galloping in each field from
// each hit to the next.
func (ix *Index) rescoreFieldsGalloping(hits []Hit, qt *queryTerm, weight float64, s *Scratch) {
	var at [profile.NumFields]int
	for _, hit := range hits {
		var row [profile.NumFields]float64
		found := false
		for f := profile.Field(0); f < profile.NumFields; f++ {
			t, field := qt.refs[f], &ix.Fields[f]
			if t < 0 {
				continue
			}
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			p, ok := gallop(field.PostingDoc[lo:hi], at[f], hit.Doc)
			at[f] = p
			if ok {
				row[f] = float64(float64(field.PostingTF[int(lo)+p]) * ix.bm25fCoef[hit.Doc][f])
				found = true
			}
		}
		if found {
			addShares(&s.acc[hit.Doc], &row, weight, ix.bm25fK1)
		}
	}
}

// addMergedShares adds the shares of a merged term's entry at (for doc) to
// the document's accumulators.
func (ix *Index) addMergedShares(m *mergedTerm, at int, qt *queryTerm, doc uint32, weight float64, s *Scratch) {
	var row [profile.NumFields]float64
	if packed := m.tfs[at]; packed&tfsOverflow == 0 {
		ix.rowFromPacked(&row, packed, doc)
	} else {
		ix.rowFromFields(&row, qt, uint8(packed), doc)
	}
	addShares(&s.acc[doc], &row, weight, ix.bm25fK1)
}

// rowFromPacked is each field's part of tf~ in doc, tf·coef, from a merged
// entry's packed frequencies: every field, a frequency of 0 giving the
// +0 that an untouched part holds, without a branch per field (a dispatch
// each in WebAssembly).
func (ix *Index) rowFromPacked(row *[profile.NumFields]float64, packed uint16, doc uint32) {
	coef := &ix.bm25fCoef[doc]
	row[0] = float64(float64(packed&tfMax) * coef[0])
	row[1] = float64(float64(packed>>tfBits&tfMax) * coef[1])
	row[2] = float64(float64(packed>>(2*tfBits)&tfMax) * coef[2])
	row[3] = float64(float64(packed>>(3*tfBits)&tfMax) * coef[3])
	row[4] = float64(float64(packed>>(4*tfBits)&tfMax) * coef[4])
}

// rowFromFields is rowFromPacked for an entry whose frequencies did not fit:
// a binary search of each field in fields.
func (ix *Index) rowFromFields(row *[profile.NumFields]float64, qt *queryTerm, fields uint8, doc uint32) {
	for f := profile.Field(0); f < profile.NumFields; f++ {
		t, field := qt.refs[f], &ix.Fields[f]
		if fields&(1<<f) == 0 || t < 0 {
			continue
		}
		lo, hi := field.PostingStart[t], field.PostingStart[t+1]
		if p, ok := searchDoc(field.PostingDoc[lo:hi], doc); ok {
			row[f] = float64(float64(field.PostingTF[int(lo)+p]) * ix.bm25fCoef[doc][f])
		}
	}
}

// addShares adds one term's saturated shares to a document's per-field
// accumulators, as saturate does.
func addShares(acc, row *[profile.NumFields]float64, weight, k1 float64) {
	tf := row[0] + row[1] + row[2] + row[3] + row[4]
	scale := weight / (k1 + tf)
	acc[0] += float64(row[0] * scale)
	acc[1] += float64(row[1] * scale)
	acc[2] += float64(row[2] * scale)
	acc[3] += float64(row[3] * scale)
	acc[4] += float64(row[4] * scale)
}

// gallop finds doc in docs[from:] (ascending, and doc at least every
// document before from): the first position at or after from whose
// document is not below doc, by doubling steps and then a binary search
// within the last step, so a walk over ascending documents costs about the
// logarithm of the gap between them.
func gallop(docs []uint32, from int, doc uint32) (int, bool) {
	lo, step := from, 1
	hi := lo
	for hi < len(docs) && docs[hi] < doc {
		lo = hi + 1
		hi += step
		step <<= 1
	}
	hi = min(hi, len(docs))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if docs[mid] < doc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(docs) && docs[lo] == doc
}

// searchDoc finds doc in docs (ascending).
func searchDoc(docs []uint32, doc uint32) (int, bool) {
	lo, hi := 0, len(docs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if docs[mid] < doc {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(docs) && docs[lo] == doc
}
