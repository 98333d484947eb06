package engine_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

var dwsEngine = sync.OnceValues(func() (*engine.Engine, error) {
	cat, err := fixtures.DWS()
	if err != nil {
		return nil, err
	}
	return engine.New(cat, profile.DWSV1)
})

func newDWSEngine(t testing.TB) *engine.Engine {
	t.Helper()
	e, err := dwsEngine()
	require.NoError(t, err)
	return e
}

func readGolden(t testing.TB, name string) []fixtures.GoldenLine {
	t.Helper()
	lines, err := fixtures.GoldenLines(name)
	require.NoError(t, err)
	return lines
}

func withVersion(t testing.TB, line fixtures.GoldenLine) []byte {
	t.Helper()
	request, err := line.SearchRequest()
	require.NoError(t, err)
	return request
}

// searchBytes runs one JSON request through decode → search → encode.
func searchBytes(e *engine.Engine, request []byte) ([]byte, *wire.Error) {
	decoded, werr := wire.DecodeSearchRequest(request)
	if werr != nil {
		return nil, werr
	}
	response, err := e.Search(decoded)
	if err != nil {
		return nil, wire.ErrorOf(err)
	}
	out, err := response.AppendJSON(nil)
	if err != nil {
		return nil, wire.Internal("encode_failed", err.Error())
	}
	return out, nil
}

func TestSearchConformance(t *testing.T) {
	e := newDWSEngine(t)
	total, identical := 0, 0
	for _, name := range []string{"identity.jsonl.gz", "misc.jsonl.gz", "workflows.jsonl.gz", "intent_use_when.jsonl.gz", "forbidden_avoid_when.jsonl.gz"} {
		lines := readGolden(t, name)
		same := 0
		for i, line := range lines {
			got, werr := searchBytes(e, withVersion(t, line))
			ok := false
			switch {
			case line.Error != nil:
				ok = werr != nil && werr.Category == line.Error.Category && werr.Reason == line.Error.Reason
			case line.WireResponse != nil:
				ok = werr == nil && string(got) == *line.WireResponse
			}
			if ok {
				same++
				continue
			}
			if same+20 > i { // report the first few differences per set
				t.Errorf("%s line %d (%s) request %s\n got: %s %v\nwant: %s %+v", name, i+1, line.Set, line.Request, got, werr, deref(line.WireResponse), line.Error)
			}
		}
		t.Logf("%-32s %5d / %5d identical", name, same, len(lines))
		total += len(lines)
		identical += same
	}
	t.Logf("search conformance: %d / %d identical", identical, total)
	require.Equal(t, total, identical)
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

// inspectErrorCases says how each reference Inspect error case maps onto a
// JSON request. Cases that exercise CLI flags (--all, --fields, --jq,
// --format, omitting --compact) have no JSON form and are not replayed.
var inspectErrorCases = map[string]string{
	"stale_source_hash":       "replay",
	"stale_surface_hash":      "replay",
	"stale_both_hashes":       "replay",
	"only_source_hash":        "replay",
	"only_surface_hash":       "replay",
	"unknown_canonical_path":  "replay: the reference gives no reason code; we add unknown_path",
	"cli_path_single_arg":     "replay",
	"cli_path_tokenized_args": "replay",
	"canonical_split_tokens":  "replay: the reference gives no reason code; we add unknown_path",
	"cli_path_flag":           "replay",
	"product_path":            "replay",
	"no_path":                 "replay",
	"format_json_explicit":    "replay",
	"missing_compact":         "cli flags only",
	"with_all":                "cli flags only",
	"with_fields":             "cli flags only",
	"with_jq":                 "cli flags only",
	"format_table":            "cli flags only",
}

func TestInspectConformance(t *testing.T) {
	e := newDWSEngine(t)
	lines := readGolden(t, "inspect.jsonl.gz")
	total, identical := 0, 0
	for i, line := range lines {
		if line.Set == "inspect_error" {
			how, known := inspectErrorCases[line.Case]
			require.True(t, known, "unclassified inspect case %q", line.Case)
			if how == "cli flags only" {
				continue
			}
		}
		total++
		request, werr := wire.DecodeInspectRequest(line.Request)
		var got []byte
		if werr == nil {
			var err error
			got, err = e.Inspect(request)
			werr = wire.ErrorOf(err)
		}
		ok := false
		switch {
		case line.Error != nil:
			want := line.Error.Reason
			if want == "" {
				want = "unknown_path"
			}
			ok = werr != nil && werr.Category == line.Error.Category && werr.Reason == want
		case line.WireResponse != nil:
			ok = werr == nil && string(got) == *line.WireResponse
		}
		if ok {
			identical++
			continue
		}
		if total-identical <= 5 {
			t.Errorf("inspect line %d (%s %s): got %v\n%s\nwant %+v\n%s", i+1, line.Set, line.Case, werr, clip(got), line.Error, clip([]byte(deref(line.WireResponse))))
		}
	}
	t.Logf("inspect conformance: %d / %d identical", identical, total)
	require.Equal(t, total, identical)
}

func clip(b []byte) string {
	if len(b) > 3000 {
		return fmt.Sprintf("%s… (%d bytes)", b[:3000], len(b))
	}
	return string(b)
}
