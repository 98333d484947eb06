package provider_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/provider"
	"github.com/toolsift/toolsift/core/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/provider/golden.jsonl from this engine")

const dir = "../../testdata/provider"

// catalogs are the tool lists of the golden file, by the name its lines use.
var catalogs = []struct{ name, format, file string }{
	{"openai", "openai", "openai-tools.json"},
	{"anthropic", "anthropic", "anthropic-tools.json"},
	{"mcp", "mcp", "../mcp/github-slack.json"},
	// names no provider takes as they are: shared, with "." "/" " ",
	// over 64 bytes, not ASCII (provider names, names.go)
	{"mcp-names", "mcp", "mcp-names.json"},
	{"anthropic-names", "anthropic", "anthropic-names.json"},
}

// catalogCalls are requests replayed over one catalog only: names that
// only it shows.
var catalogCalls = map[string][]string{
	"mcp": {
		`{"op":"resolve_name","provider":"anthropic","name":"github__create_issue"}`,
		`{"op":"resolve_name","provider":"openai","namespace":"github","name":"create_issue"}`,
		`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_n1","name":"tool_search","input":{"query":"github__create_issue"}}}`,
	},
	"mcp-names": {
		`{"op":"resolve_name","provider":"anthropic","name":"a__b__c_44b440f7"}`,
		`{"op":"resolve_name","provider":"anthropic","name":"a__b__c_57a76311"}`,
		`{"op":"resolve_name","provider":"anthropic","name":"a__b__c"}`,
		`{"op":"resolve_name","provider":"openai","namespace":"a","name":"files_read_46529020"}`,
		`{"op":"resolve_name","provider":"openai","namespace":"a","name":"files.read"}`,
		`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_n1","name":"tool_search","input":{"query":"a__b__c_57a76311"}}}`,
		`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_n2","name":"tool_search","input":{"query":"read a file"}}}`,
		`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_n1","arguments":{"query":"a.files_write_4fdc6cfb"}}}`,
		`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_n2","arguments":{"query":"weather forecast"}}}`,
		`{"op":"anthropic_search_tool","name":"a__tool_search"}`,
	},
	"anthropic-names": {
		`{"op":"resolve_name","provider":"anthropic","name":"files_read_fc0488e0"}`,
		`{"op":"resolve_name","provider":"anthropic","name":"files_read"}`,
		`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_n1","name":"tool_search","input":{"query":"files_read_fc0488e0"}}}`,
	},
}

