package index

import (
	"math"

	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
)

// BM25F (Robertson, Zaragoza and Taylor's "simple BM25F") scores a document
// once per query term, over all its fields together:
//
//	tf~(t, d)  = Σ_f w_f · tf_f(t, d) / (1 − b_f + b_f · len_f(d) / avglen_f)
//	score(d)   = Σ_t qw(t) · idf(t) · tf~ / (k1 + tf~)
//	qw(t)      = the profile's PairWeight for a word pair, else 1
//	idf(t)     = ln(1 + (N − df + 0.5) / (df + 0.5)),  df = documents with t in any field
//
// Field weights scale term frequencies before the saturation, not scores
// after it, so a word that a tool's name and its description both carry
// counts once, strongly, instead of twice; and one document frequency over
// all fields stops a word that is rare in names but common in descriptions
// from looking rare. (fielded_bm25_ensemble, dws-v1's algorithm, adds one
// saturated BM25 per field, each with the field's own idf.)
//
// The per-field shares of each term's score are kept, so matched_fields and
// the explain breakdown still say which fields matched: a term's score is
// split over its fields in proportion to their part of tf~.

// prepareBM25F derives, per field and document, w_f / (1 − b_f + b_f·len/avglen).
func (ix *Index) prepareBM25F(p *profile.Profile) {
	n := float64(ix.Docs)
	ix.bm25fCoef = make([][profile.NumFields]float64, ix.Docs)
	for f := range ix.Fields {
		field := &ix.Fields[f]
		w, b := p.Weights[f], p.FieldB[f]
		total := uint64(0)
		for _, l := range field.DocLen {
			total += uint64(l)
		}
		avgLen := 1.0
		if ix.Docs > 0 && total > 0 {
			avgLen = float64(total) / n
		}
		for doc, l := range field.DocLen {
			length := float64(max(l, 1))
			ix.bm25fCoef[doc][f] = w / float64(1-b+float64(b*length)/avgLen)
		}
	}
	ix.bm25fK1 = p.K1
	ix.bm25fQueryTF = p.QueryTermWeight
	ix.bm25fPairWeight = p.PairWeight
	ix.prepareImpacts(p)
}

// scoreBM25F accumulates every touched document's per-field shares into
// s.acc (weights are already in the coefficients, so s.weights is all ones).
func (ix *Index) scoreBM25F(terms []queryTerm, expansionWeight float64, s *Scratch) {
	k1 := ix.bm25fK1
	for _, qt := range terms {
		// 1. tf~ per document, field by field in field order.
		count := ix.termParts(&qt, s)
		// 2. Saturate once per document, and share the score out.
		s.saturate(s.termDocs[:count], ix.bm25fTermWeight(&qt, count, expansionWeight), k1)
	}
}

// termParts writes one query term's part of tf~ per field into s.part for
// every document it is in, lists those documents in s.termDocs and returns
// how many there are (its document frequency).
func (ix *Index) termParts(qt *queryTerm, s *Scratch) int {
	s.sizeTermScratch(ix.Docs)
	count := 0
	for f := profile.Field(0); f < profile.NumFields; f++ {
		t, field := qt.refs[f], &ix.Fields[f]
		if t < 0 {
			continue
		}
		lo, hi := field.PostingStart[t], field.PostingStart[t+1]
		count = s.addTermField(f, field.PostingDoc[lo:hi], field.PostingTF[lo:hi], ix.bm25fCoef, count)
	}
	return count
}

// sizeTermScratch sizes the per-term working memory for docs documents.
func (s *Scratch) sizeTermScratch(docs int) {
	if len(s.part) != docs {
		s.part = make([][profile.NumFields]float64, docs)
		s.termMark = make([]uint8, docs)
		s.termDocs = make([]uint32, docs+1) // a spare slot: addTermField stores before it knows
	}
}

// bm25fTermWeight is a query term's weight, qw(t)·idf(t), for a term in df
// documents; scoreBM25F and TopBM25F both take it from here, so their
// scores have the same bits.
func (ix *Index) bm25fTermWeight(qt *queryTerm, df int, expansionWeight float64) float64 {
	n, d := float64(ix.Docs), float64(df)
	idf := math.Log(1 + (n-d+0.5)/(d+0.5))
	weight := idf
	if ix.bm25fPairWeight > 0 && text.IsWordPair(ix.vocab.terms[qt.id]) {
		// Decided per query term, not per vocabulary term at open:
		// a query has a few terms, a catalog hundreds of thousands.
		weight = float64(idf * ix.bm25fPairWeight)
	}
	if qt.expansion {
		weight = float64(weight * expansionWeight)
	}
	if ix.bm25fQueryTF == profile.QueryTermLog {
		weight = float64(weight * math.Log1p(float64(qt.count)))
	}
	return weight
}

// addTermField adds one field's part of tf~ for the postings (docs, tfs) of
// one term, and lists the documents the term touches for the first time
// after the count already listed; it returns the new count. Like
// Scratch.accumulate, the loop has no branch per posting (a branch costs a
// dispatch in WebAssembly): every posting's document is stored, and the
// count moves only for a new one. Every posting names a document below
// len(termMark), and termDocs has one spare slot.
func (s *Scratch) addTermField(f profile.Field, docs, tfs []uint32, coef [][profile.NumFields]float64, count int) int {
	tfs = tfs[:len(docs)]
	part, mark, listed := s.part, s.termMark, s.termDocs
	for i, doc := range docs {
		listed[count] = doc
		seen := &mark[doc]
		count += int(1 - *seen)
		*seen = 1
		part[doc][f] += float64(float64(tfs[i]) * coef[doc][f])
	}
	return count
}

// saturate turns each listed document's tf~ into its score for the term,
// shares it out over the fields in proportion to their parts, and clears
// the parts for the next term. tf~ is positive for every listed document
// (each has a posting with tf ≥ 1 in a field of positive coefficient, or
// its coefficient is 0 and so is its part: then the score adds 0).
func (s *Scratch) saturate(docs []uint32, weight, k1 float64) {
	// The query's touched list, marked without a branch as in addTermField
	// (touched has its spare slot too).
	touched, mark, n := s.touched, s.mark, s.touchedCount
	defer func() { s.touchedCount = n }()
	for _, doc := range docs {
		row := &s.part[doc]
		tf := row[0] + row[1] + row[2] + row[3] + row[4]
		touched[n] = doc
		seen := &mark[doc]
		n += int(1 - *seen)
		*seen = 1
		scale := weight / (k1 + tf)
		acc := &s.acc[doc]
		acc[0] += float64(row[0] * scale)
		acc[1] += float64(row[1] * scale)
		acc[2] += float64(row[2] * scale)
		acc[3] += float64(row[3] * scale)
		acc[4] += float64(row[4] * scale)
		*row = [profile.NumFields]float64{}
		s.termMark[doc] = 0
	}
}
