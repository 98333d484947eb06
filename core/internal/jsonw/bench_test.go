package jsonw

import (
	"encoding/json"
	"strings"
	"testing"
)

var (
	benchASCII = strings.Repeat("Search the tool catalog for calendar events. ", 24) // ~1 KiB
	benchCJK   = strings.Repeat("将会话加入一个或多个自定义会话分组，", 20)                            // ~1 KiB
)

func benchmarkAppendString(b *testing.B, s string) {
	dst := make([]byte, 0, 6*len(s)+2)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendString(dst[:0], s, true)
	}
}

func BenchmarkAppendStringASCII(b *testing.B) { benchmarkAppendString(b, benchASCII) }
func BenchmarkAppendStringCJK(b *testing.B)   { benchmarkAppendString(b, benchCJK) }

// BenchmarkMarshalStringASCII is the encoding/json baseline for comparison.
func BenchmarkMarshalStringASCII(b *testing.B) {
	b.SetBytes(int64(len(benchASCII)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = json.Marshal(benchASCII)
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	floats := []float64{0, 1, 0.1, 123.456, 1e-7, 1e21, 3.141592653589793, -2.5e-300}
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range floats {
			dst, _ = AppendFloat(dst[:0], f)
		}
	}
}
