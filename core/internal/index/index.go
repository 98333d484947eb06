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
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolsift/toolsift/core/profile"
)

// Every multiply whose result is then added is wrapped in float64(…): the Go
// spec lets a compiler fuse x*y+z (it does on arm64, not on amd64 or wasm),
// and an explicit conversion forbids that, so every platform computes the
// same bits.

// Index holds one inverted field index per profile field over documents
// 0..Docs-1. Only Terms, postings and lengths are stored; scoring tables are
// derived by Prepare.
type Index struct {
	Docs   int
	Fields [profile.NumFields]Field

	algorithm string // what Prepare derived tables for
	// vocab finds a query term in every field with one probe.
	vocab vocabulary
	// lazy guards the BM25 impacts, which are derived term by term on first
	// use (see derive); ready[i] becomes 1, atomically, once the impacts of
	// vocabulary term i are written in every field.
	lazy  *sync.Mutex
	ready []uint32
	// BM25F constants (see bm25f.go).
	bm25fK1         float64
	bm25fQueryTF    string
	bm25fPairWeight float64 // 0: pairs weigh as words
	// bm25fCoef[doc][f] is w_f / (1 − b_f + b_f·dl/avgdl): a document's
	// fields side by side, since rescoring reads them together (nil until
	// a BM25F profile is prepared).
	bm25fCoef [][profile.NumFields]float64
	// impacts: the longest terms' postings merged over the fields, for
	// TopBM25F (see impacts.go).
	impacts impacts
}

// Field is one field's postings. Terms are sorted; the postings of Terms[i]
// are PostingDoc/PostingTF[PostingStart[i]:PostingStart[i+1]], doc ascending.
type Field struct {
	Terms        []string
	PostingStart []uint32
	PostingDoc   []uint32
	PostingTF    []uint32
	DocLen       []uint32 // tokens per document, empty fields count 0

	// BM25: per posting, idf(term)·tf(k1+1)/(tf+k1(1−b+b·dl/avgdl)),
	// filled in for a term the first time a query needs it (see
	// Index.ready); bm25Norm is k1(1−b+b·dl/avgdl) per document.
	bm25Impact []float64
	bm25Norm   []float64
	bm25K1     float64
	// TF-IDF: idf per term, tf·idf per posting, vector norm per document.
	tfidfIDF    []float64
	tfidfWeight []float64
	tfidfNorm   []float64
}

// Build indexes tokens[doc][field] (a convenience over Builder).
func Build(tokens [][profile.NumFields][]string) *Index {
	b := NewBuilder(len(tokens))
	for doc := range tokens {
		for f := profile.Field(0); f < profile.NumFields; f++ {
			b.Add(doc, f, tokens[doc][f])
		}
	}
	return b.Finish()
}

// Builder accumulates documents into an Index without keeping their token
// lists: each Add interns the tokens and records (term, doc, tf) entries, and
// Finish lays the postings out by sorted term with one counting pass.
type Builder struct {
	docs   int
	fields [profile.NumFields]fieldBuilder
	tfCap  uint32 // 0: none (see CapTermFrequency)
}

// CapTermFrequency makes Add count each term at most limit times in one
// field of one document, the field's length counting only what is kept, as
// if the tokens past the limit were not there (profile.TermFrequencyCap;
// 0 or less: no cap). Call it before the first Add.
func (b *Builder) CapTermFrequency(limit int) {
	b.tfCap = uint32(max(limit, 0))
}

type fieldBuilder struct {
	ids     map[string]uint32 // term → id in first-seen order
	terms   []string          // by id
	seenIn  []int32           // by id: the last document the term occurred in
	slot    []uint32          // by id: that document's entry for the term
	entries entries
	docLen  []uint32
	lastDoc int
}

type entry struct{ term, doc, tf uint32 }

// entries is an append-only list of entries in fixed-size chunks. One
// growing slice copied itself at every doubling: 15.6 MB of allocation to
// index 3,608 MCP tools, most of the index build's, where the entries
// themselves take a fraction of that.
type entries struct {
	chunks [][]entry
	n      int
}

// entryChunk is the entries per chunk (768 KiB).
const entryChunk = 64 << 10

func (l *entries) add(e entry) {
	if l.n%entryChunk == 0 {
		l.chunks = append(l.chunks, make([]entry, 0, entryChunk))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, e)
	l.n++
}

func (l *entries) at(i uint32) *entry { return &l.chunks[i/entryChunk][i%entryChunk] }

// NewBuilder prepares an index over docs documents.
func NewBuilder(docs int) *Builder {
	b := &Builder{docs: docs}
	for f := range b.fields {
		b.fields[f] = fieldBuilder{ids: map[string]uint32{}, docLen: make([]uint32, docs), lastDoc: -1}
	}
	return b
}

