package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
	"github.com/toolsift/toolsift/internal/fixtures"
)

var internalEngine = sync.OnceValues(func() (*Engine, error) {
	cat, err := fixtures.DWS()
	if err != nil {
		return nil, err
	}
	return New(cat, profile.DWSV1)
})

// TestLexicalChainMatchesReferenceScores compares the raw float scores of the
// lexical chain (BM25 over all eligible tools, avoid_when demotion, top 20)
// with the reference's, bit for bit, for every query that records them. This
// pins the tokenizer, the field projection and the BM25 arithmetic, not just
// the order they produce.
func TestLexicalChainMatchesReferenceScores(t *testing.T) {
	e, err := internalEngine()
	require.NoError(t, err)
	type scored struct {
		CanonicalPath string             `json:"canonical_path"`
		Score         float64            `json:"score"`
		MatchedFields []string           `json:"matched_fields"`
		FieldScores   map[string]float64 `json:"field_scores"`
	}
	checked := 0
	for _, name := range []string{"misc.jsonl.gz", "workflows.jsonl.gz", "intent_use_when.jsonl.gz", "forbidden_avoid_when.jsonl.gz"} {
		data, err := fixtures.ReadGolden(name)
		require.NoError(t, err)
		scanner := bufio.NewScanner(bytes.NewReader(data))
		scanner.Buffer(nil, 16<<20)
		for scanner.Scan() {
			var line struct {
				Request struct {
					Query string `json:"query"`
				} `json:"request"`
				LexicalTop20 []scored `json:"lexical_top20"`
			}
			require.NoError(t, json.Unmarshal(scanner.Bytes(), &line))
			if line.LexicalTop20 == nil {
				continue
			}
			hits, _ := e.retrieve(lower(strings.TrimSpace(line.Request.Query)), text.NFKC(line.Request.Query), e.executable, 20, e.getScratch())
			require.Len(t, hits, len(line.LexicalTop20), line.Request.Query)
			for i, want := range line.LexicalTop20 {
				got := hits[i]
				require.Equal(t, want.CanonicalPath, e.tools[got.Doc].Identity.CanonicalPath, "%q #%d", line.Request.Query, i)
				require.Equal(t, want.Score, got.Score, "%q %s", line.Request.Query, want.CanonicalPath)
				require.Equal(t, want.MatchedFields, appendMatchedFields(nil, &got.fields))
				for f := profile.Field(0); f < profile.NumFields; f++ {
					require.Equal(t, want.FieldScores[f.String()], got.fields[f], "%q %s %s", line.Request.Query, want.CanonicalPath, f)
				}
			}
			checked++
		}
		require.NoError(t, scanner.Err())
	}
	require.Greater(t, checked, 2500)
	t.Logf("%d queries: every top-20 score identical to the reference", checked)
}

// TestCoresInIsContains: the one-pass product-core search finds exactly the
// cores strings.Contains finds, for every golden query (and each product's
// own name, which contains at least its own core).
func TestCoresInIsContains(t *testing.T) {
	e, err := internalEngine()
	require.NoError(t, err)
	keys := []string{}
	for _, p := range e.products {
		keys = append(keys, productNameKey(p.Name+p.Description))
	}
	for _, name := range []string{"intent_use_when.jsonl.gz", "misc.jsonl.gz"} {
		lines, err := fixtures.GoldenLines(name)
		require.NoError(t, err)
		for _, line := range lines {
			var request struct{ Query string }
			require.NoError(t, json.Unmarshal(line.Request, &request))
			keys = append(keys, productNameKey(request.Query))
		}
	}
	named := 0
	for _, key := range keys {
		got := e.coresIn(key)
		for i, core := range e.productCores {
			require.Equal(t, core != "" && strings.Contains(key, core), got[i], "%q %q", key, core)
			if got[i] {
				named++
			}
		}
	}
	require.Greater(t, named, len(e.products), "the keys name products")
}
