package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
)

// TestTopBM25FIsTopOfScoreExpanded: on random catalogs and queries, TopBM25F
// returns exactly what Top over every exact score returns (the same
// documents, score bits and order) and the same FieldScores for them; with
// expansions, eligibility filters, every k from none to all, scores tied
// by construction, terms kept merged or not, and a Scratch reused across
// both paths.
func TestTopBM25FIsTopOfScoreExpanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	paths := map[topPath]int{}
	var ways [4]int // queries whose rescoring went each way
	overflowed := 0 // merged entries with a frequency over tfMax, kept and rescored
	for c := range 80 {
		docs := 1 + rng.IntN(400)
		words := 2 + rng.IntN(60)
		if c%4 == 3 { // terms in few documents: queries that add sparsely
			words = 200 + rng.IntN(2000)
		}
		word := func() string {
			w := rng.IntN(words)
			if c%2 == 1 { // skewed, as in real text: a few common words, many rare
				w = rng.IntN(w + 1)
			}
			if rng.IntN(6) == 0 { // a word pair, weighed by PairWeight
				return fmt.Sprintf("w%d w%d", w, rng.IntN(words))
			}
			return fmt.Sprintf("w%d", w)
		}
		tokens := make([][profile.NumFields][]string, docs)
		for d := range tokens {
			if c%5 == 0 && d%2 == 1 {
				tokens[d] = tokens[d-1] // identical documents: tied scores
				continue
			}
			for f := range tokens[d] {
				for range rng.IntN([]int{3, 6, 20, 12, 8}[f]) {
					tokens[d][f] = append(tokens[d][f], word())
				}
			}
		}
		ix := Build(tokens)
		ix.PrepareProfile(profile.GenericV2)
		// Every term precomputed, none, or as the index chose: both ways of
		// summing a(d).
		switch c % 3 {
		case 0:
			ix.impacts = ix.buildImpacts(profile.GenericV2, ix.termLengths(), 1)
		case 1:
			ix.impacts = ix.buildImpacts(profile.GenericV2, ix.termLengths(), math.MaxInt)
		}
		var s Scratch
		for q := range 30 {
			query := make([]string, 1+rng.IntN(40))
			for i := range query {
				query[i] = word()
			}
			var expansions []string
			for range rng.IntN(4) {
				expansions = append(expansions, word())
			}
			eligible := make([]bool, docs)
			for d := range eligible {
				eligible[d] = q%3 != 0 || rng.IntN(4) > 0
			}
			k := []int{0, 1, 3, 10, 20, docs, docs + 5, -1}[q%8]
			weights := profile.GenericV2.Weights
			want := Top(ix.ScoreExpanded(&weights, query, expansions, 0.3, eligible, &s), k, profile.GenericV2.ScoreQuantum)
			wantFields := make([][profile.NumFields]float64, len(want))
			for i, hit := range want {
				wantFields[i] = s.FieldScores(hit.Doc)
			}
			got := ix.TopBM25F(query, expansions, 0.3, eligible, k, profile.GenericV2.ScoreQuantum, &s)
			paths[s.path]++
			for w := range ways {
				ways[w] += int(s.rescoreWays >> w & 1)
			}
			require.Equal(t, want, got, "catalog %d, query %d (k %d)", c, q, k)
			for i, hit := range got {
				require.Equal(t, wantFields[i], s.FieldScores(hit.Doc), "catalog %d, query %d, doc %d", c, q, hit.Doc)
			}
		}
		for _, packed := range ix.impacts.tfs {
			if packed&tfsOverflow != 0 {
				overflowed++
			}
		}
	}
	require.GreaterOrEqual(t, overflowed, 50, "merged entries whose frequencies did not fit")
	// Every way through TopBM25F, often enough to matter.
	for path, least := range map[topPath]int{pathSparse: 200, pathDense: 500, pathDenseRetried: 20} {
		require.GreaterOrEqual(t, paths[path], least, "path %d, of %v", path, paths)
	}
	// And every way of rescoring a term.
	for way, n := range ways {
		require.GreaterOrEqual(t, n, 50, "rescore way %d, of %v", way, ways)
	}
}