// Add records the tokens of one field of one document. Within a field,
// documents must be added in ascending order, each at most once; tokens is
// not retained.
func (b *Builder) Add(doc int, f profile.Field, tokens []string) {
	fb := &b.fields[f]
	if doc <= fb.lastDoc || doc >= b.docs {
		panic(fmt.Sprintf("index.Builder: document %d added out of order", doc))
	}
	fb.lastDoc = doc
	fb.docLen[doc] = uint32(len(tokens))
	for _, token := range tokens {
		id, ok := fb.ids[token]
		if !ok {
			id = uint32(len(fb.terms))
			fb.ids[token] = id
			fb.terms = append(fb.terms, token)
			fb.seenIn = append(fb.seenIn, -1)
			fb.slot = append(fb.slot, 0)
		}
		if fb.seenIn[id] == int32(doc) {
			if e := fb.entries.at(fb.slot[id]); b.tfCap == 0 || e.tf < b.tfCap {
				e.tf++
			} else {
				fb.docLen[doc]--
			}
			continue
		}
		fb.seenIn[id] = int32(doc)
		fb.slot[id] = uint32(fb.entries.n)
		fb.entries.add(entry{term: id, doc: uint32(doc), tf: 1})
	}
}

// Finish returns the index. The Builder must not be used afterwards.
func (b *Builder) Finish() *Index {
	ix := &Index{Docs: b.docs}
	for f := range b.fields {
		fb := &b.fields[f]
		// Rank the term ids by term text.
		order := make([]uint32, len(fb.terms))
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(fb.terms[a], fb.terms[b]) })
		rank := make([]uint32, len(order))
		field := Field{Terms: make([]string, len(order)), DocLen: fb.docLen}
		for r, id := range order {
			rank[id] = uint32(r)
			field.Terms[r] = fb.terms[id]
		}
		// Counting sort of the entries by term rank; entries were appended in
		// document order, so each term's postings come out doc-ascending.
		field.PostingStart = make([]uint32, len(order)+1)
		for _, chunk := range fb.entries.chunks {
			for _, e := range chunk {
				field.PostingStart[rank[e.term]+1]++
			}
		}
		for r := 1; r < len(field.PostingStart); r++ {
			field.PostingStart[r] += field.PostingStart[r-1]
		}
		next := append([]uint32(nil), field.PostingStart[:len(order)]...)
		field.PostingDoc = make([]uint32, fb.entries.n)
		field.PostingTF = make([]uint32, fb.entries.n)
		for _, chunk := range fb.entries.chunks {
			for _, e := range chunk {
				r := rank[e.term]
				field.PostingDoc[next[r]] = e.doc
				field.PostingTF[next[r]] = e.tf
				next[r]++
			}
		}
		ix.Fields[f] = field
		*fb = fieldBuilder{}
	}
	ix.vocab = buildVocabulary(&ix.Fields)
	return ix
}

// Validate checks the structural invariants a decoded index must hold before
// Prepare trusts its offsets.
func (ix *Index) Validate() error {
	if err := ix.validateFields(); err != nil {
		return err
	}
	if ix.vocab.table == nil {
		return ix.validateImpacts() // Prepare builds the vocabulary from the validated fields
	}
	if err := ix.vocab.validate(&ix.Fields); err != nil {
		return err
	}
	return ix.validateImpacts()
}

func (ix *Index) validateFields() error {
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
		// What scoring relies on: offsets that stay inside the posting
		// tables, and documents that exist. (Frequencies and document
		// order only change scores, which the checksum protects.)
		// Loops without an early exit, in chunks: they run in every open
		// (see chunked.go).
		if decreases(field.PostingStart) {
			return fmt.Errorf("index field %s: posting offsets decrease", name)
		}
		highest := maxUint32(field.PostingDoc)
		if len(field.PostingDoc) > 0 && int64(highest) >= int64(ix.Docs) {
			return fmt.Errorf("index field %s: a posting names document %d of %d", name, highest, ix.Docs)
		}
		if ix.vocab.table == nil {
			// Prepare will merge the fields' terms, which needs them sorted.
			for t := 1; t < len(field.Terms); t++ {
				if field.Terms[t-1] >= field.Terms[t] {
					return fmt.Errorf("index field %s: terms not strictly sorted", name)
				}
			}
		}
	}
	return nil
}

// PrepareProfile derives what the profile's algorithm scores with (see
// Prepare and prepareBM25F).
func (ix *Index) PrepareProfile(p *profile.Profile) {
	if p.Algorithm != profile.BM25F {
		ix.Prepare(p.Algorithm, p.K1, p.B)
		return
	}
	ix.algorithm = p.Algorithm
	if ix.vocab.table == nil {
		ix.vocab = buildVocabulary(&ix.Fields)
	}
	ix.prepareBM25F(p)
}