// calls are the provider requests replayed over every catalog.
var calls = []string{
	`{"op":"openai_tool_search_tool"}`,
	`{"op":"anthropic_search_tool"}`,
	`{"op":"anthropic_search_tool","name":"find_tools"}`,
	`{"op":"definitions","provider":"openai"}`,
	`{"op":"definitions","provider":"anthropic"}`,
	`{"op":"names","provider":"openai"}`,
	`{"op":"names","provider":"anthropic"}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","id":"tsc_1","call_id":"call_1","execution":"client","status":"completed","arguments":{"query":"change a customer's email address"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_2","execution":"client","arguments":{"query":"search_flights"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_3","arguments":"{\"query\":\"post a message to a channel\",\"limit\":2}"}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_4","arguments":{"query":"create an issue or a ticket","subqueries":["create an issue","book a meeting"]}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_5","arguments":{"query":"list things","namespaces":["calendar","crm"]}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_6","arguments":{"query":"delete or remove","effects":["destructive"]}},"budget_tokens":100}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_7","arguments":{"query":"search"}},"budget_tokens":120}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_1","name":"tool_search","input":{"query":"post a message to a slack channel"}}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_2","name":"tool_search","input":{"query":"github_create_issue"}}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_3","name":"tool_search","input":{"query":"search","limit":4}},"budget_tokens":150}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_4","name":"tool_search","input":{"query":"zzzz qqqq"}}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_5","name":"tool_search","input":{"pattern":"^(slack|github)_"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_s1","arguments":{"query":"customer email"}},"session":{}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_s1","name":"tool_search","input":{"query":"slack"}},"session":{"max_tools":1}}`,
	// refusals
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_x","name":"tool_search","input":{"query":"slack"}},"session":{"max_bytes":-5}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_x","name":"tool_search","input":{"pattern":"(a)\\1"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","arguments":{"pattern":"[^\\x01]{0,1000}\\x01"}}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","id":"toolu_x","name":"tool_search","input":{"query":"slack"}},"session":{"max_bytes":1500,"loaded":[{"path":"a.b","bytes":4611686018427387904},{"path":"a.c","bytes":4611686018427387904},{"path":"a.d","bytes":4611686018427387904},{"path":"a.e","bytes":4611686018427387904}]}}`,
	`{"op":"answer_tool_search_call","item":{"type":"function_call","call_id":"call_x","arguments":{"query":"x"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","execution":"server","arguments":{"query":"x"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","arguments":{"query":"x"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","arguments":{"query":"x","qurey":"y"}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","arguments":{"query":""}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","arguments":{"query":"x","limit":500}}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x"}}`,
	`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"call_x","arguments":{"query":"x"}},"budget_tokens":-1}`,
	`{"op":"answer_tool_use","block":{"type":"text","id":"toolu_x","input":{"query":"x"}}}`,
	`{"op":"answer_tool_use","block":{"type":"tool_use","input":{"query":"x"}}}`,
	`{"op":"anthropic_search_tool","name":"tool search"}`,
	`{"op":"definitions","provider":"gemini"}`,
	`{"op":"names","provider":"gemini"}`,
	`{"op":"resolve_name","provider":"anthropic","name":"no_such_tool"}`,
	`{"op":"resolve_name","provider":"anthropic","name":"x","namespace":"crm"}`,
	`{"op":"resolve_name","provider":"openai","name":"x","budget_tokens":5}`,
	`{"op":"definitions","provider":"openai","item":{}}`,
	`{"op":"answer_everything"}`,
	`{"op":"openai_tool_search_tool","extra":1}`,
	`{}`,
	`not json`,
}

type goldenLine struct {
	Catalog        string          `json:"catalog"`
	Import         *importCase     `json:"import,omitempty"`
	Report         string          `json:"report,omitempty"`
	SnapshotSHA256 string          `json:"snapshot_sha256,omitempty"`
	Request        json.RawMessage `json:"request,omitempty"`
	Response       *string         `json:"response,omitempty"`
	Error          *goldenError    `json:"error,omitempty"`
}

type importCase struct {
	Format string `json:"format"`
	File   string `json:"file"`
}

type goldenError struct {
	Category string `json:"category"`
	Reason   string `json:"reason"`
}

// open builds a catalog's snapshot as every host does (provider.Import,
// the module's toolsift_import_tools) and opens it.
func open(t testing.TB, format, file string) (*engine.Engine, []byte, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	snap, report, err := provider.Import(format, data)
	require.NoError(t, err)
	e, err := compile.Open(snap)
	require.NoError(t, err)
	return e, snap, report
}

func golden(t *testing.T) []goldenLine {
	var lines []goldenLine
	for _, c := range catalogs {
		e, snap, report := open(t, c.format, c.file)
		sum := sha256.Sum256(snap)
		lines = append(lines, goldenLine{Catalog: c.name, Import: &importCase{Format: c.format, File: c.file}, Report: string(report), SnapshotSHA256: hex.EncodeToString(sum[:])})
		for _, call := range append(calls[:len(calls):len(calls)], catalogCalls[c.name]...) {
			line := goldenLine{Catalog: c.name, Request: requestJSON(call)}
			out, err := provider.Do(nil, e, []byte(call))
			if err != nil {
				var werr *wire.Error
				require.True(t, errors.As(err, &werr), "%s: %v is not a *wire.Error", call, err)
				line.Error = &goldenError{Category: werr.Category, Reason: werr.Reason}
			} else {
				require.True(t, json.Valid(out), "%s: %s", call, out)
				s := string(out)
				line.Response = &s
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// requestJSON stores a request as JSON when it is JSON, else as a string.
func requestJSON(call string) json.RawMessage {
	if json.Valid([]byte(call)) {
		return json.RawMessage(call)
	}
	quoted, _ := json.Marshal(call)
	return quoted
}

// The golden file is what the Node and Python bindings replay byte for
// byte; here the native engine must give it too.
func TestGolden(t *testing.T) {
	lines := golden(t)
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		require.NoError(t, err)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := filepath.Join(dir, "golden.jsonl")
	if *update {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	gotLines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Equal(t, len(wantLines), len(gotLines), "golden.jsonl is stale: go test ./core/provider -update")
	for i := range wantLines {
		require.Equal(t, wantLines[i], gotLines[i], "line %d (go test ./core/provider -update to regenerate)", i+1)
	}
}

// The import keeps only the deferred tools and names the rest.
func TestImportIndexesOnlyDeferredTools(t *testing.T) {
	e, _, report := open(t, "openai", "openai-tools.json")
	require.Equal(t, 9, e.ToolCount())
	var r struct {
		AlwaysLoaded []string `json:"always_loaded"`
	}
	require.NoError(t, json.Unmarshal(report, &r))
	require.Equal(t, []string{"web_search", "get_weather"}, r.AlwaysLoaded)

	e, _, report = open(t, "anthropic", "anthropic-tools.json")
	require.Equal(t, 6, e.ToolCount())
	require.NoError(t, json.Unmarshal(report, &r))
	require.Equal(t, []string{"web_search_20250305", "get_time"}, r.AlwaysLoaded)

	// A list that marks nothing deferred is indexed whole.
	data := []byte(`[{"type":"function","name":"a","description":"first","parameters":{"type":"object"}},{"type":"function","name":"b","description":"second"}]`)
	snap, report, err := provider.Import("openai", data)
	require.NoError(t, err)
	all, err := compile.Open(snap)
	require.NoError(t, err)
	require.Equal(t, 2, all.ToolCount())
	require.NotContains(t, string(report), "always_loaded")

	_, _, err = provider.Import("dws", data)
	require.ErrorContains(t, err, "unknown_format")
	_, _, err = provider.Import("openai", []byte(`{"tools": 3}`))
	require.ErrorContains(t, err, "invalid_catalog")
}

// A Chat Completions tool is returned in the Responses shape, and a kept
// definition verbatim (compact, keys sorted), strict flag included.
func TestDefinitionsAreTheImportedOnes(t *testing.T) {
	e, _, _ := open(t, "openai", "openai-tools.json")
	out, err := provider.Do(nil, e, []byte(`{"op":"answer_tool_search_call","item":{"type":"tool_search_call","call_id":"c","arguments":{"query":"convert_currency"}}}`))
	require.NoError(t, err)
	var item struct {
		Tools []map[string]any `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(out, &item))
	require.Len(t, item.Tools, 1, "an exact name loads that tool alone")
	require.Equal(t, "convert_currency", item.Tools[0]["name"])
	require.Equal(t, "function", item.Tools[0]["type"])
	require.Equal(t, true, item.Tools[0]["defer_loading"])
	require.NotContains(t, item.Tools[0], "function")
}

