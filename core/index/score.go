package index

import (
	"math"
	"sort"

	"github.com/toolsift/toolsift/core/profile"
)

// QueryTerm is a distinct query term and how often the query repeats it.
type QueryTerm struct {
	Term  string
	Count int
}

// QueryTerms de-duplicates tokens and sorts them by term (byte order): the
// order every score is accumulated in.
func QueryTerms(tokens []string) []QueryTerm {
	sorted := append([]string(nil), tokens...)
	sort.Strings(sorted)
	terms := make([]QueryTerm, 0, len(sorted))
	for _, token := range sorted {
		if n := len(terms); n > 0 && terms[n-1].Term == token {
			terms[n-1].Count++
			continue
		}
		terms = append(terms, QueryTerm{Term: token, Count: 1})
	}
	return terms
}

// Hit is one scored document: its total score and each field's weighted
// contribution (zero when the field did not match).
type Hit struct {
	Doc    uint32
	Score  float64
	Fields [profile.NumFields]float64
}

// Scratch is per-query working memory. Reuse it (one per goroutine) to keep
// queries allocation-light; the zero value is ready to use.
type Scratch struct {
	acc     [profile.NumFields][]float64
	seen    []bool
	touched []uint32
	hits    []Hit
}

func (s *Scratch) reset(docs int) {
	for f := range s.acc {
		if cap(s.acc[f]) < docs {
			s.acc[f] = make([]float64, docs)
		}
		s.acc[f] = s.acc[f][:docs]
	}
	if cap(s.seen) < docs {
		s.seen = make([]bool, docs)
	}
	s.seen = s.seen[:docs]
	for _, doc := range s.touched {
		for f := range s.acc {
			s.acc[f][doc] = 0
		}
		s.seen[doc] = false
	}
	s.touched = s.touched[:0]
	s.hits = s.hits[:0]
}

// Score scores every eligible document that shares a term with the query and
// returns the documents with a positive score, in document order. eligible
// has one entry per document. The returned slice lives in s until the next
// call.
func (ix *Index) Score(algorithm string, weights *[profile.NumFields]float64, terms []QueryTerm, eligible []bool, s *Scratch) []Hit {
	s.reset(ix.Docs)
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if weights[f] <= 0 {
			continue
		}
		field := &ix.Fields[f]
		acc := s.acc[f]
		if algorithm == profile.TFIDF {
			ix.accumulateTFIDF(field, terms, eligible, acc, s)
			continue
		}
		for _, qt := range terms {
			t, ok := field.lookup[qt.Term]
			if !ok {
				continue
			}
			idf := field.bm25IDF[t]
			qtf := math.Log1p(float64(qt.Count))
			for p := field.PostingStart[t]; p < field.PostingStart[t+1]; p++ {
				doc := field.PostingDoc[p]
				if !eligible[doc] {
					continue
				}
				s.touch(doc)
				acc[doc] += idf * field.bm25TFPart[p] * qtf
			}
		}
	}

	sort.Slice(s.touched, func(i, j int) bool { return s.touched[i] < s.touched[j] })
	for _, doc := range s.touched {
		hit := Hit{Doc: doc}
		for f := profile.Field(0); f < profile.NumFields; f++ {
			if weights[f] <= 0 {
				continue
			}
			if value := s.acc[f][doc] * weights[f]; value > 0 {
				hit.Fields[f] = value
				hit.Score += value
			}
		}
		if hit.Score > 0 {
			s.hits = append(s.hits, hit)
		}
	}
	return s.hits
}

// accumulateTFIDF writes each document's cosine similarity for one field:
// dot(query, doc) / (|doc|·|query|), with the query vector over the terms the
// field knows.
func (ix *Index) accumulateTFIDF(field *Field, terms []QueryTerm, eligible []bool, acc []float64, s *Scratch) {
	queryNormSquared := 0.0
	for _, qt := range terms {
		t, ok := field.lookup[qt.Term]
		if !ok {
			continue
		}
		queryWeight := float64(qt.Count) * field.tfidfIDF[t]
		queryNormSquared += queryWeight * queryWeight
		for p := field.PostingStart[t]; p < field.PostingStart[t+1]; p++ {
			doc := field.PostingDoc[p]
			if !eligible[doc] || field.tfidfNorm[doc] == 0 {
				continue
			}
			s.touch(doc)
			acc[doc] += field.tfidfWeight[p] * queryWeight
		}
	}
	if queryNormSquared == 0 {
		return
	}
	queryNorm := math.Sqrt(queryNormSquared)
	for _, doc := range s.touched {
		if acc[doc] != 0 {
			acc[doc] = acc[doc] / (field.tfidfNorm[doc] * queryNorm)
		}
	}
}

func (s *Scratch) touch(doc uint32) {
	if !s.seen[doc] {
		s.seen[doc] = true
		s.touched = append(s.touched, doc)
	}
}

// Quantize rounds a score to 1/quantum so that platform ulp differences
// (fused multiply-add, say) cannot reorder candidates.
func Quantize(score, quantum float64) float64 {
	return math.Round(score*quantum) / quantum
}

// Less is the canonical ranking order: quantized score descending, then
// document (canonical path) ascending.
func Less(a, b *Hit, quantum float64) bool {
	qa, qb := Quantize(a.Score, quantum), Quantize(b.Score, quantum)
	if qa != qb {
		return qa > qb
	}
	return a.Doc < b.Doc
}

// Top sorts hits into ranking order and keeps the first k (k < 0 keeps all).
// hits is reordered in place.
func Top(hits []Hit, k int, quantum float64) []Hit {
	sort.Slice(hits, func(i, j int) bool { return Less(&hits[i], &hits[j], quantum) })
	if k >= 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}
