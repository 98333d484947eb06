package index

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/toolsift/toolsift/core/profile"
)

// queryTerm is a distinct query term the index knows: its vocabulary index
// and positions in the fields' Terms, how often the query repeats it, and
// the BM25 query-frequency factor ln(1+count).
type queryTerm struct {
	id    uint32
	refs  *termRefs
	count int
	qtf   float64
	// expansion: the term was not in the query but added by the
	// profile's query expansion (BM25F weighs it at expansionWeight).
	expansion bool
}

// Hit is one scored document and its total score.
type Hit struct {
	Doc   uint32
	Score float64
}

// Scratch is per-query working memory. Reuse it (one per goroutine) to keep
// queries allocation-light; the zero value is ready to use. After Score it
// also answers FieldScores for any document, until the next Score.
//
// The posting loops are written without data-dependent branches: Go's
// WebAssembly code generator sends every taken branch through a function-wide
// dispatch table, so a branch per posting costs more there than the
// arithmetic it guards. Every posting's document is accumulated and marked
// unconditionally; eligibility is checked once per touched document, after.
type Scratch struct {
	// acc holds each document's per-field score, acc[doc][field], so one
	// document's fields share a cache line.
	acc     [][profile.NumFields]float64
	weights [profile.NumFields]float64
	// mark[doc] is 1 once the query touched doc. touched lists those
	// documents, first touches first, in touched[:touchedCount]; it has one
	// spare slot because the loops store before they know whether the
	// document was new.
	mark         []uint8
	touched      []uint32
	touchedCount int
	// dense: the last query accumulated without marking (see Score), so
	// any row of acc may be dirty.
	dense bool
	hits  []Hit
	ids   []uint32
	terms []queryTerm
	// BM25F: one query term's per-field tf~ parts per document, and the
	// documents the term touched (see scoreBM25F).
	part     [][profile.NumFields]float64
	termMark []uint8
	termDocs []uint32
	// TopBM25F: each document's approximate score (zero outside a call),
	// and the weight of each query term.
	approx      []float64
	best        []float64 // denseApprox's heap of the k best a(d)
	termWeights []float64
	termMerged  []mergedTerm
	// hitMark[doc] is 1 while rescore computes doc's exact score (3 while
	// a term's field postings have listed it), 0 otherwise.
	hitMark     []uint8
	ranked      []Ranked // what the last TopBM25F returned
	path        topPath  // the way the last TopBM25F went
	rescoreWays uint8    // the ways its rescore found hits, a bit each (for tests)
}

// The loops over a document's fields are unrolled (a loop costs a dispatch
// per field in WebAssembly); this fails to compile if the field count
// changes.
var _ = [1]struct{}{}[profile.NumFields-5]

// reset clears what the last query wrote and sizes s for docs documents.
func (s *Scratch) reset(docs int) {
	if len(s.mark) != docs {
		s.acc = make([][profile.NumFields]float64, docs)
		s.mark = make([]uint8, docs)
		s.touched = make([]uint32, docs+1)
		s.touchedCount, s.dense = 0, false
	}
	if s.dense {
		clear(s.acc) // one memory.fill in WebAssembly
		s.dense = false
	}
	// Zero only what the last query wrote.
	acc, mark := s.acc, s.mark
	for _, doc := range s.touched[:s.touchedCount] {
		acc[doc] = [profile.NumFields]float64{}
		mark[doc] = 0
	}
	s.touchedCount = 0
	s.hits = s.hits[:0]
}

// Score scores every eligible document that shares a term with the query's
// tokens and returns the documents with a positive score, in no particular
// order (rank them with Top). eligible has one entry per document. The
// returned slice lives in s until the next call.
//
// The algorithm is the one the index was Prepared for.
func (ix *Index) Score(weights *[profile.NumFields]float64, tokens []string, eligible []bool, s *Scratch) []Hit {
	return ix.ScoreExpanded(weights, tokens, nil, 0, eligible, s)
}

