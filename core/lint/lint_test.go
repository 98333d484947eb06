package lint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/lint"
	"github.com/toolsift/toolsift/core/provider"
	"github.com/toolsift/toolsift/core/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/lint/trips.golden.json")

const (
	tripsPath  = "../../testdata/lint/trips.json"
	expectPath = "../../testdata/lint/trips.expect.jsonl"
	goldenPath = "../../testdata/lint/trips.golden.json"
)

// open imports a catalog file as the hosts do for lint (MCP tools keep
// their original definitions) and opens it natively.
func open(t testing.TB, format, path string) *engine.Engine {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	snap, _, err := compile.FromCatalog(format, data, importer.Options{ToolSearch: format == "mcp"})
	require.NoError(t, err)
	e, werr := compile.Open(snap)
	require.Nil(t, werr)
	return e
}

func expectations(t testing.TB) []lint.Expectation {
	t.Helper()
	data, err := os.ReadFile(expectPath)
	require.NoError(t, err)
	var out []lint.Expectation
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var x lint.Expectation
		require.NoError(t, json.Unmarshal(line, &x))
		out = append(out, x)
	}
	return out
}

// findings maps check → level → sorted tools ("tool ~ other" for pairs).
func findings(r *lint.Report) map[string][]string {
	out := map[string][]string{}
	for _, f := range r.Findings {
		name := f.Tool
		if f.Other != "" {
			name += " ~ " + f.Other
		}
		out[f.Check+"/"+f.Level] = append(out[f.Check+"/"+f.Level], name)
	}
	return out
}

// TestTrips: testdata/lint/trips.json holds tools built to trip each check
// (and two clean ones); each check reports exactly its tools.
func TestTrips(t *testing.T) {
	e := open(t, "mcp", tripsPath)
	r, err := lint.Run(e, lint.Options{Expect: expectations(t)})
	require.NoError(t, err)
	want := map[string][]string{
		"unreachable/warning": {"store.list_records"},
		"confusable/warning": {
			"store.ListRecords ~ store.list-records", "store.ListRecords ~ store.list__records", "store.ListRecords ~ store.list_records",
			"store.export_ledger ~ store.save_spreadsheet", "store.fetch_user ~ store.get_user",
			"store.list-records ~ store.list__records", "store.list-records ~ store.list_records", "store.list__records ~ store.list_records",
		},
		"description_empty/error":                 {"store.no_text"},
		"description_empty/warning":               {"store.title_only"},
		"description_short/warning":               {"store.create_invoice", "store.get_data"},
		"description_repeats_name/warning":        {"store.create_invoice", "store.get_data"},
		"no_action_word/info":                     {"store.city_climate_zh", "store.city_weather"},
		"parameters_undocumented/info":            {"store.set_mode"},
		"enum_unexplained/info":                   {"store.set_mode"},
		"unannotated/warning":                     {"store.archive_record"},
		"deleting_name_read_only/error":           {"store.delete_record"},
		"deprecated/info":                         {"store.send_mail ~ store.post_message"},
		"deprecated_outranks_replacement/warning": {"store.send_mail ~ store.post_message"},
		"addresses_model/warning":                 {"store.current_time"},
		"directs_other_tool/info":                 {"store.list_folders ~ store.list_drives"},
		"hidden_characters/error":                 {"store.read_note"},
		"hidden_characters/info":                  {"store.show_badge"},
		"expectation/error":                       {"store.convert_currency", "store.list_records"},
		"expectation/info":                        {"store.get_forecast", "store.post_message"},
	}
	got := findings(r)
	for k := range got {
		slices.Sort(got[k])
	}
	require.Equal(t, want, got)

	// The pair nothing but names separates says so; the mutual pair shows
	// the queries each lost to the other.
	for _, f := range r.Findings {
		switch f.Tool + " ~ " + f.Other {
		case "store.ListRecords ~ store.list_records":
			require.Equal(t, []string{"near_duplicate"}, f.Items)
			require.Equal(t, 1000, f.SimilarityPermille)
			require.Empty(t, f.OnlyTool)
			require.Empty(t, f.OnlyOther)
			require.Contains(t, f.Message, "nothing but their names separates them")
		case "store.export_ledger ~ store.save_spreadsheet":
			require.Equal(t, []string{"mutual_first"}, f.Items)
			require.Len(t, f.Queries, 2)
			require.Equal(t, "store.save_spreadsheet", f.Queries[0].Winners[0].Tool)
			require.Equal(t, "store.export_ledger", f.Queries[1].Winners[0].Tool)
		}
		if f.Check == lint.CheckUnreachable {
			for _, q := range f.Queries {
				require.Equal(t, 4, q.Rank, q.Query)
				require.Len(t, q.Winners, 3, q.Query)
				require.Contains(t, q.Winners[0].SharedTerms, "record", q.Query)
			}
		}
	}
	require.Equal(t, []int{2, 0, 4, 3}, []int{r.Expectations[0].Rank, r.Expectations[1].Rank, r.Expectations[2].Rank, r.Expectations[3].Rank})
	require.Equal(t, 2, r.Summary.ExpectationsMet) // ranks 2 and 3
	require.Equal(t, 1, r.Summary.Unreachable)
	require.Equal(t, 8, r.Summary.ConfusablePairs)
	require.True(t, r.FailsAt(lint.Error))
}

