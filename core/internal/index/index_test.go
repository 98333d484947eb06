package index_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/profile"
)

// corpus makes n documents of random words from a small vocabulary, so that
// terms repeat within and across documents; some fields stay empty.
func corpus(seed uint64, n int) [][profile.NumFields][]string {
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := []string{"群", "群聊", "消息", "发送", "send", "chat", "file", "文件", "已读", "状态", "read", "的", "日程", "doc"}
	docs := make([][profile.NumFields][]string, n)
	for d := range docs {
		for f := range docs[d] {
			length := rng.IntN(12) - 2
			for i := 0; i < length; i++ {
				docs[d][f] = append(docs[d][f], vocab[rng.IntN(len(vocab))])
			}
		}
	}
	return docs
}

// queryTerm is a distinct query token and how often the query repeats it.
type queryTerm struct {
	Term  string
	Count int
}

// distinctSorted is the reference's query term order, the obvious way:
// tokens sorted as strings, repeats counted.
func distinctSorted(tokens []string) []queryTerm {
	sorted := append([]string(nil), tokens...)
	sort.Strings(sorted)
	var terms []queryTerm
	for _, token := range sorted {
		if n := len(terms); n > 0 && terms[n-1].Term == token {
			terms[n-1].Count++
			continue
		}
		terms = append(terms, queryTerm{Term: token, Count: 1})
	}
	return terms
}

// naiveBM25 is the reference formula written the slow, obvious way: every
// document scored, maps for counts, query terms sorted.
func naiveBM25(docs [][profile.NumFields][]string, f profile.Field, d int, terms []queryTerm, k1, b float64) float64 {
	n := float64(len(docs))
	total := 0
	df := map[string]int{}
	for _, doc := range docs {
		total += len(doc[f])
		seen := map[string]bool{}
		for _, t := range doc[f] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	avg := float64(total) / n
	if avg <= 0 {
		avg = 1
	}
	tf := map[string]int{}
	for _, t := range docs[d][f] {
		tf[t]++
	}
	length := math.Max(float64(len(docs[d][f])), 1)
	score := 0.0
	for _, qt := range terms {
		freq := float64(tf[qt.Term])
		if freq == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(df[qt.Term])+0.5)/(float64(df[qt.Term])+0.5))
		score += idf * (freq * (k1 + 1) / (freq + k1*(1-b+b*length/avg))) * math.Log1p(float64(qt.Count))
	}
	return score
}