// ScoreExpanded is Score with expansion terms: terms the query did not
// have, each weighing expansionWeight of a query term (an expansion that the
// query has anyway counts once, as the query's). Only BM25F uses them.
func (ix *Index) ScoreExpanded(weights *[profile.NumFields]float64, tokens, expansions []string, expansionWeight float64, eligible []bool, s *Scratch) []Hit {
	eligible = eligible[:ix.Docs]
	s.reset(ix.Docs)
	s.weights = *weights
	terms := ix.queryTerms(tokens, s)
	if ix.algorithm == profile.BM25F {
		terms = ix.addExpansions(terms, expansions, s)
		s.weights = [profile.NumFields]float64{1, 1, 1, 1, 1} // already in the coefficients
		ix.scoreBM25F(terms, expansionWeight, s)
		return s.touchedHits(eligible)
	}
	// A query whose postings outnumber the documents touches most of them:
	// then marking each posting's document costs more than visiting every
	// document once at the end, so the postings are added without marks
	// (dense). Either way every score has the same bits; only the order of
	// the returned hits differs, and no caller depends on it.
	postings := 0
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if weights[f] <= 0 {
			continue
		}
		field := &ix.Fields[f]
		for _, qt := range terms {
			if t := qt.refs[f]; t >= 0 {
				postings += int(field.PostingStart[t+1] - field.PostingStart[t])
			}
		}
	}
	s.dense = ix.algorithm == profile.BM25 && postings >= ix.Docs
	if ix.algorithm == profile.BM25 {
		for i := range terms {
			if atomic.LoadUint32(&ix.ready[terms[i].id]) == 0 {
				ix.derive(terms[i].id) // the term's first query
			}
			terms[i].qtf = math.Log1p(float64(terms[i].count))
		}
	}
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if weights[f] <= 0 {
			continue
		}
		field := &ix.Fields[f]
		if ix.algorithm == profile.TFIDF {
			ix.accumulateTFIDF(field, f, terms, s)
			continue
		}
		for _, qt := range terms {
			t := qt.refs[f]
			if t < 0 {
				continue
			}
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			docs, impacts, qtf := field.PostingDoc[lo:hi], field.bm25Impact[lo:hi], qt.qtf
			if s.dense {
				s.add(f, docs, impacts, qtf)
			} else {
				s.accumulate(f, docs, impacts, qtf)
			}
		}
	}
	// Every scored document is written and the count moves only for a hit:
	// no branch per document.
	w := &s.weights
	acc := s.acc
	var hits []Hit
	if s.dense {
		acc = acc[:len(eligible)]
		out := s.hitBuffer(len(eligible))
		n := 0
		for doc, ok := range eligible {
			score := total(&acc[doc], w)
			out[n] = Hit{Doc: uint32(doc), Score: score}
			if score > 0 && ok {
				n++
			}
		}
		hits = out[:n]
	} else {
		touched := s.touched[:s.touchedCount]
		out := s.hitBuffer(len(touched))
		n := 0
		for _, doc := range touched {
			score := total(&acc[doc], w)
			out[n] = Hit{Doc: doc, Score: score}
			if score > 0 && eligible[doc] {
				n++
			}
		}
		hits = out[:n]
	}
	s.hits = hits
	return hits
}

// touchedHits returns the touched eligible documents with a positive score.
func (s *Scratch) touchedHits(eligible []bool) []Hit {
	touched := s.touched[:s.touchedCount]
	out := s.hitBuffer(len(touched))
	n := 0
	for _, doc := range touched {
		score := total(&s.acc[doc], &s.weights)
		out[n] = Hit{Doc: doc, Score: score}
		if score > 0 && eligible[doc] {
			n++
		}
	}
	s.hits = out[:n]
	return s.hits
}

// hitBuffer returns s.hits with room for n hits, length n.
func (s *Scratch) hitBuffer(n int) []Hit {
	if cap(s.hits) < n {
		s.hits = make([]Hit, n)
	}
	return s.hits[:n]
}

