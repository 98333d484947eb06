// The generic golden vectors live here, not in package testdata: go test
// ./... skips every directory named testdata, so a test there never ran in
// make test.
package engine_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/internal/fixtures"
)

var update = flag.Bool("update", false, "rewrite the snapshots and golden vectors under testdata/generic/")

// genericDir is testdata/generic from this package's directory.
var genericDir = filepath.Join("..", "..", "testdata", "generic")

// genericQueries cover the generic pipelines: English and Chinese intents,
// bare names and canonical paths (the exact guard), filters, subqueries,
// queries that match nothing, and refused requests; and what generic-v2
// does differently: task descriptions longer than the reference's 256
// characters, word pairs, stems, plural acronyms, numbers, action verbs
// and abbreviations, and the response budget at the largest limit.
var genericQueries = []map[string]any{
	{"query": "search the web with bing"},
	{"query": "generate a word cloud chart"},
	{"query": "生成词云图"},
	{"query": "查询火车票余票"},
	{"query": "convert a PDF to markdown", "limit": 10},
	{"query": "weather forecast for tomorrow"},
	{"query": "read a file from the local disk"},
	{"query": "send an email with an attachment"},
	{"query": "create a github issue"},
	{"query": "analyse the beats of an audio file", "candidate_limit": 50},
	{"query": "图表 折线图 销售数据"},
	{"query": "bing_search"},
	{"query": "Bing_CN_MCP.bing_search"},
	{"query": "generate_word_cloud_chart"},
	{"query": "search", "effects": []string{"read"}},
	{"query": "search the web", "effects": []string{"read", "write"}},
	{"query": "chart", "product_ids": []string{"MCP Server Chart"}, "limit": 3},
	{"query": "bing_search", "exclude_canonical": []string{"Bing_CN_MCP.bing_search"}},
	{"query": "plan a trip", "subqueries": []string{"search train tickets", "check the weather", "book a hotel"}},
	{"query": "zzqxv plorf"},
	{"query": ""},
	{"query": "bad\u0000byte"},
	{"query": "x", "limit": 21},
	{"query": "Show me today's trending topics in the gaming world across all platforms."},
	{"query": "Merge these PDFs into one file and save it to /root/pdf/merged.pdf"},
	{"query": "open a new presentation and add a slide with a picture"},
	{"query": "look up the 2 latest releases of a Maven package"},
	{"query": "I need a Word document summarizing NIO. Please title it 'NIO Company Overview' and include three headed sections: a brief introduction from Wikipedia, three major news updates from the last quarter as bullet points, and a list of their main vehicle models. Finally, save it in /root/word/nio.docx", "limit": 20},
	{"query": strings.Repeat("search the web for news about the weather and save the answer to a file; ", 26), "limit": 20},
	// A transcript: generic-v2 ranks it by the user's turns (profile.RankedQuery).
	{"query": "user: I need a chart of this quarter's sales.\nassistant: Would a bar chart or a line chart suit you? I can also search the web for figures.\nuser: A word cloud of the product names, please.", "limit": 5},
	{"query": strings.Repeat("天气", 1100)},
	// Pattern mode, and its bounds: a program over 1,000 instructions, and
	// one whose work over the whole catalog is too much but which a
	// product filter admits.
	{"pattern": "^bing_"},
	{"pattern": `[^\x01]{0,1000}\x01`},
	{"pattern": `[^\x01]{0,100}\x01`},
	{"pattern": `[^\x01]{0,100}\x01`, "product_ids": []string{"MCP Server Chart"}},
	// generic-v3: Chinese function words (请, 帮, 我, 的) match no tool alone.
	{"query": "请帮我查一下明天的天气"},
	{"query": "我想把这个PDF文件转换成Markdown"},
}

// genericInspects address tools by canonical path, bare name and product.
var genericInspects = []string{"Bing_CN_MCP.bing_search", "bing_search", "Bing_CN_MCP", "MCP Server Chart.generate_word_cloud_chart", "no.such_tool"}

// genericGoldens: the snapshot and vectors of each generic profile. The
// format's default profile (generic-v3) is what the module builds, so every
// host checks that it builds the snapshot whose SHA-256 is in
// generic/mcp-generic-v3.snap.sha256 (the snapshot itself is not committed);
// the others are opened from their committed snapshot.
var genericGoldens = []struct {
	profile        string
	snap, vectors  string
	snapshot, gold []byte
}{
	{"generic-v3", "mcp-generic-v3.snap.sha256", "golden-generic-v3.jsonl", fixtures.GenericV3SnapshotSHA256, fixtures.GenericV3Golden},
	{"generic-v2", "mcp.snap", "golden.jsonl", fixtures.GenericSnapshot, fixtures.GenericGolden},
	{"generic-v1", "mcp-generic-v1.snap", "golden-generic-v1.jsonl", fixtures.GenericV1Snapshot, fixtures.GenericV1Golden},
}