// transcriptOpenAI replays a recorded Responses conversation: each
// tool_search_call is answered by the engine, and the next turn's function
// call must name a tool that answer loaded, with the loaded definitions
// exactly the engine's ranking cut to the budget.
func TestOpenAITranscript(t *testing.T) {
	var tr struct {
		Catalog      string `json:"catalog"`
		BudgetTokens int    `json:"budget_tokens"`
		Turns        []struct {
			Output []json.RawMessage `json:"output"`
		} `json:"turns"`
	}
	readJSON(t, "openai-transcript.json", &tr)
	e, _, _ := open(t, "openai", tr.Catalog)
	loaded := map[string]map[string]any{} // "namespace.name" → definition
	calls := 0
	for _, turn := range tr.Turns {
		for _, raw := range turn.Output {
			var item map[string]any
			require.NoError(t, json.Unmarshal(raw, &item))
			switch item["type"] {
			case "tool_search_call":
				request, err := json.Marshal(map[string]any{"op": "answer_tool_search_call", "item": json.RawMessage(raw), "budget_tokens": tr.BudgetTokens})
				require.NoError(t, err)
				out, err := provider.Do(nil, e, request)
				require.NoError(t, err)
				var answer struct {
					CallID string            `json:"call_id"`
					Tools  []json.RawMessage `json:"tools"`
				}
				require.NoError(t, json.Unmarshal(out, &answer))
				require.Equal(t, item["call_id"], answer.CallID)
				toolsJSON, err := json.Marshal(answer.Tools)
				require.NoError(t, err)
				require.LessOrEqual(t, (len(compact(t, toolsJSON))+3)/4, tr.BudgetTokens, "the loaded definitions fit the budget")

				names := flatten(t, answer.Tools, loaded)
				ranked := rankedPaths(t, e, item["arguments"])
				require.Less(t, len(names), len(ranked), "the budget cut the ranking (else this transcript tests no budget)")
				require.Equal(t, ranked[:len(names)], names, "the loaded tools are the engine's best, in rank order")
			case "function_call":
				calls++
				key := item["name"].(string)
				if ns, ok := item["namespace"].(string); ok {
					key = ns + "." + key
				}
				definition, ok := loaded[key]
				require.True(t, ok, "the model calls %s, which a tool_search_output loaded", key)
				var args map[string]any
				require.NoError(t, json.Unmarshal([]byte(item["arguments"].(string)), &args))
				for _, name := range definition["parameters"].(map[string]any)["required"].([]any) {
					require.Contains(t, args, name, "required argument of %s", key)
				}
			}
		}
	}
	require.Equal(t, 1, calls)
}