// total is a document's score: its weighted field scores added in field
// order. The reference skips fields that did not match; here every field is
// added, because every value is ≥ 0 (impacts are positive, and fields with
// no positive weight are never accumulated) and adding ±0 to a non-negative
// sum changes no bit. That keeps the sum free of branches, and unrolled: a
// loop over five fields would cost a dispatch per field in WebAssembly.
func total(row *[profile.NumFields]float64, w *[profile.NumFields]float64) float64 {
	return float64(row[0]*w[0]) + float64(row[1]*w[1]) + float64(row[2]*w[2]) + float64(row[3]*w[3]) + float64(row[4]*w[4])
}

// queryTerms returns the distinct tokens the index knows, with their counts,
// in byte order of the term: the order every score is accumulated in (the
// reference's). The vocabulary is sorted, so its indexes are in that order
// and sorting them replaces sorting strings; a token no field has adds
// nothing to any score and is dropped.
func (ix *Index) queryTerms(tokens []string, s *Scratch) []queryTerm {
	ids := s.ids[:0]
	for _, token := range tokens {
		if id, ok := ix.vocab.index(token); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	terms := s.terms[:0]
	for i, id := range ids {
		if i > 0 && id == ids[i-1] {
			terms[len(terms)-1].count++
			continue
		}
		terms = append(terms, queryTerm{id: id, refs: &ix.vocab.refs[id], count: 1})
	}
	s.ids, s.terms = ids, terms
	return terms
}

// addExpansions adds the expansion terms the index knows and the query
// lacks, keeping terms in vocabulary order (the order scores are summed in).
func (ix *Index) addExpansions(terms []queryTerm, expansions []string, s *Scratch) []queryTerm {
	for _, token := range expansions {
		id, ok := ix.vocab.index(token)
		if !ok {
			continue
		}
		i, found := slices.BinarySearchFunc(terms, id, func(t queryTerm, id uint32) int { return cmp.Compare(t.id, id) })
		if found {
			continue
		}
		terms = slices.Insert(terms, i, queryTerm{id: id, refs: &ix.vocab.refs[id], count: 1, expansion: true})
	}
	s.terms = terms
	return terms
}

// touch marks doc touched.
func (s *Scratch) touch(doc uint32) {
	if s.mark[doc] == 0 {
		s.mark[doc] = 1
		s.touched[s.touchedCount] = doc
		s.touchedCount++
	}
}

// accumulate adds impact·qtf to field f of every posting's document and
// marks the documents touched. impact = idf·tfPart, so this is the
// reference's idf·tfPart·ln(1+qtf), evaluated in the same order.
//
// This loop runs once per posting, and it is one of the three places the
// package uses unsafe (with add and addDense, for the same reason): in
// WebAssembly the three bounds checks per posting (mark, touched, acc) cost
// as much as the rest of the loop (the Chinese query of the engine
// benchmarks scores in 46 µs instead of 71 µs). The
// accesses stay in range because
//   - every posting names a document below ix.Docs: Builder only records
//     such documents, and Validate refuses a decoded index with any other;
//   - reset sized mark and acc to ix.Docs and touched to
//     ix.Docs+1 (asserted below, with bounds checks, once per list);
//   - n counts distinct documents (the mark), so it never passes ix.Docs,
//     and touched[n] is at most the spare slot.
func (s *Scratch) accumulate(f profile.Field, docs []uint32, impacts []float64, qtf float64) {
	if len(docs) == 0 {
		return
	}
	impacts = impacts[:len(docs)]
	_ = s.acc[len(s.mark)-1]
	_ = s.touched[len(s.mark)]
	n := uintptr(s.touchedCount)
	acc := unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.acc)), uintptr(f)*8)
	mark := unsafe.Pointer(unsafe.SliceData(s.mark))
	touched := unsafe.Pointer(unsafe.SliceData(s.touched))
	for i, doc := range docs {
		*(*uint32)(unsafe.Add(touched, n*4)) = doc
		seen := (*uint8)(unsafe.Add(mark, uintptr(doc)))
		n += uintptr(1 - *seen)
		*seen = 1
		sum := (*float64)(unsafe.Add(acc, uintptr(doc)*uintptr(profile.NumFields)*8))
		*sum += float64(impacts[i] * qtf)
	}
	s.touchedCount = int(n)
}