func naiveTFIDF(docs [][profile.NumFields][]string, f profile.Field, d int, terms []queryTerm) float64 {
	n := float64(len(docs))
	df := map[string]int{}
	for _, doc := range docs {
		seen := map[string]bool{}
		for _, t := range doc[f] {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	idf := func(t string) float64 { return math.Log((n+1)/(float64(df[t])+1)) + 1 }
	tf := map[string]int{}
	for _, t := range docs[d][f] {
		tf[t]++
	}
	keys := make([]string, 0, len(tf))
	for t := range tf {
		keys = append(keys, t)
	}
	sort.Strings(keys)
	norm := 0.0
	for _, t := range keys {
		w := float64(tf[t]) * idf(t)
		norm += w * w
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		return 0
	}
	dot, qnorm := 0.0, 0.0
	for _, qt := range terms {
		if df[qt.Term] == 0 {
			continue
		}
		qw := float64(qt.Count) * idf(qt.Term)
		qnorm += qw * qw
		dot += float64(tf[qt.Term]) * idf(qt.Term) * qw
	}
	if qnorm == 0 {
		return 0
	}
	return dot / (norm * math.Sqrt(qnorm))
}

func TestScoresEqualNaiveFormulasExactly(t *testing.T) {
	weights := profile.DWSV1.Weights
	// One scratch for every query: each must clear exactly what the last one
	// wrote, also when the catalog size changes between them.
	scratch := new(index.Scratch)
	for seed := uint64(1); seed <= 20; seed++ {
		docs := corpus(seed, 40+int(seed%4)*10)
		ix := index.Build(docs)
		require.NoError(t, ix.Validate())
		eligible := make([]bool, len(docs))
		for i := range eligible {
			eligible[i] = i%7 != 3 // some documents are filtered out
		}
		tokens := []string{"群", "消息", "群", "send", "zzz", "的", "的", "的"}
		terms := distinctSorted(tokens)
		for _, algorithm := range []string{profile.BM25, profile.TFIDF} {
			ix.Prepare(algorithm, 0.9, 0.4)
			got := map[uint32]index.Hit{}
			for _, h := range ix.Score(&weights, tokens, eligible, scratch) {
				got[h.Doc] = h
			}
			for d := range docs {
				want := 0.0
				var fields [profile.NumFields]float64
				for f := profile.Field(0); f < profile.NumFields; f++ {
					var s float64
					if algorithm == profile.BM25 {
						s = naiveBM25(docs, f, d, terms, 0.9, 0.4)
					} else {
						s = naiveTFIDF(docs, f, d, terms)
					}
					if v := s * weights[f]; v > 0 {
						fields[f] = v
						want += v
					}
				}
				hit, ok := got[uint32(d)]
				if !eligible[d] || want == 0 {
					require.False(t, ok, "seed %d doc %d should not be a hit", seed, d)
					continue
				}
				require.True(t, ok, "seed %d doc %d", seed, d)
				require.Equal(t, want, hit.Score, "%s seed %d doc %d", algorithm, seed, d)
				require.Equal(t, fields, scratch.FieldScores(hit.Doc))
			}
		}
	}
}

func TestTopEqualsFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 300; trial++ {
		hits := make([]index.Hit, rng.IntN(80))
		if trial%3 == 0 {
			hits = make([]index.Hit, rng.IntN(3000)) // selection, not just sorting
		}
		for i := range hits {
			// Few distinct scores, and scores an ulp apart: ties must break
			// on the document, after quantization.
			base := float64(rng.IntN(5))
			hits[i] = index.Hit{Doc: uint32(rng.IntN(1000)), Score: base + float64(rng.IntN(3))*1e-12}
			switch trial % 6 {
			case 1: // many distinct scores
				hits[i].Score = rng.Float64() * 30
			case 2: // ascending: a bad case for a naive pivot
				hits[i].Score = float64(i)
			case 4: // all equal
				hits[i].Score = 1
			}
		}
		sorted := make([]index.Ranked, len(hits))
		for i, h := range hits {
			sorted[i] = index.Rank(h, 1e9)
		}
		sort.SliceStable(sorted, func(i, j int) bool { return index.Less(&sorted[i], &sorted[j]) })
		for _, k := range []int{-1, 0, 1, 5, 20, 100, len(hits) - 1} {
			want := sorted
			if k >= 0 && k < len(want) {
				want = want[:k]
			}
			got := index.Top(slices.Clone(hits), k, 1e9)
			require.Equal(t, len(want), len(got))
			for i := range want {
				require.Equal(t, want[i].Key, got[i].Key)
				require.Equal(t, want[i].Doc, got[i].Doc)
			}
		}
	}
}

func TestQuantizedTieBreaksOnDocument(t *testing.T) {
	hits := []index.Hit{{Doc: 9, Score: 1.0000000004}, {Doc: 2, Score: 1.0000000001}}
	top := index.Top(hits, -1, 1e9)
	require.Equal(t, uint32(2), top[0].Doc, "scores equal after quantization: the lower document wins")
}

func TestValidateRejectsCorruptIndexes(t *testing.T) {
	fresh := func() *index.Index { return index.Build(corpus(3, 20)) }
	require.NoError(t, fresh().Validate())
	for name, corrupt := range map[string]func(ix *index.Index){
		"doc out of range": func(ix *index.Index) { ix.Fields[0].PostingDoc[0] = 999 },
		"offsets past end": func(ix *index.Index) { ix.Fields[1].PostingStart[len(ix.Fields[1].PostingStart)-1]++ },
		"offsets decrease": func(ix *index.Index) {
			f := &ix.Fields[2]
			f.PostingStart[1], f.PostingStart[2] = f.PostingStart[2], f.PostingStart[1]
		},
		"missing doc length": func(ix *index.Index) { ix.Fields[3].DocLen = ix.Fields[3].DocLen[:5] },
		"tables disagree":    func(ix *index.Index) { ix.Fields[0].PostingTF = ix.Fields[0].PostingTF[:1] },
	} {
		ix := fresh()
		corrupt(ix)
		require.Error(t, ix.Validate(), name)
	}
}
