package wire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/wire"
)

func TestDecodeSearchRequestRefusals(t *testing.T) {
	for _, tc := range []struct {
		in     string
		reason string
	}{
		{`{"version":"tool-search.v1","query":"q","external_ranking":true}`, "invalid_request_json"},
		{`{"version":"tool-search.v1","query":"q"} {}`, "invalid_request_json"},
		{`{"version":"tool-search.v1","query":"q"} x`, "invalid_request_json"},
		{`{"version":"tool-search.v1","limit":1.5}`, "invalid_request_json"},
		{`{"version":"tool-search.v1","query":7}`, "invalid_request_json"},
		{`{"version":"tool-search.v1"`, "invalid_request_json"},
		{``, "invalid_request_json"},
		{`{"query":"q"}`, "unsupported_version"},
		{`{"version":"tool-search.v2","query":"q"}`, "unsupported_version"},
		{`null`, "unsupported_version"},
		{`{"version":"tool-search.v1","query":"` + strings.Repeat("a", wire.MaxRequestBytes) + `"}`, "request_too_large"},
	} {
		_, err := wire.DecodeSearchRequest([]byte(tc.in))
		require.NotNil(t, err, tc.in)
		require.Equal(t, tc.reason, err.Reason, clip(tc.in))
		require.Equal(t, wire.CategoryValidation, err.Category)
	}
	r, err := wire.DecodeSearchRequest([]byte(` {"version":"tool-search.v1","query":"q","limit":3,"product_ids":["chat"]}` + "\n"))
	require.Nil(t, err)
	require.Equal(t, wire.SearchRequest{Version: wire.SearchVersion, Query: "q", Limit: 3, ProductIDs: []string{"chat"}}, r)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func TestErrorJSON(t *testing.T) {
	got := string(wire.Validation("invalid_limit", "limit <b> & more").AppendJSON(nil))
	require.Equal(t, `{"error":{"category":"validation","code":3,"message":"limit \u003cb\u003e \u0026 more","reason":"invalid_limit"}}`, got)
	require.Equal(t, `{"error":{"category":"discovery","code":6,"message":"m"}}`, string((&wire.Error{Category: "discovery", Code: 6, Message: "m"}).AppendJSON(nil)))
}

// TestResponseEncodingMatchesEncodingJSON encodes responses with the hand
// encoder and with encoding/json over mirror types carrying the reference's
// tags; the bytes must agree.
func TestResponseEncodingMatchesEncodingJSON(t *testing.T) {
	type ref struct {
		CanonicalPath   string         `json:"canonical_path"`
		PrimaryCLIPath  string         `json:"primary_cli_path,omitempty"` // every DWS tool has one; generic tools have none
		ProductID       string         `json:"product_id"`
		Title           string         `json:"title,omitempty"`
		AgentSummary    string         `json:"agent_summary,omitempty"`
		Effect          string         `json:"effect,omitempty"`
		Risk            string         `json:"risk,omitempty"`
		Confirmation    string         `json:"confirmation,omitempty"`
		Idempotency     string         `json:"idempotency,omitempty"`
		Rank            int            `json:"rank"`
		MatchedFields   []string       `json:"matched_fields,omitempty"`
		RankSources     []string       `json:"rank_sources"`
		TruncatedFields []string       `json:"truncated_fields,omitempty"`
		RequiresInspect bool           `json:"requires_inspect"`
		ScoreBreakdown  map[string]any `json:"score_breakdown,omitempty"`
	}
	type response struct {
		Version string `json:"version"`
		Catalog struct {
			SourceHash  string `json:"source_hash"`
			SurfaceHash string `json:"surface_hash"`
		} `json:"catalog"`
		Query         string            `json:"query"`
		Subqueries    []string          `json:"subqueries,omitempty"`
		Strategy      string            `json:"strategy"`
		Candidates    []ref             `json:"candidates"`
		ExactFiltered map[string]string `json:"exact_filtered,omitempty"`
		Abstained     bool              `json:"abstained,omitempty"`
		WeakMatch     bool              `json:"weak_match,omitempty"`
		Hint          string            `json:"hint,omitempty"`
		Truncated     bool              `json:"truncated,omitempty"`
	}
	ours := wire.SearchResponse{
		Version: wire.SearchVersion, Catalog: catalog.VersionRef{SourceHash: "s<1>", SurfaceHash: "t&2"},
		Query: "发送 <消息> \u2028", Subqueries: []string{"a", "b"}, Strategy: "fielded_bm25_ensemble",
		Candidates: []wire.ToolReference{
			{CanonicalPath: "chat.send", PrimaryCLIPath: "chat send", ProductID: "chat", Title: "发送", Effect: "write",
				Rank: 1, MatchedFields: []string{"identity", "summary"}, RankSources: []string{"x"}, RequiresInspect: true,
				ScoreBreakdown: &wire.ScoreBreakdown{Score: 12.5e-7, FieldScores: []wire.FieldScore{{"summary", 2.25}, {"identity", 1e21}}, AvoidWhenPenalty: "不要"}},
			{CanonicalPath: "doc.read", ProductID: "doc", Rank: 2, TruncatedFields: []string{"title"}},
		},
		ExactFiltered: &wire.ExactFiltered{CanonicalPath: "a.b", Reason: "excluded"},
		Abstained:     true, WeakMatch: true, Hint: "提示 & more", Truncated: true,
	}
	var mirror response
	mirror.Version, mirror.Query, mirror.Subqueries, mirror.Strategy = ours.Version, ours.Query, ours.Subqueries, ours.Strategy
	mirror.Catalog.SourceHash, mirror.Catalog.SurfaceHash = ours.Catalog.SourceHash, ours.Catalog.SurfaceHash
	mirror.Candidates = []ref{
		{CanonicalPath: "chat.send", PrimaryCLIPath: "chat send", ProductID: "chat", Title: "发送", Effect: "write",
			Rank: 1, MatchedFields: []string{"identity", "summary"}, RankSources: []string{"x"}, RequiresInspect: true,
			ScoreBreakdown: map[string]any{"score": 12.5e-7, "field_scores": map[string]float64{"summary": 2.25, "identity": 1e21}, "avoid_when_penalty": "不要"}},
		{CanonicalPath: "doc.read", ProductID: "doc", Rank: 2, TruncatedFields: []string{"title"}},
	}
	mirror.ExactFiltered = map[string]string{"canonical_path": "a.b", "reason": "excluded"}
	mirror.Abstained, mirror.WeakMatch, mirror.Hint, mirror.Truncated = true, true, ours.Hint, true
	want, err := json.Marshal(mirror)
	require.NoError(t, err)
	// encoding/json writes map keys in order; the breakdown's own keys are
	// score, field_scores, avoid_when_penalty in the reference's struct order.
	wantText := strings.Replace(string(want), `"score_breakdown":{"avoid_when_penalty":"不要","field_scores":{"identity":1e+21,"summary":2.25},"score":0.00000125}`,
		`"score_breakdown":{"score":0.00000125,"field_scores":{"identity":1e+21,"summary":2.25},"avoid_when_penalty":"不要"}`, 1)
	got, err := ours.AppendJSON(nil)
	require.NoError(t, err)
	require.Equal(t, wantText, string(got))

	empty := wire.SearchResponse{Version: wire.SearchVersion, Strategy: "s", Candidates: nil}
	got, _ = empty.AppendJSON(nil)
	require.Contains(t, string(got), `"candidates":[]`)
}

func FuzzDecodeSearchRequest(f *testing.F) {
	for _, seed := range []string{
		`{"version":"tool-search.v1","query":"给群里发送消息","limit":5}`,
		`{"version":"tool-search.v1","subqueries":["a","b"],"product_ids":["chat"],"effects":["READ"],"exclude_canonical":["x.y"]}`,
		`{"Version":"tool-search.v1","QUERY":"case-insensitive keys"}`,
		`{"version":"tool-search.v1","query":"q","query":"dup"}`,
		`{"version":"tool-search.v1","limit":1e400}`,
		`[]`, `"s"`, `{}`, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := wire.DecodeSearchRequest(data)
		if err != nil {
			if err.Category != wire.CategoryValidation || err.Reason == "" {
				t.Fatalf("untyped refusal %+v", err)
			}
			return
		}
		if r.Version != wire.SearchVersion {
			t.Fatalf("accepted version %q", r.Version)
		}
	})
}

func FuzzDecodeInspectRequest(f *testing.F) {
	f.Add([]byte(`{"version":"schema-inspect.v1","canonical_path":"chat.send","expected_source_hash":"a","expected_surface_hash":"b"}`))
	f.Add([]byte(`{"version":"schema-inspect.v1","extra":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := wire.DecodeInspectRequest(data)
		if err != nil {
			if err.Category != wire.CategoryValidation || err.Reason == "" {
				t.Fatalf("untyped refusal %+v", err)
			}
			return
		}
		if r.Version != wire.InspectVersion {
			t.Fatalf("accepted version %q", r.Version)
		}
	})
}
