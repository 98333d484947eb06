package text

import "testing"

var benchSink []string

// BenchmarkDWSV1Query tokenizes one short Chinese query into a reused
// slice, the per-request path of the search engine.
func BenchmarkDWSV1Query(b *testing.B) {
	const q = "给群里发文件并确认消息已读"
	dst := make([]string, 0, 64)
	b.ReportAllocs()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		dst = DWSV1.AppendTokens(dst[:0], q)
	}
	benchSink = dst
}

// BenchmarkDWSV1QueryMixed is a mixed-script query with camelCase and an
// identifier, which needs lower-casing allocations.
func BenchmarkDWSV1QueryMixed(b *testing.B) {
	const q = "读取 openConversationId 对应的群消息 chat.Send"
	dst := make([]string, 0, 64)
	b.ReportAllocs()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		dst = DWSV1.AppendTokens(dst[:0], q)
	}
	benchSink = dst
}

// BenchmarkDWSV1Catalog tokenizes every field string of the catalog, the
// indexing path.
func BenchmarkDWSV1Catalog(b *testing.B) {
	fields := catalogFields(b)
	var n int64
	for _, s := range fields {
		n += int64(len(s))
	}
	dst := make([]string, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(n)
	for b.Loop() {
		for _, s := range fields {
			dst = DWSV1.AppendTokens(dst[:0], s)
		}
	}
	benchSink = dst
}

func BenchmarkCheckUnsafe(b *testing.B) {
	const q = "给群里发文件并确认消息已读 openConversationId chat.send"
	b.ReportAllocs()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		if CheckUnsafe(q) != Safe {
			b.Fatal("unexpected")
		}
	}
}
