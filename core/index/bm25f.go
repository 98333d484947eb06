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
		coef := make([]float64, ix.Docs)
		for doc, l := range field.DocLen {
			length := float64(max(l, 1))
			coef[doc] = w / float64(1-b+float64(b*length)/avgLen)
		}
		field.bm25fCoef = coef
	}
	ix.bm25fK1 = p.K1
	ix.bm25fQueryTF = p.QueryTermWeight
	// Word pairs weigh PairWeight of a word (1 when the profile sets none).
	ix.bm25fTermWeight = make([]float64, len(ix.vocab.terms))
	for i, term := range ix.vocab.terms {
		ix.bm25fTermWeight[i] = 1
		if p.PairWeight > 0 && text.IsWordPair(term) {
			ix.bm25fTermWeight[i] = p.PairWeight
		}
	}
}

// scoreBM25F accumulates every touched document's per-field shares into
// s.acc (weights are already in the coefficients, so s.weights is all ones).
func (ix *Index) scoreBM25F(terms []queryTerm, expansionWeight float64, s *Scratch) {
	docs := ix.Docs
	if len(s.part) != docs {
		s.part = make([][profile.NumFields]float64, docs)
		s.termMark = make([]uint8, docs)
		s.termDocs = make([]uint32, docs)
	}
	n := float64(docs)
	k1 := ix.bm25fK1
	for _, qt := range terms {
		// 1. tf~ per document, field by field in field order.
		count := 0
		for f := profile.Field(0); f < profile.NumFields; f++ {
			t := qt.refs[f]
			field := &ix.Fields[f]
			if t < 0 || field.bm25fCoef == nil {
				continue
			}
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			coef := field.bm25fCoef
			tfs := field.PostingTF[lo:hi]
			for i, doc := range field.PostingDoc[lo:hi] {
				if s.termMark[doc] == 0 {
					s.termMark[doc] = 1
					s.termDocs[count] = doc
					count++
				}
				s.part[doc][f] += float64(float64(tfs[i]) * coef[doc])
			}
		}
		// 2. Saturate once per document, and share the score out.
		df := float64(count)
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		weight := float64(idf * ix.bm25fTermWeight[qt.id])
		if qt.expansion {
			weight = float64(weight * expansionWeight)
		}
		if ix.bm25fQueryTF == profile.QueryTermLog {
			weight = float64(weight * math.Log1p(float64(qt.count)))
		}
		for _, doc := range s.termDocs[:count] {
			row := &s.part[doc]
			tf := row[0] + row[1] + row[2] + row[3] + row[4]
			s.touch(doc)
			if tf > 0 {
				scale := weight / (k1 + tf)
				acc := &s.acc[doc]
				acc[0] += float64(row[0] * scale)
				acc[1] += float64(row[1] * scale)
				acc[2] += float64(row[2] * scale)
				acc[3] += float64(row[3] * scale)
				acc[4] += float64(row[4] * scale)
			}
			*row = [profile.NumFields]float64{}
			s.termMark[doc] = 0
		}
	}
}