// Prepare derives the term lookup (unless a snapshot supplied it) and the
// scoring tables of algorithm (profile.BM25 or profile.TFIDF) for k1 and b.
// The statistics (N, document frequency, average length) cover every
// document, eligible or not, as in the reference.
//
// For BM25 it derives only what is per document; a term's per-posting
// impacts are computed the first time a query uses the term (derive). Most
// terms of a catalog are never queried, and opening a snapshot is paid by
// every new instance, so the work moves to the few terms that are: the
// values, and so every answer, are the same either way.
func (ix *Index) Prepare(algorithm string, k1, b float64) {
	ix.algorithm = algorithm
	n := float64(ix.Docs)
	if ix.vocab.table == nil {
		ix.vocab = buildVocabulary(&ix.Fields)
	}
	ix.lazy = new(sync.Mutex)
	for f := range ix.Fields {
		field := &ix.Fields[f]
		if algorithm == profile.TFIDF {
			field.prepareTFIDF(n, ix.Docs)
			continue
		}
		total := uint64(0)
		for _, l := range field.DocLen {
			total += uint64(l)
		}
		avgLen := 0.0
		if ix.Docs > 0 {
			avgLen = float64(total) / n
		}
		if avgLen <= 0 {
			avgLen = 1
		}
		// k1·(1−b+b·dl/avgdl) depends on the document only: compute it once
		// per document, then once per posting add tf and saturate.
		norm := make([]float64, ix.Docs)
		for doc, l := range field.DocLen {
			length := float64(l)
			if length < 1 {
				length = 1
			}
			// float64(…) rounds the product before the later add, so no
			// platform fuses it into a multiply-add (Go may fuse on arm64,
			// never in wasm): every host computes the same bits.
			norm[doc] = float64(k1 * (1 - b + b*length/avgLen))
		}
		field.bm25Norm = norm
		field.bm25K1 = k1
		field.bm25Impact = make([]float64, len(field.PostingDoc))
	}
	ix.ready = make([]uint32, len(ix.vocab.terms))
}

// derive computes the BM25 impacts of vocabulary term id in every field
// unless another call did. Score calls it when ready[id] is 0; any number
// of goroutines may call it at once: the first derives under the lock, and
// a term is published as ready only after its impacts are written.
func (ix *Index) derive(id uint32) {
	ix.lazy.Lock()
	defer ix.lazy.Unlock()
	if atomic.LoadUint32(&ix.ready[id]) != 0 {
		return
	}
	for f, t := range ix.vocab.refs[id] {
		if t >= 0 {
			field := &ix.Fields[f]
			field.deriveImpacts(float64(ix.Docs), field.PostingStart[t], field.PostingStart[t+1])
		}
	}
	atomic.StoreUint32(&ix.ready[id], 1)
}

// deriveImpacts writes idf·tf(k1+1)/(tf+norm(doc)) for the postings lo..hi
// of one term (the reference's idf·tfPart, evaluated in the same order).
func (field *Field) deriveImpacts(n float64, lo, hi uint32) {
	df := float64(hi - lo)
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	k1 := field.bm25K1
	norm := field.bm25Norm
	impacts := field.bm25Impact[lo:hi]
	docs := field.PostingDoc[lo:hi]
	tfs := field.PostingTF[lo:hi]
	for i := range impacts {
		tf := float64(tfs[i])
		denominator := tf + norm[docs[i]]
		impacts[i] = idf * (tf * (k1 + 1) / denominator)
	}
}

// prepareTFIDF derives idf = ln((N+1)/(df+1)) + 1, tf·idf per posting and
// each document's vector norm.
func (field *Field) prepareTFIDF(n float64, docs int) {
	field.tfidfIDF = make([]float64, len(field.Terms))
	field.tfidfWeight = make([]float64, len(field.PostingDoc))
	for t := range field.Terms {
		lo, hi := field.PostingStart[t], field.PostingStart[t+1]
		field.tfidfIDF[t] = math.Log((n+1)/(float64(hi-lo)+1)) + 1
		for p := lo; p < hi; p++ {
			field.tfidfWeight[p] = float64(field.PostingTF[p]) * field.tfidfIDF[t]
		}
	}
	// Norms add squared weights in term order per document; terms are
	// visited in sorted order, so each document's sum has a fixed order.
	normSquared := make([]float64, docs)
	for p, doc := range field.PostingDoc {
		w := field.tfidfWeight[p]
		normSquared[doc] += float64(w * w) // rounded: no fused multiply-add
	}
	field.tfidfNorm = make([]float64, docs)
	for doc := range normSquared {
		field.tfidfNorm[doc] = math.Sqrt(normSquared[doc])
	}
}
