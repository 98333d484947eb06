package hostapi

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// dwsSnapshot is the DWS catalog's snapshot, built by the module itself
// (about 20 s in wasm: it imports, tokenises and indexes 1,122 tools).
var dwsSnapshot = sync.OnceValues(func() ([]byte, error) {
	return BuildSnapshot(context.Background(), "dws", fixtures.DWSCatalog)
})

func snapshotDWS(t testing.TB) []byte {
	t.Helper()
	snap, err := dwsSnapshot()
	require.NoError(t, err)
	return snap
}

// nativeDWS is the reference: the Go core engine over the same catalog.
var nativeDWS = sync.OnceValues(func() (*engine.Engine, error) {
	cat, err := fixtures.DWS()
	if err != nil {
		return nil, err
	}
	return engine.New(cat, profile.DWSV1)
})

func nativeEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := nativeDWS()
	require.NoError(t, err)
	return e
}

// openDWS opens the DWS snapshot and closes the engine when the test ends.
func openDWS(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	return openSnapshot(t, snapshotDWS(t), opts...)
}

func openSnapshot(t testing.TB, snap []byte, opts ...Option) *Engine {
	t.Helper()
	e, err := Open(context.Background(), snap, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

func readGolden(t testing.TB, name string) []fixtures.GoldenLine {
	t.Helper()
	lines, err := fixtures.GoldenLines(name)
	require.NoError(t, err)
	return lines
}

// withVersion returns a golden line's request as a tool-search.v1 request.
func withVersion(t testing.TB, line fixtures.GoldenLine) []byte {
	t.Helper()
	request, err := line.SearchRequest()
	require.NoError(t, err)
	return request
}

// answer is one outcome, comparable across engines: the bytes, or the typed
// error's category, code and reason. Other is a host failure (never
// expected).
type answer struct {
	Out      string
	Category string
	Code     int
	Reason   string
	Other    string
}

func (a answer) failed() bool { return a.Other != "" }

func wasmAnswer(out []byte, err error) answer {
	var typed *wire.Error
	switch {
	case err == nil:
		return answer{Out: string(out)}
	case errors.As(err, &typed):
		return answer{Category: typed.Category, Code: typed.Code, Reason: typed.Reason}
	}
	return answer{Other: err.Error()}
}

func nativeAnswer(out []byte, err error) answer {
	if werr := wire.ErrorOf(err); werr != nil {
		return answer{Category: werr.Category, Code: werr.Code, Reason: werr.Reason}
	}
	return answer{Out: string(out)}
}

// replay runs requests through call on GOMAXPROCS goroutines (the engine's
// pool gives each its own instance) and returns the answers in order.
func replay(requests [][]byte, call func([]byte) ([]byte, error)) []answer {
	answers := make([]answer, len(requests))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(requests) {
					return
				}
				answers[k] = wasmAnswer(call(requests[k]))
			}
		})
	}
	wg.Wait()
	return answers
}

// sourceHashOf extracts catalog.source_hash from a search response.
func sourceHashOf(t testing.TB, response []byte) string {
	t.Helper()
	var doc struct {
		Catalog struct {
			SourceHash string `json:"source_hash"`
		} `json:"catalog"`
	}
	require.NoError(t, json.Unmarshal(response, &doc), "%s", response)
	return doc.Catalog.SourceHash
}

const (
	chineseQuery  = `{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}`
	workflowQuery = `{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","subqueries":["以当前用户身份给群聊发送本地文件","查询指定消息的已读状态和人员"]}`
	// exactQuery names a tool: the exact guard answers it with a few µs of
	// engine work, so it measures mostly the cost of a call.
	exactQuery = `{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`
)

// forEachEngine runs test once per engine, as subtests named "wasm" and
// "native": what is asserted of the module's answers holds for the native
// engine's too, byte for byte.
func forEachEngine(t *testing.T, test func(t *testing.T, kind EngineKind)) {
	for _, kind := range []EngineKind{ModuleEngine, NativeEngine} {
		t.Run(kind.String(), func(t *testing.T) { test(t, kind) })
	}
}