// add is accumulate without marking documents, for dense queries (see
// Score); the same invariants keep its accesses in range. It is kept out of
// line: inlined into Score, its loop would run inside Score's larger
// dispatch table in WebAssembly, at twice the cost. It adds four postings
// per iteration, in posting order (so every sum has the same bits): a loop's
// back edge is a dispatch in WebAssembly, and the DWS intents ran 7% faster
// on V8 and 12% faster on wasmtime for it (no change on wazero; the same
// unrolling of accumulate changed nothing anywhere).
//
//go:noinline
func (s *Scratch) add(f profile.Field, docs []uint32, impacts []float64, qtf float64) {
	if len(docs) == 0 {
		return
	}
	impacts = impacts[:len(docs)]
	_ = s.acc[len(s.mark)-1]
	acc := unsafe.Add(unsafe.Pointer(unsafe.SliceData(s.acc)), uintptr(f)*8)
	const row = uintptr(profile.NumFields) * 8
	for len(docs) >= 4 {
		d, m := docs[:4:4], impacts[:4:4]
		*(*float64)(unsafe.Add(acc, uintptr(d[0])*row)) += float64(m[0] * qtf)
		*(*float64)(unsafe.Add(acc, uintptr(d[1])*row)) += float64(m[1] * qtf)
		*(*float64)(unsafe.Add(acc, uintptr(d[2])*row)) += float64(m[2] * qtf)
		*(*float64)(unsafe.Add(acc, uintptr(d[3])*row)) += float64(m[3] * qtf)
		docs, impacts = docs[4:], impacts[4:]
	}
	for i, doc := range docs {
		sum := (*float64)(unsafe.Add(acc, uintptr(doc)*row))
		*sum += float64(impacts[i] * qtf)
	}
}

// FieldScores returns each field's weighted contribution to doc's score in
// the last Score call (zero for fields that did not match).
func (s *Scratch) FieldScores(doc uint32) [profile.NumFields]float64 {
	var out [profile.NumFields]float64
	if int(doc) >= len(s.acc) {
		return out
	}
	for f, value := range s.acc[doc] {
		if s.weights[f] <= 0 {
			continue
		}
		if value = float64(value * s.weights[f]); value > 0 {
			out[f] = value
		}
	}
	return out
}

// accumulateTFIDF writes each document's cosine similarity for one field:
// dot(query, doc) / (|doc|·|query|), with the query vector over the terms the
// field knows.
func (ix *Index) accumulateTFIDF(field *Field, f profile.Field, terms []queryTerm, s *Scratch) {
	queryNormSquared := 0.0
	for _, qt := range terms {
		t := qt.refs[f]
		if t < 0 {
			continue
		}
		queryWeight := float64(qt.count) * field.tfidfIDF[t]
		queryNormSquared += float64(queryWeight * queryWeight)
		for p := field.PostingStart[t]; p < field.PostingStart[t+1]; p++ {
			doc := field.PostingDoc[p]
			if field.tfidfNorm[doc] == 0 {
				continue
			}
			s.touch(doc)
			s.acc[doc][f] += float64(field.tfidfWeight[p] * queryWeight)
		}
	}
	if queryNormSquared == 0 {
		return
	}
	queryNorm := math.Sqrt(queryNormSquared)
	for _, doc := range s.touched[:s.touchedCount] {
		if sum := &s.acc[doc][f]; *sum != 0 {
			*sum = *sum / (field.tfidfNorm[doc] * queryNorm)
		}
	}
}

