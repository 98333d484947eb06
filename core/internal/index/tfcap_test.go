package index_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/profile"
)

// TestCapTermFrequency: a capped builder indexes what an uncapped one
// indexes from the tokens past the cap removed, field lengths included.
func TestCapTermFrequency(t *testing.T) {
	docs := [][]string{
		{"read", "file", "read", "read", "text", "read", "file", "file"},
		{"read"},
		{},
		{"a", "a", "b", "a", "b", "b", "b"},
	}
	capped, plain := index.NewBuilder(len(docs)), index.NewBuilder(len(docs))
	capped.CapTermFrequency(2)
	for doc, tokens := range docs {
		kept := []string{}
		seen := map[string]int{}
		for _, tok := range tokens {
			if seen[tok]++; seen[tok] <= 2 {
				kept = append(kept, tok)
			}
		}
		for f := profile.Field(0); f < profile.NumFields; f++ {
			capped.Add(doc, f, tokens)
			plain.Add(doc, f, kept)
		}
	}
	got, want := capped.Finish(), plain.Finish()
	require.Equal(t, want.Fields, got.Fields)
	require.Equal(t, []uint32{5, 1, 0, 4}, got.Fields[profile.Description].DocLen)
}
