package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
)

// termSets are the index's own terms per document: every single-word term
// (word pairs left out: they repeat their words) of the fields the profile
// weighs above zero, which is what ranking sees. Term ids number the
// sorted vocabulary; rarity orders them by document frequency, then bytes.
type termSets struct {
	vocab  []string  // sorted, unique
	df     []int32   // documents per term
	rarity []int32   // per term id: its position from rarest to commonest
	doc    [][]int32 // per document: sorted unique term ids
	// field holds, per document and beside doc, the most weighted field
	// the term is in, as a position in fieldOrder (0: the heaviest).
	field [][]uint8

	tokenizer text.Tokenizer
	profile   *profile.Profile
}

func newTermSets(e *engine.Engine) (*termSets, error) {
	p := e.Profile()
	tokenizer, ok := text.Lookup(p.Tokenizer)
	if !ok {
		return nil, fmt.Errorf("profile %s names unknown tokenizer %q", p.Name, p.Tokenizer)
	}
	ix := e.Index()
	s := &termSets{tokenizer: tokenizer, profile: p, doc: make([][]int32, ix.Docs), field: make([][]uint8, ix.Docs)}
	// The weighted fields, heaviest first (ties in field order).
	var fields []profile.Field
	for f := profile.Field(0); f < profile.NumFields; f++ {
		if p.Weights[f] > 0 {
			fields = append(fields, f)
			for _, term := range ix.Fields[f].Terms {
				if !strings.Contains(term, text.PairSeparator) {
					s.vocab = append(s.vocab, term)
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b profile.Field) int { return cmp.Compare(p.Weights[b], p.Weights[a]) })
	slices.Sort(s.vocab)
	s.vocab = slices.Compact(s.vocab)
	// A term id shifted left by 8 with its field's position: sorting a
	// document's entries then puts each term's heaviest field first.
	entries := make([][]int64, ix.Docs)
	for position, f := range fields {
		field := &ix.Fields[f]
		id := 0
		for i, term := range field.Terms {
			if strings.Contains(term, text.PairSeparator) {
				continue
			}
			for s.vocab[id] != term { // both sorted: the field's terms are a subset
				id++
			}
			for _, d := range field.PostingDoc[field.PostingStart[i]:field.PostingStart[i+1]] {
				entries[d] = append(entries[d], int64(id)<<8|int64(position))
			}
		}
	}
	s.df = make([]int32, len(s.vocab))
	for d, list := range entries {
		slices.Sort(list)
		for _, entry := range list {
			id := int32(entry >> 8)
			if n := len(s.doc[d]); n > 0 && s.doc[d][n-1] == id {
				continue
			}
			s.doc[d] = append(s.doc[d], id)
			s.field[d] = append(s.field[d], uint8(entry&0xff))
			s.df[id]++
		}
	}
	order := make([]int32, len(s.vocab))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, s.byRarity)
	s.rarity = make([]int32, len(s.vocab))
	for pos, id := range order {
		s.rarity[id] = int32(pos)
	}
	return s, nil
}

// byRarity: fewer documents first, then the term's bytes (ids are sorted
// by bytes).
func (s *termSets) byRarity(a, b int32) int {
	return cmp.Or(cmp.Compare(s.df[a], s.df[b]), cmp.Compare(a, b))
}

// queryTerms are the ids of the vocabulary terms the query's tokens are,
// sorted, unique.
func (s *termSets) queryTerms(query string) []int32 {
	var ids []int32
	for _, token := range s.tokenizer.AppendTokens(nil, s.profile.RankedQuery(text.NFKC(query))) {
		if id, ok := slices.BinarySearch(s.vocab, token); ok {
			ids = append(ids, int32(id))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// intersect merges two sorted id lists.
func (s *termSets) intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// minus is a without b (both sorted).
func (s *termSets) minus(a, b []int32) []int32 {
	var out []int32
	j := 0
	for _, id := range a {
		for j < len(b) && b[j] < id {
			j++
		}
		if j == len(b) || b[j] != id {
			out = append(out, id)
		}
	}
	return out
}

// loneBigram is 1 for a term of two Han characters that one document
// alone holds, else 0. A bigram tokenizer cuts Chinese text at every
// character, so such a term is mostly the end of one word and the start
// of the next (「启后」 of 「开启后」): shown after the others, it leaves the
// words people would say first.
func (s *termSets) loneBigram(id int32) int {
	if s.df[id] != 1 {
		return 0
	}
	n := 0
	for _, r := range s.vocab[id] {
		if !unicode.Is(unicode.Han, r) {
			return 0
		}
		n++
	}
	if n == 2 {
		return 1
	}
	return 0
}

// fieldOf is the position of the heaviest field of doc that holds term id
// (the number of weighted fields when none does).
func (s *termSets) fieldOf(doc int, id int32) int {
	if i, ok := slices.BinarySearch(s.doc[doc], id); ok {
		return int(s.field[doc][i])
	}
	return int(profile.NumFields)
}

// names are the terms of ids as they tell most about docs: those in the
// heaviest field of any of docs first (a name, a summary), then the
// rarest; at most max; never nil.
func (s *termSets) names(ids []int32, max int, docs ...int) []string {
	sorted := slices.Clone(ids)
	best := func(id int32) int {
		b := int(profile.NumFields)
		for _, d := range docs {
			b = min(b, s.fieldOf(d, id))
		}
		return b
	}
	slices.SortFunc(sorted, func(a, b int32) int {
		return cmp.Or(cmp.Compare(best(a), best(b)), cmp.Compare(s.loneBigram(a), s.loneBigram(b)), s.byRarity(a, b))
	})
	if len(sorted) > max {
		sorted = sorted[:max]
	}
	out := make([]string, len(sorted))
	for i, id := range sorted {
		out[i] = s.vocab[id]
	}
	return out
}

// similarPair is two documents (a < b) whose term sets are near-duplicates.
type similarPair struct {
	a, b     int
	permille int
}

// nearDuplicates finds every pair of documents whose term sets have a
// Jaccard similarity of at least NearDuplicatePermille/1000, with prefix
// filtering: with each set ordered rarest term first, two sets that similar
// share a term among the first |x| − ⌈t·|x|⌉ + 1 of each, so only documents
// sharing such a prefix term are compared, and only when their sizes allow
// the threshold. Pairs come sorted by (a, b).
func (s *termSets) nearDuplicates() []similarPair {
	const t = NearDuplicatePermille
	ordered := make([][]int32, len(s.doc)) // per document: rarity positions, ascending
	for d, ids := range s.doc {
		r := make([]int32, len(ids))
		for i, id := range ids {
			r[i] = s.rarity[id]
		}
		slices.Sort(r)
		ordered[d] = r
	}
	atLeast := func(n int) int { return (t*n + 999) / 1000 } // ⌈t·n/1000⌉
	inverted := make([][]int32, len(s.vocab))                // rarity position → documents with it in their prefix
	seen := make([]int32, len(s.doc))
	for i := range seen {
		seen[i] = -1
	}
	var pairs []similarPair
	for x, set := range ordered {
		n := len(set)
		if n == 0 {
			continue
		}
		prefix := n - atLeast(n) + 1
		for _, term := range set[:prefix] {
			for _, y := range inverted[term] {
				if seen[y] == int32(x) {
					continue
				}
				seen[y] = int32(x)
				m := len(ordered[y])
				if m < atLeast(n) || n < atLeast(m) {
					continue
				}
				shared := len(s.intersect(ordered[x], ordered[y]))
				union := n + m - shared
				if 1000*shared >= t*union {
					pairs = append(pairs, similarPair{a: int(y), b: x, permille: 1000 * shared / union})
				}
			}
		}
		for _, term := range set[:prefix] {
			inverted[term] = append(inverted[term], int32(x))
		}
	}
	slices.SortFunc(pairs, func(p, q similarPair) int { return cmp.Or(cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b)) })
	return pairs
}
