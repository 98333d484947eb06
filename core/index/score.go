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
// returns the documents with a positive score, in no particular order (rank
// them with Top). eligible
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

// Rank returns hit as a Ranked under quantum.
func Rank(hit Hit, quantum float64) Ranked {
	return Ranked{Hit: hit, Key: Quantize(hit.Score, quantum)}
}

// Top returns the best k hits in ranking order (k < 0: all of them), without
// sorting the rest: a bounded insertion into a sorted buffer, so a query that
// touches most of the catalog still costs little when k is small.
func Top(hits []Hit, k int, quantum float64) []Ranked {
	if k < 0 || k > len(hits) {
		k = len(hits)
	}
	best := make([]Ranked, 0, k)
	for _, hit := range hits {
		r := Rank(hit, quantum)
		n := len(best)
		if n == k {
			if k == 0 || !Less(&r, &best[n-1]) {
				continue
			}
			best = best[:n-1]
			n--
		}
		i := sort.Search(n, func(i int) bool { return Less(&r, &best[i]) })
		best = append(best, Ranked{})
		copy(best[i+1:], best[i:n])
		best[i] = r
	}
	return best
}

// Best returns the best hit among those keep accepts, and false if none.
func Best(hits []Hit, quantum float64, keep func(doc uint32) bool) (Ranked, bool) {
	var best Ranked
	found := false
	for _, hit := range hits {
		if !keep(hit.Doc) {
			continue
		}
		r := Rank(hit, quantum)
		if !found || Less(&r, &best) {
			best, found = r, true
		}
	}
	return best, found
}
