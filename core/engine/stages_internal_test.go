package engine

import (
	"os"
	"slices"
	"testing"

	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/core/wire"
)

// BenchmarkSearchStages times each stage of the pipeline for the Chinese
// query of BenchmarkSearchChineseQuery, to see where a query's time goes
// (natively, and in wasm with GOOS=wasip1 go test -c).
func BenchmarkSearchStages(b *testing.B) {
	e, err := internalEngine()
	if err != nil {
		b.Fatal(err)
	}
	q := "给群里发文件并确认消息已读"
	if env := os.Getenv("STAGES_QUERY"); env != "" {
		q = env
	}
	request := []byte(`{"version":"tool-search.v1","query":"` + q + `","limit":5,"candidate_limit":20}`)
	tokens := e.tokenizer.AppendTokens(nil, q)
	shared := new(index.Scratch)
	hits := e.index.Score(&e.profile.Weights, tokens, e.executable, shared)
	top := index.Top(hits, 20, e.profile.ScoreQuantum)
	// answer, not Search: its references keep their encoded heads, as in
	// every search that is answered with bytes.
	response, _, werr := e.answer(wire.SearchRequest{Version: wire.SearchVersion, Query: q}, nil, false)
	if werr != nil {
		b.Fatal(werr)
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			wire.DecodeSearchRequest(request)
		}
	})
	b.Run("tokenize", func(b *testing.B) {
		for b.Loop() {
			tokens = e.tokenizer.AppendTokens(tokens[:0], q)
		}
	})
	b.Run("score", func(b *testing.B) { // query terms included
		s := new(index.Scratch)
		for b.Loop() {
			e.index.Score(&e.profile.Weights, tokens, e.executable, s)
		}
	})
	b.Run("top", func(b *testing.B) {
		for b.Loop() {
			index.Top(hits, 20, e.profile.ScoreQuantum)
		}
	})
	b.Run("demote", func(b *testing.B) {
		for b.Loop() {
			e.demote(lower(q), top, nil, shared)
		}
	})
	b.Run("named", func(b *testing.B) {
		for b.Loop() {
			e.namedProduct(q, nil)
		}
	})
	if named := e.namedProduct(q, nil); named >= 0 {
		candidates := e.demote(lower(q), top, nil, shared)
		b.Run("lift", func(b *testing.B) {
			for b.Loop() {
				e.liftNamedProduct(lower(q), slices.Clone(candidates), hits, named, shared)
			}
		})
	}
	b.Run("retrieve", func(b *testing.B) {
		s := e.getScratch()
		for b.Loop() {
			e.retrieve(lower(q), text.NFKC(q), e.executable, 20, s)
		}
	})
	b.Run("references", func(b *testing.B) {
		for b.Loop() {
			for _, c := range response.Candidates {
				doc, _ := e.identity.Resolve(c.CanonicalPath)
				e.reference(doc, c.MatchedFields, c.RankSources)
			}
		}
	})
	b.Run("finalize", func(b *testing.B) { // into a reused buffer, as the module does
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			r := *response
			_, buf, _ = e.finalize(&r, buf[:0])
		}
	})
	b.Run("encode", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = response.AppendJSON(buf[:0])
		}
	})
	b.ReportMetric(float64(len(hits)), "hits")
}