// TestAnthropicTranscript replays a recorded Messages conversation the same
// way: the tool_result's tool_reference blocks name the engine's best tools
// within the budget, and the next tool_use calls one of them.
func TestAnthropicTranscript(t *testing.T) {
	var tr struct {
		Catalog      string `json:"catalog"`
		BudgetTokens int    `json:"budget_tokens"`
		Turns        []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"turns"`
	}
	readJSON(t, "anthropic-transcript.json", &tr)
	e, _, _ := open(t, "anthropic", tr.Catalog)
	defsOut, err := provider.Do(nil, e, []byte(`{"op":"definitions","provider":"anthropic"}`))
	require.NoError(t, err)
	var defs []map[string]any
	require.NoError(t, json.Unmarshal(defsOut, &defs))
	byName := map[string]map[string]any{}
	for _, d := range defs {
		byName[d["name"].(string)] = d
	}
	referenced := map[string]bool{}
	uses := 0
	for _, turn := range tr.Turns {
		for _, raw := range turn.Content {
			var block map[string]any
			require.NoError(t, json.Unmarshal(raw, &block))
			if block["type"] != "tool_use" {
				continue
			}
			if block["name"] == "tool_search" {
				request, err := json.Marshal(map[string]any{"op": "answer_tool_use", "block": json.RawMessage(raw), "budget_tokens": tr.BudgetTokens})
				require.NoError(t, err)
				out, err := provider.Do(nil, e, request)
				require.NoError(t, err)
				var result struct {
					ToolUseID string `json:"tool_use_id"`
					Content   []struct {
						Type     string `json:"type"`
						ToolName string `json:"tool_name"`
					} `json:"content"`
				}
				require.NoError(t, json.Unmarshal(out, &result))
				require.Equal(t, block["id"], result.ToolUseID)
				var names []string
				var expanded []map[string]any
				for _, c := range result.Content {
					require.Equal(t, "tool_reference", c.Type)
					require.Contains(t, byName, c.ToolName, "a reference names a deferred tool of the request")
					names = append(names, "tools."+c.ToolName)
					expanded = append(expanded, byName[c.ToolName])
					referenced[c.ToolName] = true
				}
				expandedJSON, err := json.Marshal(expanded)
				require.NoError(t, err)
				require.LessOrEqual(t, (len(compact(t, expandedJSON))+3)/4, tr.BudgetTokens)
				ranked := rankedPaths(t, e, block["input"])
				require.Less(t, len(names), len(ranked), "the budget cut the ranking")
				require.Equal(t, ranked[:len(names)], names)
				continue
			}
			uses++
			name := block["name"].(string)
			require.True(t, referenced[name], "the model calls %s, which a tool_reference loaded", name)
			input := block["input"].(map[string]any)
			for _, req := range byName[name]["input_schema"].(map[string]any)["required"].([]any) {
				require.Contains(t, input, req)
			}
		}
	}
	require.Equal(t, 1, uses)
}

// rankedPaths is the engine's own ranking for the model's arguments.
func rankedPaths(t *testing.T, e *engine.Engine, arguments any) []string {
	t.Helper()
	a := arguments.(map[string]any)
	request := wire.SearchRequest{Version: wire.SearchVersion, Query: a["query"].(string)}
	response, err := e.Search(request)
	require.NoError(t, err)
	var paths []string
	for _, c := range response.Candidates {
		paths = append(paths, c.CanonicalPath)
	}
	return paths
}

// flatten lists an output's tools as canonical paths in order (a namespace
// entry's members under its name), recording each definition in loaded.
func flatten(t *testing.T, tools []json.RawMessage, loaded map[string]map[string]any) []string {
	var paths []string
	for _, raw := range tools {
		var tool map[string]any
		require.NoError(t, json.Unmarshal(raw, &tool))
		if tool["type"] == "namespace" {
			for _, m := range tool["tools"].([]any) {
				member := m.(map[string]any)
				key := tool["name"].(string) + "." + member["name"].(string)
				loaded[key] = member
				paths = append(paths, key)
			}
			continue
		}
		loaded[tool["name"].(string)] = tool
		paths = append(paths, "tools."+tool["name"].(string))
	}
	return paths
}

func compact(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, b))
	return buf.Bytes()
}

func readJSON(t *testing.T, name string, v any) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}

// The module's import result is the report's length, the report, the
// snapshot.
func TestAppendImportLayout(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(dir, "anthropic-tools.json"))
	require.NoError(t, err)
	out, err := provider.AppendImport([]byte{0}, "anthropic", data)
	require.NoError(t, err)
	snap, report, err := provider.Import("anthropic", data)
	require.NoError(t, err)
	n := binary.LittleEndian.Uint32(out[1:5])
	require.Equal(t, report, out[5:5+n])
	require.Equal(t, snap, out[5+n:])
}

// Malformed requests of any shape are typed errors, never panics.
func FuzzDo(f *testing.F) {
	for _, c := range calls {
		f.Add([]byte(c))
	}
	data, err := os.ReadFile(filepath.Join(dir, "openai-tools.json"))
	if err != nil {
		f.Fatal(err)
	}
	snap, _, err := provider.Import("openai", data)
	if err != nil {
		f.Fatal(err)
	}
	e, err := compile.Open(snap)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, request []byte) {
		out, err := provider.Do(nil, e, request)
		if err != nil {
			var werr *wire.Error
			if !errors.As(err, &werr) {
				t.Fatalf("%q: untyped error %v", request, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: invalid JSON %s", request, out)
		}
	})
}
