package text_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// BenchmarkQueryTokens: one query of fixtures.GenericBenchQueries per iteration, in turn,
// through each tokenizer (the query side of a search).
func BenchmarkQueryTokens(b *testing.B) {
	for _, tokenizer := range []text.Tokenizer{text.DWSV1, text.GenericV2} {
		b.Run(tokenizer.Name(), func(b *testing.B) {
			var dst []string
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = tokenizer.AppendTokens(dst[:0], fixtures.GenericBenchQueries[i%len(fixtures.GenericBenchQueries)])
				i++
			}
		})
	}
}
