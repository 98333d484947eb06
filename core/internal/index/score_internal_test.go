package index

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
)

// TestAccumulateMatchesPlainLoop checks the unsafe posting loop against the
// obvious one, on lists that break every order assumption a decoded index
// could break without failing Validate (unsorted, repeated documents), and
// on a catalog where every document is touched (touched's spare slot).
func TestAccumulateMatchesPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := new(Scratch)
	for round := 0; round < 200; round++ {
		docs := 1 + rng.IntN(64)
		s.reset(docs)
		want := make([][profile.NumFields]float64, docs)
		wantTouched := map[uint32]bool{}
		var order []uint32
		lists := 1 + rng.IntN(6)
		if round%10 == 0 {
			lists = 0 // below: one list over every document
		}
		addList := func(f profile.Field, list []uint32) {
			impacts := make([]float64, len(list))
			for i := range impacts {
				impacts[i] = rng.Float64()
			}
			qtf := 0.5 + rng.Float64()
			s.accumulate(f, list, impacts, qtf)
			for i, doc := range list {
				want[doc][f] += float64(impacts[i] * qtf)
				if !wantTouched[doc] {
					wantTouched[doc] = true
					order = append(order, doc)
				}
			}
		}
		if lists == 0 {
			all := make([]uint32, docs)
			for i := range all {
				all[i] = uint32(docs - 1 - i)
			}
			addList(profile.Field(rng.IntN(int(profile.NumFields))), all)
		}
		for l := 0; l < lists; l++ {
			list := make([]uint32, rng.IntN(2*docs+1))
			for i := range list {
				list[i] = uint32(rng.IntN(docs))
			}
			addList(profile.Field(rng.IntN(int(profile.NumFields))), list)
		}
		require.Equal(t, want, s.acc, "round %d", round)
		require.Equal(t, order, s.touched[:s.touchedCount], "round %d", round)
		for doc := range docs {
			require.Equal(t, wantTouched[uint32(doc)], s.mark[doc] == 1, "round %d doc %d", round, doc)
		}
	}
}

// TestAddMatchesPlainLoop checks the unrolled dense loop against the obvious
// one, bit for bit: lists of every length (so every remainder after the
// groups of four), repeated documents (a repeat inside one group of four must
// add in posting order too) and several lists into the same rows.
func TestAddMatchesPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := new(Scratch)
	for round := 0; round < 300; round++ {
		docs := 1 + rng.IntN(16)
		s.reset(docs)
		s.dense = true
		want := make([][profile.NumFields]float64, docs)
		for l := 0; l < 1+rng.IntN(6); l++ {
			f := profile.Field(rng.IntN(int(profile.NumFields)))
			list := make([]uint32, rng.IntN(3*docs+1))
			impacts := make([]float64, len(list))
			for i := range list {
				list[i] = uint32(rng.IntN(docs))
				impacts[i] = rng.Float64() * 10
			}
			qtf := 0.5 + rng.Float64()
			s.add(f, list, impacts, qtf)
			for i, doc := range list {
				want[doc][f] += float64(impacts[i] * qtf)
			}
		}
		require.Equal(t, want, s.acc, "round %d", round)
	}
}
