// Package index is the per-field inverted index and its two scorers: the
// reference's fielded BM25 ensemble and TF-IDF cosine. A query touches only
// the postings of its own terms; it never walks every document.
//
// Determinism: query terms are de-duplicated and sorted, and a document's
// per-field score is accumulated term by term in that order, which is the
// exact sequence of float additions the reference performs. Field scores are
// then combined in the fixed profile.Field order.
package index

import (
	"fmt"
	"math"
	"sort"

	"github.com/toolsift/toolsift/core/profile"
)

// Index holds one inverted field index per profile field over documents
// 0..Docs-1. Only Terms, postings and lengths are stored; scoring tables are
// derived by Prepare.
type Index struct {
	Docs   int
	Fields [profile.NumFields]Field
}

// Field is one field's postings. Terms are sorted; the postings of Terms[i]
// are PostingDoc/PostingTF[PostingStart[i]:PostingStart[i+1]], doc ascending.
type Field struct {
	Terms        []string
	PostingStart []uint32
	PostingDoc   []uint32
	PostingTF    []uint32
	DocLen       []uint32 // tokens per document, empty fields count 0

	lookup map[string]uint32
	// BM25: idf per term and the saturated term-frequency part per posting.
	bm25IDF    []float64
	bm25TFPart []float64
	// TF-IDF: idf per term, tf·idf per posting, vector norm per document.
	tfidfIDF    []float64
	tfidfWeight []float64
	tfidfNorm   []float64
	avgLen      float64
}

// Build indexes tokens[doc][field]. The result must be Prepared before use.
func Build(tokens [][profile.NumFields][]string) *Index {
	ix := &Index{Docs: len(tokens)}
	for f := profile.Field(0); f < profile.NumFields; f++ {
		ix.Fields[f] = buildField(tokens, f)
	}
	return ix
}

func buildField(tokens [][profile.NumFields][]string, f profile.Field) Field {
	type posting struct{ doc, tf uint32 }
	byTerm := map[string][]posting{}
	field := Field{DocLen: make([]uint32, len(tokens))}
	for doc := range tokens {
		list := tokens[doc][f]
		field.DocLen[doc] = uint32(len(list))
		counts := map[string]uint32{}
		for _, token := range list {
			counts[token]++
		}
		for term, tf := range counts {
			byTerm[term] = append(byTerm[term], posting{uint32(doc), tf})
		}
	}
	field.Terms = make([]string, 0, len(byTerm))
	for term := range byTerm {
		field.Terms = append(field.Terms, term)
	}
	sort.Strings(field.Terms)
	field.PostingStart = make([]uint32, 0, len(field.Terms)+1)
	for _, term := range field.Terms {
		field.PostingStart = append(field.PostingStart, uint32(len(field.PostingDoc)))
		for _, p := range byTerm[term] { // docs were appended in ascending order
			field.PostingDoc = append(field.PostingDoc, p.doc)
			field.PostingTF = append(field.PostingTF, p.tf)
		}
	}
	field.PostingStart = append(field.PostingStart, uint32(len(field.PostingDoc)))
	return field
}

// Validate checks the structural invariants a decoded index must hold before
// Prepare trusts its offsets.
func (ix *Index) Validate() error {
	for f := range ix.Fields {
		field := &ix.Fields[f]
		name := profile.Field(f).String()
		if len(field.DocLen) != ix.Docs {
			return fmt.Errorf("index field %s: %d document lengths for %d documents", name, len(field.DocLen), ix.Docs)
		}
		if len(field.PostingStart) != len(field.Terms)+1 || len(field.PostingDoc) != len(field.PostingTF) {
			return fmt.Errorf("index field %s: posting tables disagree", name)
		}
		if field.PostingStart[0] != 0 || int(field.PostingStart[len(field.Terms)]) != len(field.PostingDoc) {
			return fmt.Errorf("index field %s: posting offsets out of range", name)
		}
		for t := range field.Terms {
			if t > 0 && field.Terms[t-1] >= field.Terms[t] {
				return fmt.Errorf("index field %s: terms not strictly sorted", name)
			}
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			if lo >= hi {
				return fmt.Errorf("index field %s: term %q has no postings", name, field.Terms[t])
			}
			for p := lo; p < hi; p++ {
				if int(field.PostingDoc[p]) >= ix.Docs || (p > lo && field.PostingDoc[p-1] >= field.PostingDoc[p]) {
					return fmt.Errorf("index field %s: term %q has invalid postings", name, field.Terms[t])
				}
				if field.PostingTF[p] == 0 || field.PostingTF[p] > field.DocLen[field.PostingDoc[p]] {
					return fmt.Errorf("index field %s: term %q has an impossible frequency", name, field.Terms[t])
				}
			}
		}
	}
	return nil
}

// Prepare derives the lookup table and the scoring tables for k1 and b. The
// statistics (N, document frequency, average length) cover every document,
// eligible or not, as in the reference.
func (ix *Index) Prepare(k1, b float64) {
	n := float64(ix.Docs)
	for f := range ix.Fields {
		field := &ix.Fields[f]
		field.lookup = make(map[string]uint32, len(field.Terms))
		for t, term := range field.Terms {
			field.lookup[term] = uint32(t)
		}
		total := uint64(0)
		for _, l := range field.DocLen {
			total += uint64(l)
		}
		field.avgLen = 0
		if ix.Docs > 0 {
			field.avgLen = float64(total) / n
		}
		if field.avgLen <= 0 {
			field.avgLen = 1
		}

		field.bm25IDF = make([]float64, len(field.Terms))
		field.tfidfIDF = make([]float64, len(field.Terms))
		field.bm25TFPart = make([]float64, len(field.PostingDoc))
		field.tfidfWeight = make([]float64, len(field.PostingDoc))
		field.tfidfNorm = make([]float64, ix.Docs)
		for t := range field.Terms {
			lo, hi := field.PostingStart[t], field.PostingStart[t+1]
			df := float64(hi - lo)
			field.bm25IDF[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
			field.tfidfIDF[t] = math.Log((n+1)/(df+1)) + 1
			for p := lo; p < hi; p++ {
				tf := float64(field.PostingTF[p])
				length := float64(field.DocLen[field.PostingDoc[p]])
				if length < 1 {
					length = 1
				}
				denominator := tf + k1*(1-b+b*length/field.avgLen)
				field.bm25TFPart[p] = tf * (k1 + 1) / denominator
				field.tfidfWeight[p] = tf * field.tfidfIDF[t]
			}
		}
		// Norms add squared weights in term order per document; terms are
		// visited in sorted order, so each document's sum has a fixed order.
		normSquared := make([]float64, ix.Docs)
		for p, doc := range field.PostingDoc {
			w := field.tfidfWeight[p]
			normSquared[doc] += w * w
		}
		for doc := range normSquared {
			field.tfidfNorm[doc] = math.Sqrt(normSquared[doc])
		}
	}
}

// Term returns the position of term in field f.
func (ix *Index) term(f profile.Field, term string) (uint32, bool) {
	t, ok := ix.Fields[f].lookup[term]
	return t, ok
}
