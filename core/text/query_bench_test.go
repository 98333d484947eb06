package text_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/testdata"
)

// BenchmarkQueryTokens: one query of testdata.GenericBenchQueries per iteration, in turn,
// through each tokenizer (the query side of a search).
func BenchmarkQueryTokens(b *testing.B) {
	for _, tokenizer := range []text.Tokenizer{text.DWSV1, text.GenericV2} {
		b.Run(tokenizer.Name(), func(b *testing.B) {
			var dst []string
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = tokenizer.AppendTokens(dst[:0], testdata.GenericBenchQueries[i%len(testdata.GenericBenchQueries)])
				i++
			}
		})
	}
}
