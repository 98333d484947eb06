package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
)

type bm25fDocs = [][profile.NumFields][]string

// naiveBM25F is the formula of bm25f.go's comment written the obvious way,
// over the raw token lists: for each distinct query term in byte order, df
// over all fields, then per document tf~ summed field by field and one
// saturation. It returns every document's score (eligible or not) and its
// per-field shares (the term's score split in proportion to each field's
// part of tf~).
func naiveBM25F(docs bm25fDocs, p *profile.Profile, query []string) (scores []float64, shares [][profile.NumFields]float64) {
	n := float64(len(docs))
	var avg [profile.NumFields]float64
	for f := range avg {
		total := 0
		for _, doc := range docs {
			total += len(doc[f])
		}
		avg[f] = float64(total) / n
	}
	counts := map[string]int{}
	for _, token := range query {
		counts[token]++
	}
	terms := make([]string, 0, len(counts))
	for term := range counts {
		terms = append(terms, term)
	}
	sort.Strings(terms)

	scores = make([]float64, len(docs))
	shares = make([][profile.NumFields]float64, len(docs))
	for _, term := range terms {
		tf := make([]map[profile.Field]int, len(docs))
		df := 0
		for d, doc := range docs {
			tf[d] = map[profile.Field]int{}
			for f := profile.Field(0); f < profile.NumFields; f++ {
				for _, token := range doc[f] {
					if token == term {
						tf[d][f]++
					}
				}
			}
			if len(tf[d]) > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		qw := 1.0
		if text.IsWordPair(term) && p.PairWeight > 0 {
			qw = p.PairWeight
		}
		if p.QueryTermWeight == profile.QueryTermLog {
			qw = float64(qw * math.Log(1+float64(counts[term])))
		}
		for d := range docs {
			var part [profile.NumFields]float64
			sum := 0.0
			for f := profile.Field(0); f < profile.NumFields; f++ {
				if tf[d][f] == 0 {
					continue
				}
				length := float64(len(docs[d][f]))
				b := p.FieldB[f]
				part[f] = float64(p.Weights[f]*float64(tf[d][f])) / (1 - b + float64(b*length)/avg[f])
				sum += part[f]
			}
			if sum == 0 {
				continue
			}
			score := float64(float64(qw*idf)*sum) / (p.K1 + sum)
			scores[d] += score
			for f := range part {
				shares[d][f] += float64(score*part[f]) / sum
			}
		}
	}
	return scores, shares
}

func closeTo(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// bm25fProfile is generic-v2 with the given weights and b for every field.
func bm25fProfile(weights [profile.NumFields]float64, b, k1 float64) *profile.Profile {
	p := *profile.GenericV2
	p.Weights = weights
	for f := range p.FieldB {
		p.FieldB[f] = b
	}
	p.K1 = k1
	return &p
}

func scoreOf(hits []Hit, doc uint32) (float64, bool) {
	for _, h := range hits {
		if h.Doc == doc {
			return h.Score, true
		}
	}
	return 0, false
}

func allEligible(n int) []bool {
	e := make([]bool, n)
	for i := range e {
		e[i] = true
	}
	return e
}

// TestBM25FHandExample checks scores worked out by hand from the formula on
// a three-document corpus: identity weight 2, description weight 1, b 0.5,
// k1 1.2. Average lengths: identity (1+0+1)/3 = 2/3, description
// (2+3+0)/3 = 5/3.
func TestBM25FHandExample(t *testing.T) {
	docs := bm25fDocs{
		{profile.Identity: {"weather"}, profile.Description: {"weather", "city"}},
		{profile.Description: {"city", "city", "news"}},
		{profile.Identity: {"news"}},
	}
	ix := Build(docs)
	p := bm25fProfile([profile.NumFields]float64{profile.Identity: 2, profile.Description: 1}, 0.5, 1.2)
	ix.PrepareProfile(p)
	var s Scratch
	score := func(query []string, eligible []bool) []Hit {
		return slices.Clone(ix.Score(&p.Weights, query, eligible, &s))
	}
	// Identity norm of a one-token name: 1 − 0.5 + 0.5·1/(2/3) = 1.25;
	// description norms: two tokens 0.5 + 0.5·2/(5/3) = 1.1, three 1.4.
	saturate := func(tf float64) float64 { return tf / (1.2 + tf) }

	// "weather": df 1, doc 0 has it in identity and description.
	hits := score([]string{"weather"}, allEligible(3))
	require.Len(t, hits, 1)
	tf := 2.0/1.25 + 1.0/1.1
	want := math.Log(1+2.5/1.5) * saturate(tf)
	require.InDelta(t, want, hits[0].Score, 1e-12)
	fields := s.FieldScores(0)
	require.InDelta(t, want*(2.0/1.25)/tf, fields[profile.Identity], 1e-12)
	require.InDelta(t, want*(1.0/1.1)/tf, fields[profile.Description], 1e-12)
	require.Zero(t, fields[profile.Summary])

	// "news": one df over all fields (doc 1's description, doc 2's
	// identity) is 2, not 1 per field.
	hits = score([]string{"news"}, allEligible(3))
	idf2 := math.Log(1 + 1.5/2.5)
	got, ok := scoreOf(hits, 2)
	require.True(t, ok)
	require.InDelta(t, idf2*saturate(2.0/1.25), got, 1e-12)
	got, ok = scoreOf(hits, 1)
	require.True(t, ok)
	require.InDelta(t, idf2*saturate(1.0/1.4), got, 1e-12)

	// An ineligible document is no hit but still counts in df: doc 0's
	// "city" keeps idf ln(1 + 1.5/2.5) with doc 1 excluded.
	hits = score([]string{"city"}, []bool{true, false, true})
	require.Len(t, hits, 1)
	require.Equal(t, uint32(0), hits[0].Doc)
	require.InDelta(t, idf2*saturate(1.0/1.1), hits[0].Score, 1e-12)

	// A term no field has changes nothing; alone it finds nothing.
	require.Empty(t, score([]string{"zzz"}, allEligible(3)))
	require.Equal(t, score([]string{"weather"}, allEligible(3)), score([]string{"zzz", "weather", "qqq"}, allEligible(3)))

	// Repeats count once by default, ln(1 + count) under QueryTermLog.
	require.Equal(t, score([]string{"weather"}, allEligible(3)), score([]string{"weather", "weather", "weather"}, allEligible(3)))
	logP := *p
	logP.QueryTermWeight = profile.QueryTermLog
	ix.PrepareProfile(&logP)
	once := score([]string{"weather"}, allEligible(3))
	thrice := score([]string{"weather", "weather", "weather"}, allEligible(3))
	require.InDelta(t, math.Log(2)*want, once[0].Score, 1e-12)
	require.InDelta(t, math.Log(4)*want, thrice[0].Score, 1e-12)

	// A field of weight 0 scores nothing, but its documents count in df:
	// with description at 0, doc 1 ("news" only in its description) is no
	// hit and doc 2 keeps idf for df 2.
	zeroP := bm25fProfile([profile.NumFields]float64{profile.Identity: 2}, 0.5, 1.2)
	ix.PrepareProfile(zeroP)
	hits = score([]string{"news"}, allEligible(3))
	require.Len(t, hits, 1)
	require.Equal(t, uint32(2), hits[0].Doc)
	require.InDelta(t, idf2*saturate(2.0/1.25), hits[0].Score, 1e-12)
	require.Empty(t, score([]string{"city"}, allEligible(3)), "city is only in descriptions")
}

// TestBM25FPairWeight checks that a word pair weighs PairWeight of a word,
// and 1 when PairWeight is 0.
func TestBM25FPairWeight(t *testing.T) {
	var docs bm25fDocs
	for _, s := range []string{"get the weather forecast", "weather report", "get forecast weather"} {
		var d [profile.NumFields][]string
		d[profile.Description] = text.GenericV2.AppendTokens(nil, s)
		docs = append(docs, d)
	}
	require.Contains(t, docs[0][profile.Description], "weather forecast")
	ix := Build(docs)
	p := *profile.GenericV2
	var s Scratch
	score := func(pw float64, query ...string) float64 {
		q := p
		q.PairWeight = pw
		ix.PrepareProfile(&q)
		hits := ix.Score(&q.Weights, query, allEligible(len(docs)), &s)
		got, _ := scoreOf(hits, 0)
		return got
	}
	full := score(0, "weather forecast")
	require.Positive(t, full)
	require.Equal(t, full, score(1, "weather forecast"))
	require.InDelta(t, 0.35*full, score(0.35, "weather forecast"), 1e-12)
	// A word is no pair: its weight does not move.
	require.Equal(t, score(0, "weather"), score(0.35, "weather"))
}

// randomCorpus makes n documents. With generic true, each field is random
// words tokenized by generic-v2 (so pairs occur); otherwise tokens are drawn
// from a small vocabulary that includes pair-like terms. Each document has
// between 0 and 5 non-empty fields.
func randomCorpus(rng *rand.Rand, n int, generic bool, vocab []string) bm25fDocs {
	docs := make(bm25fDocs, n)
	for d := range docs {
		nonEmpty := rng.IntN(int(profile.NumFields) + 1)
		if d > 0 && nonEmpty == 0 && rng.IntN(3) > 0 {
			nonEmpty = 1 // fully empty documents, but not too many
		}
		for _, f := range rng.Perm(int(profile.NumFields))[:nonEmpty] {
			length := 1 + rng.IntN(1+rng.IntN(16))
			words := make([]string, length)
			for i := range words {
				words[i] = vocab[rng.IntN(len(vocab))]
			}
			if generic {
				docs[d][f] = text.GenericV2.AppendTokens(nil, strings.Join(words, " "))
			} else {
				docs[d][f] = words
			}
		}
	}
	return docs
}

func randomBM25FProfile(rng *rand.Rand) *profile.Profile {
	p := *profile.GenericV2
	for f := range p.Weights {
		p.Weights[f] = 0
		if rng.IntN(6) > 0 {
			p.Weights[f] = 0.1 + 6*rng.Float64()
		}
		p.FieldB[f] = rng.Float64()
		if rng.IntN(5) == 0 {
			p.FieldB[f] = float64(rng.IntN(2)) // the ends: 0 and 1
		}
	}
	p.K1 = 0.2 + 2.8*rng.Float64()
	p.PairWeight = 0
	if rng.IntN(3) > 0 {
		p.PairWeight = 1.5 * rng.Float64()
	}
	p.QueryTermWeight = profile.QueryTermOnce
	if rng.IntN(2) == 0 {
		p.QueryTermWeight = profile.QueryTermLog
	}
	return &p
}

// naiveTop ranks the naive scores: eligible positive ones, quantized score
// descending, then document ascending.
func naiveTop(scores []float64, eligible []bool, k int, quantum float64) []uint32 {
	var docs []uint32
	for d, score := range scores {
		if eligible[d] && score > 0 {
			docs = append(docs, uint32(d))
		}
	}
	key := func(d uint32) float64 { return math.Round(scores[d]*quantum) / quantum }
	slices.SortFunc(docs, func(a, b uint32) int {
		if ka, kb := key(a), key(b); ka != kb {
			if ka > kb {
				return -1
			}
			return 1
		}
		return int(a) - int(b)
	})
	if k >= 0 && k < len(docs) {
		docs = docs[:k]
	}
	return docs
}

var (
	plainVocab   = []string{"send", "message", "chat", "file", "read", "list", "get", "user", "send message", "chat file", "get user", "群", "消息", "状态"}
	genericVocab = []string{"send", "message", "messages", "chat", "files", "reading", "list", "get", "getUser", "the", "weather", "forecast", "查询", "天气", "of", "city"}
)

// TestBM25FMatchesNaive is the differential test: random corpora, profiles,
// queries and eligibility, scored by Index.Score and by naiveBM25F.
func TestBM25FMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 25))
	// Rankings are compared on a quantum coarse enough that the two sums'
	// last-ulp differences cannot round two ways (scores are below 100).
	const quantum = 1e6
	for round := range 300 {
		generic := round%2 == 1
		vocab := plainVocab
		if generic {
			vocab = genericVocab
		}
		docs := randomCorpus(rng, 1+rng.IntN(40), generic, vocab)
		ix := Build(docs)
		p := randomBM25FProfile(rng)
		ix.PrepareProfile(p)
		var s Scratch
		for q := range 20 {
			var query []string
			for n := rng.IntN(7); n > 0; n-- {
				if rng.IntN(8) == 0 {
					query = append(query, "zzz") // in no field
					continue
				}
				query = append(query, vocab[rng.IntN(len(vocab))])
			}
			if generic {
				query = text.GenericV2.AppendTokens(nil, strings.Join(query, " "))
			}
			if n := len(query); n > 0 && rng.IntN(3) == 0 {
				query = append(query, query[rng.IntN(n)]) // a repeat
			}
			eligible := make([]bool, len(docs))
			for d := range eligible {
				eligible[d] = rng.IntN(5) > 0
			}
			where := fmt.Sprintf("round %d query %d %q profile %+v", round, q, query, *p)

			hits := ix.Score(&p.Weights, query, eligible, &s)
			wantScores, wantShares := naiveBM25F(docs, p, query)
			got := map[uint32]float64{}
			for _, h := range hits {
				require.NotContains(t, got, h.Doc, "%s: doc %d twice", where, h.Doc)
				got[h.Doc] = h.Score
			}
			for d, want := range wantScores {
				score, ok := got[uint32(d)]
				if !eligible[d] || want <= 0 {
					require.False(t, ok, "%s: doc %d (eligible %v, naive %g) is a hit", where, d, eligible[d], want)
				} else {
					require.True(t, ok, "%s: doc %d missing (naive %g)", where, d, want)
					require.True(t, closeTo(score, want), "%s: doc %d score %.17g, naive %.17g", where, d, score, want)
				}
				if want <= 0 {
					continue
				}
				// Shares, for eligible and ineligible documents alike.
				fields := s.FieldScores(uint32(d))
				sum := 0.0
				for f := range fields {
					sum += fields[f]
					require.InDelta(t, wantShares[d][f], fields[f], 1e-9*want, "%s: doc %d field %s", where, d, profile.Field(f))
				}
				require.True(t, closeTo(sum, want), "%s: doc %d field scores sum %.17g, score %.17g", where, d, sum, want)
			}
			for _, k := range []int{-1, 0, 1, 3, 10} {
				ranked := Top(hits, k, quantum)
				order := make([]uint32, len(ranked))
				for i, r := range ranked {
					order[i] = r.Doc
				}
				want := naiveTop(wantScores, eligible, k, quantum)
				if len(want) == 0 {
					want = []uint32{}
				}
				require.Equal(t, want, order, "%s: top %d", where, k)
			}
		}
	}
}

