package engine_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// The benchmarks of issue #2, on the DWS catalog (1,122 tools):
//
//	go test -run '^$' -bench . -benchmem ./core/engine/

func BenchmarkSearchChineseQuery(b *testing.B) {
	e := newDWSEngine(b)
	request := wire.SearchRequest{Version: wire.SearchVersion, Query: "给群里发文件并确认消息已读", Limit: 5, CandidateLimit: 20}
	benchmarkSearch(b, e, request)
}

func BenchmarkSearchWorkflow(b *testing.B) {
	e := newDWSEngine(b)
	request := wire.SearchRequest{Version: wire.SearchVersion, Subqueries: []string{"以当前用户身份给群聊发送本地文件", "查询指定消息的已读状态和人员"}, Limit: 5, CandidateLimit: 20}
	benchmarkSearch(b, e, request)
}

func BenchmarkSearchExactGuard(b *testing.B) {
	e := newDWSEngine(b)
	benchmarkSearch(b, e, wire.SearchRequest{Version: wire.SearchVersion, Query: "chat.query_msg_read_status"})
}

func benchmarkSearch(b *testing.B, e *engine.Engine, request wire.SearchRequest) {
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		response, err := e.Search(request)
		if err != nil {
			b.Fatal(err)
		}
		if buf, _ = response.AppendJSON(buf[:0]); len(buf) == 0 {
			b.Fatal("empty response")
		}
	}
}

// BenchmarkBuildIndex measures engine construction from an imported catalog:
// tokenizing every field of every tool and building the inverted index.
func BenchmarkBuildIndex(b *testing.B) {
	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	if err != nil {
		b.Fatal(err)
	}
	cat, err := dws.Import(files)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.New(cat, profile.DWSV1); err != nil {
			b.Fatal(err)
		}
	}
}
