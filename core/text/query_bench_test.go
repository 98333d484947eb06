package text

import "testing"

// benchQueries are the queries of core/engine's BenchmarkGenericProfiles.
var benchQueries = []string{
	"search the web with bing",
	"generate a word cloud chart",
	"生成词云图",
	"convert a PDF to markdown",
	"weather forecast for tomorrow",
	"read a file from the local disk",
	"Show me today's trending topics in the gaming world across all platforms.",
	"Analyze Apple's stock for the past year and summarize it in a PPT in /root/ppt/apple.pptx.",
	"Generate a deep report of bitcoin and save it in /root/markdown/bitcoin.md",
	"Find the latest standard iphone prices at amazon.",
	"Download New York's Air Quality report from Government Data, saved at /root/csv/NY_AIR_QUALITY.csv",
	"查询明天从北京到上海的火车票余票",
}

// BenchmarkQueryTokens: one query of benchQueries per iteration, in turn,
// through each tokenizer (the query side of a search).
func BenchmarkQueryTokens(b *testing.B) {
	for _, tokenizer := range []Tokenizer{DWSV1, GenericV2} {
		b.Run(tokenizer.Name(), func(b *testing.B) {
			var dst []string
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = tokenizer.AppendTokens(dst[:0], benchQueries[i%len(benchQueries)])
				i++
			}
		})
	}
}