// TestBM25FFieldScoresSum checks on the generic-v2 profile itself that a
// hit's field scores add up to its score, and that a field of weight 0
// reports nothing.
func TestBM25FFieldScoresSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := randomCorpus(rng, 60, true, genericVocab)
	ix := Build(docs)
	p := *profile.GenericV2
	p.Weights[profile.Summary] = 0
	ix.PrepareProfile(&p)
	var s Scratch
	checked := 0
	for range 50 {
		query := text.GenericV2.AppendTokens(nil, genericVocab[rng.IntN(len(genericVocab))]+" "+genericVocab[rng.IntN(len(genericVocab))])
		for _, h := range ix.Score(&p.Weights, query, allEligible(len(docs)), &s) {
			fields := s.FieldScores(h.Doc)
			require.Zero(t, fields[profile.Summary])
			sum := 0.0
			for _, v := range fields {
				sum += v
			}
			require.True(t, closeTo(sum, h.Score), "doc %d: %v sums to %g, score %g", h.Doc, fields, sum, h.Score)
			checked++
		}
	}
	require.Greater(t, checked, 100)
}

// TestBM25FConcurrent scores the same queries on one Index from two
// goroutines with their own Scratch; run it under -race.
func TestBM25FConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	docs := randomCorpus(rng, 200, true, genericVocab)
	ix := Build(docs)
	ix.PrepareProfile(profile.GenericV2)
	queries := make([][]string, 40)
	for i := range queries {
		words := make([]string, 1+rng.IntN(5))
		for j := range words {
			words[j] = genericVocab[rng.IntN(len(genericVocab))]
		}
		queries[i] = text.GenericV2.AppendTokens(nil, strings.Join(words, " "))
	}
	eligible := allEligible(len(docs))
	run := func() [][]Hit {
		var s Scratch
		out := make([][]Hit, len(queries))
		for round := 0; round < 3; round++ {
			for i, q := range queries {
				hits := ix.Score(&profile.GenericV2.Weights, q, eligible, &s)
				out[i] = slices.Clone(hits)
				slices.SortFunc(out[i], func(a, b Hit) int { return int(a.Doc) - int(b.Doc) })
			}
		}
		return out
	}
	want := run()
	var got [2][][]Hit
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g] = run()
		}()
	}
	wg.Wait()
	nonEmpty := 0
	for i := range want {
		nonEmpty += min(len(want[i]), 1)
		require.Equal(t, want[i], got[0][i], "query %q", queries[i])
		require.Equal(t, want[i], got[1][i], "query %q", queries[i])
	}
	require.Greater(t, nonEmpty, len(queries)/2)
}