func TestGenericGolden(t *testing.T) {
	catalogJSON, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	for _, g := range genericGoldens {
		t.Run(g.profile, func(t *testing.T) {
			snap, _, err := compile.FromCatalog("mcp", catalogJSON, importer.Options{Profile: g.profile})
			require.NoError(t, err)
			e, werr := compile.Open(snap)
			require.Nil(t, werr)
			require.Equal(t, g.profile, e.Profile().Name)

			var golden bytes.Buffer
			for _, q := range genericQueries {
				request := map[string]any{"version": "tool-search.v1"}
				for k, v := range q {
					request[k] = v
				}
				writeVector(t, &golden, "search", request, e.SearchJSON)
			}
			v := e.Version()
			for _, path := range genericInspects {
				request := map[string]any{"version": "schema-inspect.v1", "canonical_path": path,
					"expected_source_hash": v.SourceHash, "expected_surface_hash": v.SurfaceHash}
				writeVector(t, &golden, "inspect", request, e.InspectJSON)
			}
			stale := map[string]any{"version": "schema-inspect.v1", "canonical_path": "bing_search",
				"expected_source_hash": "sha256:" + string(bytes.Repeat([]byte("0"), 64)), "expected_surface_hash": v.SurfaceHash}
			writeVector(t, &golden, "inspect", stale, e.InspectJSON)

			stored := snap
			if strings.HasSuffix(g.snap, ".sha256") {
				sum := sha256.Sum256(snap)
				stored = []byte(hex.EncodeToString(sum[:]) + "\n")
			}
			if *update {
				require.NoError(t, os.WriteFile(filepath.Join(genericDir, g.snap), stored, 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(genericDir, g.vectors), golden.Bytes(), 0o644))
				return
			}
			require.True(t, bytes.Equal(g.snapshot, stored), "generic/%s is stale: go test ./core/engine -run TestGenericGolden -update", g.snap)
			require.Equal(t, string(g.gold), golden.String(), "generic/%s is stale: go test ./core/engine -run TestGenericGolden -update", g.vectors)
		})
	}
}

func writeVector(t *testing.T, w *bytes.Buffer, kind string, request map[string]any, answer func([]byte) ([]byte, error)) {
	t.Helper()
	encoded, err := json.Marshal(request)
	require.NoError(t, err)
	line := map[string]any{"kind": kind, "request": json.RawMessage(encoded)}
	out, err := answer(encoded)
	if err != nil {
		werr := typedError(t, err)
		line["error"] = map[string]string{"category": werr.Category, "reason": werr.Reason}
	} else {
		line["response"] = string(out)
	}
	data, err := json.Marshal(line)
	require.NoError(t, err)
	w.Write(append(data, '\n'))
}

// TestEncodedSearchAllocatesAlmostNothing: a search answered as bytes into a
// buffer with room allocates only its query's text once the engine has
// answered it before (the scratch held outside the pool, its response,
// candidates and matched fields). In the module an allocation per search
// meant a collection every few thousand searches, and write barriers while
// it marked. The query is an agent's task, as the benchmarks' are; a query
// short enough to be a CLI path allocates two more while the exact guard
// normalises it.
func TestEncodedSearchAllocatesAlmostNothing(t *testing.T) {
	catalogJSON, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	snap, _, err := compile.FromCatalog("mcp", catalogJSON, importer.Options{Profile: "generic-v2"})
	require.NoError(t, err)
	e, err := compile.Open(snap)
	require.NoError(t, err)
	request := []byte(`{"version":"tool-search.v1","query":"I am preparing a report on a company and need to search the web for recent news about it, then summarise what I find for my team","limit":10,"candidate_limit":20}`)
	out, err := e.AppendSearchJSON(nil, request)
	require.NoError(t, err)
	require.Contains(t, string(out), `"candidates":[{`)
	allocs := testing.AllocsPerRun(200, func() {
		out, err = e.AppendSearchJSON(out[:0], request)
	})
	require.NoError(t, err)
	require.LessOrEqual(t, allocs, 1.0, "allocations per encoded search")
}