// TestGolden: the report's exact bytes, which every host's tests compare
// (hostapi, Python, JS) through the module's "lint" provider op.
func TestGolden(t *testing.T) {
	e := open(t, "mcp", tripsPath)
	request, err := json.Marshal(map[string]any{"op": provider.OpLint, "expect": expectations(t)})
	require.NoError(t, err)
	out, err := provider.Do(nil, e, request)
	require.NoError(t, err)
	again, err := provider.Do(nil, e, request)
	require.NoError(t, err)
	require.Equal(t, out, again, "two runs differ")
	if *update {
		require.NoError(t, os.WriteFile(goldenPath, append(out, '\n'), 0o644))
	}
	golden, err := os.ReadFile(goldenPath)
	require.NoError(t, err)
	require.Equal(t, string(bytes.TrimSuffix(golden, []byte("\n"))), string(out), "stale: go test ./core/lint -run TestGolden -update")
}

// TestNativeCatalog: a tool with no safety at all, and one an agent may
// not run (search never returns it, so it has no self-queries).
func TestNativeCatalog(t *testing.T) {
	r, err := lint.Run(open(t, "toolsift", "../../testdata/lint/native.json"), lint.Options{})
	require.NoError(t, err)
	require.Equal(t, map[string][]string{
		"unannotated/warning": {"ops.scale_service"},
		"not_executable/info": {"ops.drain_node"},
	}, findings(r))
	require.Equal(t, 6, r.Summary.SelfQueries) // two executable tools: summary, first sentence, name words
}

// TestBadExpectations: typed errors, never a partial report.
func TestBadExpectations(t *testing.T) {
	e := open(t, "mcp", tripsPath)
	for _, c := range []struct {
		expect []lint.Expectation
		reason string
	}{
		{[]lint.Expectation{{Query: "weather", Tool: "store.nope"}}, "unknown_tool"},
		{[]lint.Expectation{{Query: "  ", Tool: "store.get_forecast"}}, "invalid_expectation"},
		{[]lint.Expectation{{Query: "a\u202eb", Tool: "store.get_forecast"}}, "dangerous_query_unicode"},
		{make([]lint.Expectation, lint.MaxExpectations+1), "too_many_expectations"},
	} {
		r, err := lint.Run(e, lint.Options{Expect: c.expect})
		require.Nil(t, r)
		var werr *wire.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		require.Equal(t, c.reason, werr.Reason)
	}
	// Through the provider op: unknown members are refused.
	_, err := provider.Do(nil, e, []byte(`{"op":"lint","expect":[{"query":"x","tool":"store.get_data","rank":1}]}`))
	require.Equal(t, "invalid_request_json", wire.ErrorOf(err).Reason)
	_, err = provider.Do(nil, e, []byte(`{"op":"lint","name":"x"}`))
	require.Equal(t, "unexpected_field", wire.ErrorOf(err).Reason)
}

func TestTable(t *testing.T) {
	r, err := lint.Run(open(t, "mcp", tripsPath), lint.Options{Expect: expectations(t)})
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, r.WriteTable(&b))
	table := b.String()
	require.True(t, strings.HasPrefix(table, "toolsift.lint.v1: 28 tools (format mcp, profile generic-v3)"), table)
	// Errors come first; the unreachable tool's searches name the winners
	// and the words they share with the query.
	require.Less(t, strings.Index(table, "error "), strings.Index(table, "warning "))
	require.Contains(t, table, `"list records" (name_words of store.list_records): rank 4, after store.ListRecords (shares list, record)`)
	require.Contains(t, table, `"newest records of the store" → store.list_records: rank 4`)
}

// TestHiddenCharactersInEveryProseField: avoid_when and examples are prose
// an agent reads, so a direction-changing or zero-width character there is
// reported like one in the description (they were once left unchecked).
func TestHiddenCharactersInEveryProseField(t *testing.T) {
	catalog := `{"version": "toolsift-catalog.v1", "products": [{"id": "ops", "name": "Operations",
	  "description": "Tools of the operations team.", "tools": [
	  {"name": "restart_service", "title": "Restart service", "summary": "Restart a service on the production cluster.",
	   "description": "Restarts one service of the production cluster and waits until it answers its health check again.",
	   "interface": "mcp", "safety": {"effect": "write", "risk": "medium", "idempotency": "idempotent"},
	   "avoid_when": ["the service is \u202eyhtlaeh"], "examples": ["restart\u200b the billing service"],
	   "input_schema": {"type": "object", "properties": {"service": {"type": "string", "description": "Service name"}}}}]}]}`
	path := t.TempDir() + "/catalog.json"
	require.NoError(t, os.WriteFile(path, []byte(catalog), 0o644))
	r, err := lint.Run(open(t, "toolsift", path), lint.Options{})
	require.NoError(t, err)
	var hidden []lint.Finding
	for _, f := range r.Findings {
		if f.Check == lint.CheckHiddenCharacters {
			hidden = append(hidden, f)
		}
	}
	require.Len(t, hidden, 1)
	require.Equal(t, "ops.restart_service", hidden[0].Tool)
	require.Equal(t, lint.Error, hidden[0].Level)
	require.Equal(t, []string{"avoid_when[0]: U+202E", "examples[0]: U+200B"}, hidden[0].Items)
}