// Quantize rounds a score to 1/quantum so that platform ulp differences
// (fused multiply-add, say) cannot reorder candidates.
func Quantize(score, quantum float64) float64 {
	return math.Round(score*quantum) / quantum
}

// Ranked is a hit with its quantized sort key.
type Ranked struct {
	Hit
	Key float64
}

// Less is the canonical ranking order: quantized score descending, then
// document (canonical path) ascending.
func Less(a, b *Ranked) bool {
	if a.Key != b.Key {
		return a.Key > b.Key
	}
	return a.Doc < b.Doc
}

// Compare is Less as a three-way comparison (for slices.SortFunc).
func Compare(a, b *Ranked) int {
	switch {
	case Less(a, b):
		return -1
	case Less(b, a):
		return 1
	}
	return 0
}

// Rank returns hit as a Ranked under quantum.
func Rank(hit Hit, quantum float64) Ranked {
	return Ranked{Hit: hit, Key: Quantize(hit.Score, quantum)}
}

// Top returns the best k hits in ranking order (k < 0: all of them).
// Rather than keeping the hits themselves in order, it first finds the k-th
// best raw score t with a min-heap of k floats, then ranks only the hits
// that can still make the top k once quantized: those scoring at least
// t − 2/quantum (quantizing is monotone and moves a score by at most half a
// quantum plus rounding, so no hit below that can reach the k-th best key).
// A query touching most of the catalog costs two passes over its hits, a
// few heap steps and a sort of about k hits.
func Top(hits []Hit, k int, quantum float64) []Ranked {
	if k < 0 || k > len(hits) {
		k = len(hits)
	}
	return topInto(make([]Ranked, 0, k), nil, hits, k, quantum)
}

// topInto is Top (0 ≤ k ≤ len(hits)) in the memory of buf and, for the
// heap, of heap, either of which may be nil.
func topInto(buf []Ranked, heap []float64, hits []Hit, k int, quantum float64) []Ranked {
	if k == 0 {
		return buf[:0]
	}
	cutoff := math.Inf(-1)
	if k < len(hits) {
		t := kthBest(hits, k, heap)
		cutoff = t - 2/quantum - 1e-12*math.Abs(t)
	}
	ranked := buf[:0]
	for _, hit := range hits {
		if hit.Score >= cutoff {
			ranked = append(ranked, Rank(hit, quantum))
		}
	}
	sortRanked(ranked)
	return ranked[:k]
}

// sortRanked sorts a few ranked hits (about k) in ranking order: an
// insertion sort, which for so few needs no more comparisons than a general
// sort and makes no call per comparison (dear in WebAssembly).
func sortRanked(r []Ranked) {
	for i := 1; i < len(r); i++ {
		x := r[i]
		j := i
		for ; j > 0 && Less(&x, &r[j-1]); j-- {
			r[j] = r[j-1]
		}
		r[j] = x
	}
}

// kthBest returns the k-th highest score of hits (0 < k < len(hits)),
// using heap's memory when it is large enough: a
// min-heap of the k best scores seen, whose root is the one to beat.
func kthBest(hits []Hit, k int, heap []float64) float64 {
	if cap(heap) < k {
		heap = make([]float64, k)
	}
	heap = heap[:k]
	for i := range heap {
		heap[i] = hits[i].Score
	}
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(heap, i)
	}
	root := heap[0] // the score to beat, kept out of memory
	for _, hit := range hits[k:] {
		if hit.Score > root {
			heap[0] = hit.Score
			siftDown(heap, 0)
			root = heap[0]
		}
	}
	return root
}

// siftDown restores the min-heap order below i.
func siftDown(heap []float64, i int) {
	for {
		child := 2*i + 1
		if child >= len(heap) {
			return
		}
		if right := child + 1; right < len(heap) && heap[right] < heap[child] {
			child = right
		}
		if heap[i] <= heap[child] {
			return
		}
		heap[i], heap[child] = heap[child], heap[i]
		i = child
	}
}
