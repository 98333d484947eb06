package index

import (
	"math"
	"sort"
	"sync/atomic"

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

// Hit is one scored document and its total score.
type Hit struct {
	Doc   uint32
	Score float64
}

// Scratch is per-query working memory. Reuse it (one per goroutine) to keep
// queries allocation-light; the zero value is ready to use. After Score it
// also answers FieldScores for any document, until the next Score.
type Scratch struct {
	// acc holds each document's per-field score, doc-major:
	// acc[doc*NumFields+field], so one document's fields share a cache line.
	acc     []float64
	weights [profile.NumFields]float64
	// state per document: 0 ineligible, 1 eligible and untouched, 2 touched.
	state   []uint8
	touched []uint32
	hits    []Hit
	refs    []*termRefs
}

const (
	ineligible = 0
	untouched  = 1
	touched    = 2
)

func (s *Scratch) reset(eligible []bool) {
	docs := len(eligible)
	if cap(s.acc) < docs*int(profile.NumFields) {
		s.acc = make([]float64, docs*int(profile.NumFields))
		s.touched = s.touched[:0]
	}
	s.acc = s.acc[:docs*int(profile.NumFields)]
	// Zero only what the last query wrote. Plain stores, not clear(): in
	// WebAssembly a call per document costs more than the stores.
	acc := s.acc
	for _, doc := range s.touched {
		row := acc[int(doc)*int(profile.NumFields):][:profile.NumFields]
		for f := range row {
			row[f] = 0
		}
	}
	if cap(s.state) < docs {
		s.state = make([]uint8, docs)
	}
	s.state = s.state[:docs]
	for doc, ok := range eligible {
		if ok {
			s.state[doc] = untouched
		} else {
			s.state[doc] = ineligible
		}
	}
	s.touched = s.touched[:0]
	s.hits = s.hits[:0]
}

// Score scores every eligible document that shares a term with the query and
// returns the documents with a positive score, in no particular order (rank
// them with Top). eligible has one entry per document. The returned slice
// lives in s until the next call.
//
// The algorithm is the one the index was Prepared for.
func (ix *Index) Score(weights *[profile.NumFields]float64, terms []QueryTerm, eligible []bool, s *Scratch) []Hit {
	s.reset(eligible[:ix.Docs])
	s.weights = *weights
	refs := s.refs[:0]
	for _, qt := range terms {
		r := ix.vocab.find(qt.Term)
		if r == nil {
			r = &missingTerm
		}
		refs = append(refs, r)
	}
	s.refs = refs
	state, acc, touchedDocs := s.state, s.acc, s.touched
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if weights[f] <= 0 {
			continue
		}
		field := &ix.Fields[f]
		if ix.algorithm == profile.TFIDF {
			s.touched = touchedDocs
			ix.accumulateTFIDF(field, f, terms, refs, s)
			touchedDocs = s.touched
			continue
		}
		column := acc[f:]
		for q, qt := range terms {
			t := refs[q][f]
			if t < 0 {
				continue
			}
			qtf := math.Log1p(float64(qt.Count))
			if atomic.LoadUint32(&field.bm25Ready[t]) == 0 {
				ix.derive(field, t) // the term's first query
			}
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			impacts := field.bm25Impact[lo:hi]
			docs := field.PostingDoc[lo:hi]
			for i := range docs {
				doc := docs[i]
				st := state[doc]
				if st == ineligible {
					continue
				}
				if st == untouched {
					state[doc] = touched
					touchedDocs = append(touchedDocs, doc)
				}
				// impact = idf·tfPart, so this is the reference's
				// idf·tfPart·ln(1+qtf), evaluated in the same order.
				column[int(doc)*int(profile.NumFields)] += float64(impacts[i] * qtf)
			}
		}
	}
	s.touched = touchedDocs
	// Each document's total adds its weighted field scores in field order,
	// skipping fields that did not match (written out here rather than in a
	// helper: a call per document is the dominant cost in WebAssembly).
	w := s.weights
	hits := s.hits
	for _, doc := range s.touched {
		row := acc[int(doc)*int(profile.NumFields):][:profile.NumFields]
		score := 0.0
		for f, value := range row {
			if w[f] <= 0 {
				continue
			}
			if value = float64(value * w[f]); value > 0 {
				score += value
			}
		}
		if score > 0 {
			hits = append(hits, Hit{Doc: doc, Score: score})
		}
	}
	s.hits = hits
	return hits
}

// FieldScores returns each field's weighted contribution to doc's score in
// the last Score call (zero for fields that did not match).
func (s *Scratch) FieldScores(doc uint32) [profile.NumFields]float64 {
	var out [profile.NumFields]float64
	if int(doc+1)*int(profile.NumFields) > len(s.acc) {
		return out
	}
	for f, value := range s.acc[int(doc)*int(profile.NumFields):][:profile.NumFields] {
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
func (ix *Index) accumulateTFIDF(field *Field, f profile.Field, terms []QueryTerm, refs []*termRefs, s *Scratch) {
	queryNormSquared := 0.0
	for q, qt := range terms {
		t := refs[q][f]
		if t < 0 {
			continue
		}
		queryWeight := float64(qt.Count) * field.tfidfIDF[t]
		queryNormSquared += float64(queryWeight * queryWeight)
		for p := field.PostingStart[t]; p < field.PostingStart[t+1]; p++ {
			doc := field.PostingDoc[p]
			if s.state[doc] == ineligible || field.tfidfNorm[doc] == 0 {
				continue
			}
			if s.state[doc] == untouched {
				s.state[doc] = touched
				s.touched = append(s.touched, doc)
			}
			s.acc[int(doc)*int(profile.NumFields)+int(f)] += float64(field.tfidfWeight[p] * queryWeight)
		}
	}
	if queryNormSquared == 0 {
		return
	}
	queryNorm := math.Sqrt(queryNormSquared)
	for _, doc := range s.touched {
		i := int(doc)*int(profile.NumFields) + int(f)
		if s.acc[i] != 0 {
			s.acc[i] = s.acc[i] / (field.tfidfNorm[doc] * queryNorm)
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
	// Quantizing moves a score by at most half a quantum (plus rounding), so
	// a score clearly below the worst kept key can be rejected without
	// quantizing it: the common case once the buffer is full.
	margin := 2 / quantum
	for _, hit := range hits {
		n := len(best)
		if n == k {
			if k == 0 {
				break
			}
			worst := best[n-1].Key
			if hit.Score < worst-margin-1e-12*math.Abs(worst) {
				continue
			}
		}
		r := Rank(hit, quantum)
		if n == k {
			if !Less(&r, &best[n-1]) {
				continue
			}
			best = best[:n-1]
			n--
		}
		i := n
		for i > 0 && Less(&r, &best[i-1]) { // k is small: a linear walk from the end
			i--
		}
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
