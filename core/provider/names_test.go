package provider_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/provider"
)

// validName is both providers' rule for a tool (and OpenAI namespace) name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type shownName struct {
	CanonicalPath string `json:"canonical_path"`
	Namespace     string `json:"namespace"`
	Name          string `json:"name"`
}

func do(t *testing.T, e *engine.Engine, request string) string {
	t.Helper()
	out, err := provider.Do(nil, e, []byte(request))
	require.NoError(t, err, request)
	return string(out)
}

func namesTable(t *testing.T, e *engine.Engine, p string) []shownName {
	t.Helper()
	var table []shownName
	require.NoError(t, json.Unmarshal([]byte(do(t, e, fmt.Sprintf(`{"op":"names","provider":%q}`, p))), &table))
	require.Len(t, table, e.ToolCount())
	return table
}

// checkNames: every name a provider is shown is valid, unique in its list
// (Anthropic: one list; OpenAI: the top level, and each namespace), found
// again by resolve_name, and a search for it loads that tool alone.
func checkNames(t *testing.T, e *engine.Engine) map[string]map[string]string {
	t.Helper()
	shown := map[string]map[string]string{}
	for _, p := range []string{"anthropic", "openai"} {
		shown[p] = map[string]string{}
		seen := map[string]string{}
		for _, n := range namesTable(t, e, p) {
			require.Regexp(t, validName, n.Name, "%s: %s", p, n.CanonicalPath)
			key := n.Namespace + "\x00" + n.Name
			require.NotContains(t, seen, key, "%s: %s and %s share %q", p, seen[key], n.CanonicalPath, n.Name)
			seen[key] = n.CanonicalPath
			if n.Namespace != "" {
				require.Regexp(t, validName, n.Namespace)
				shown[p][n.CanonicalPath] = n.Namespace + "." + n.Name
			} else {
				shown[p][n.CanonicalPath] = n.Name
			}
			var back struct {
				CanonicalPath string `json:"canonical_path"`
			}
			req, _ := json.Marshal(map[string]string{"op": "resolve_name", "provider": p, "name": n.Name, "namespace": n.Namespace})
			require.NoError(t, json.Unmarshal([]byte(do(t, e, string(req))), &back))
			require.Equal(t, n.CanonicalPath, back.CanonicalPath)
		}
		// OpenAI: a namespace and a top-level function never share a name.
		if p == "openai" {
			for key, path := range seen {
				ns, name, _ := strings.Cut(key, "\x00")
				if ns == "" {
					for key2 := range seen {
						ns2, _, _ := strings.Cut(key2, "\x00")
						require.NotEqual(t, name, ns2, "function %s is named like a namespace", path)
					}
				}
			}
		}
	}
	for path, name := range shown["anthropic"] {
		use, _ := json.Marshal(map[string]any{"op": "answer_tool_use", "block": map[string]any{"type": "tool_use", "id": "toolu_n", "input": map[string]any{"query": name}}})
		var result struct {
			Content []struct {
				ToolName string `json:"tool_name"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal([]byte(do(t, e, string(use))), &result))
		require.Len(t, result.Content, 1, "searching %q (%s)", name, path)
		require.Equal(t, name, result.Content[0].ToolName)
	}
	for path, name := range shown["openai"] {
		call, _ := json.Marshal(map[string]any{"op": "answer_tool_search_call", "item": map[string]any{"type": "tool_search_call", "call_id": "c", "arguments": map[string]any{"query": name}}})
		out := do(t, e, string(call))
		var output struct {
			Tools []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &output))
		var loaded []string
		for _, tool := range output.Tools {
			if tool.Type == "namespace" {
				for _, m := range tool.Tools {
					loaded = append(loaded, tool.Name+"."+m.Name)
				}
			} else {
				loaded = append(loaded, tool.Name)
			}
		}
		require.Equal(t, []string{name}, loaded, "searching %q (%s)", name, path)
	}
	return shown
}

func importEngine(t *testing.T, format, data string) *engine.Engine {
	t.Helper()
	snap, _, err := provider.Import(format, []byte(data))
	require.NoError(t, err)
	e, err := compile.Open(snap)
	require.NoError(t, err)
	return e
}

func TestProviderNamesAreValidUniqueAndResolve(t *testing.T) {
	for _, c := range []struct{ format, file string }{
		{"mcp", "mcp-names.json"}, {"anthropic", "anthropic-names.json"},
		{"openai", "openai-tools.json"}, {"anthropic", "anthropic-tools.json"}, {"mcp", "../mcp/github-slack.json"},
	} {
		t.Run(c.file, func(t *testing.T) {
			e, _, _ := open(t, c.format, c.file)
			shown := checkNames(t, e)
			t.Logf("%v", shown)
		})
	}
}

// Server a's tool b__c and server a__b's tool c would both be a__b__c for
// Anthropic: both are renamed, each from its own canonical path, so
// neither name depends on which came first; alone, each keeps its name.
func TestCollidingNamesAreAllRenamed(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"description":"d","inputSchema":{"type":"object"}}`, name)
	}
	both := importEngine(t, "mcp", `{"servers":{"a":{"tools":[`+tool("b__c")+`]},"a__b":{"tools":[`+tool("c")+`]}}}`)
	table := namesTable(t, both, "anthropic")
	require.Len(t, table, 2)
	for _, n := range table {
		require.Regexp(t, `^a__b__c_[0-9a-f]{8}$`, n.Name)
	}
	require.NotEqual(t, table[0].Name, table[1].Name)
	reversed := importEngine(t, "mcp", `{"servers":{"a__b":{"tools":[`+tool("c")+`]},"a":{"tools":[`+tool("b__c")+`]}}}`)
	require.Equal(t, table, namesTable(t, reversed, "anthropic"))

	alone := importEngine(t, "mcp", `{"servers":{"a":{"tools":[`+tool("b__c")+`]}}}`)
	require.Equal(t, "a__b__c", namesTable(t, alone, "anthropic")[0].Name)
	checkNames(t, both)
}

// A name made by renaming that another tool already has takes a longer
// hash instead: names stay unique.
func TestRenamedNameNeverTakesAKeptOne(t *testing.T) {
	first := importEngine(t, "anthropic", `[{"name":"get.x","description":"d","input_schema":{"type":"object"}}]`)
	renamed := namesTable(t, first, "anthropic")[0].Name
	require.Regexp(t, `^get_x_[0-9a-f]{8}$`, renamed)
	e := importEngine(t, "anthropic", fmt.Sprintf(`[{"name":"get.x","description":"d","input_schema":{"type":"object"}},{"name":%q,"description":"e","input_schema":{"type":"object"}}]`, renamed))
	table := namesTable(t, e, "anthropic")
	require.Equal(t, "tools.get.x", table[0].CanonicalPath)
	require.Regexp(t, `^get_x_[0-9a-f]{16}$`, table[0].Name)
	require.True(t, strings.HasPrefix(table[0].Name, renamed))
	require.Equal(t, renamed, table[1].Name, "the valid name another tool has stays")
	checkNames(t, e)
}

func TestResolveNameRefusals(t *testing.T) {
	e, _, _ := open(t, "mcp", "mcp-names.json")
	for request, reason := range map[string]string{
		`{"op":"resolve_name","provider":"anthropic","name":"nope"}`:                 "unknown_name",
		`{"op":"resolve_name","provider":"anthropic","name":""}`:                     "unknown_name",
		`{"op":"resolve_name","provider":"anthropic","name":"a__c","namespace":"a"}`: "unexpected_field",
		`{"op":"resolve_name","provider":"openai","name":"weather"}`:                 "unknown_name",
		`{"op":"resolve_name","provider":"gemini","name":"x"}`:                       "unknown_provider",
		`{"op":"names","provider":"openai","name":"x"}`:                              "unexpected_field",
		`{"op":"anthropic_search_tool","name":"a__tool_search"}`:                     "name_taken",
	} {
		_, err := provider.Do(nil, e, []byte(request))
		require.ErrorContains(t, err, reason, request)
	}
}

// Random catalogs of names made to collide: servers and tools named from
// a few pieces ("a", "b", "__", ".", " ", "/", "é", a long run), so that
// product__name joins meet, sanitized names meet kept ones, and cuts meet.
func TestRandomNamesStayValidAndUnique(t *testing.T) {
	pieces := []string{"a", "b", "__", "_", ".", " ", "/", "-", "é", strings.Repeat("x", 40)}
	seed := uint64(36)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	word := func() string {
		var b strings.Builder
		for k := 1 + next(4); k > 0; k-- {
			b.WriteString(pieces[next(len(pieces))])
		}
		return b.String()
	}
	opened := 0
	for round := 0; round < 40; round++ {
		servers := map[string][]string{}
		for k := 2 + next(4); k > 0; k-- {
			server := strings.Trim(word(), " ")
			for j := 1 + next(5); j > 0; j-- {
				servers[server] = append(servers[server], word())
			}
		}
		var b strings.Builder
		b.WriteString(`{"servers":{`)
		first := true
		order := make([]string, 0, len(servers))
		for server := range servers {
			order = append(order, server)
		}
		sort.Strings(order)
		for _, server := range order {
			tools := servers[server]
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, `%q:{"tools":[`, server)
			seen := map[string]bool{}
			k := 0
			for _, name := range tools {
				if seen[name] || strings.TrimSpace(name) == "" {
					continue
				}
				seen[name] = true
				if k > 0 {
					b.WriteString(",")
				}
				k++
				fmt.Fprintf(&b, `{"name":%q,"description":"tool %d","inputSchema":{"type":"object"}}`, name, k)
			}
			b.WriteString("]}")
		}
		b.WriteString("}}")
		snap, _, err := provider.Import("mcp", []byte(b.String()))
		if err != nil {
			continue // a server the importer refuses (an empty or clashing name)
		}
		e, err := compile.Open(snap)
		require.NoError(t, err)
		checkNames(t, e)
		opened++
	}
	require.Greater(t, opened, 20, "most random catalogs import")
}

// Any server and tool names the importer takes are shown valid and unique,
// resolve back, and are found by a search for them.
func FuzzProviderNames(f *testing.F) {
	f.Add("a", "b__c", "a__b", "c")
	f.Add("my.server", "files.read", "my_server", "files_read")
	f.Add("s", strings.Repeat("x", 70), "s_", strings.Repeat("x", 71))
	f.Add("天气", "预报", "t", "tool_search")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2 string) {
		catalog, _ := json.Marshal(map[string]any{"servers": map[string]any{
			s1: map[string]any{"tools": []any{map[string]any{"name": t1, "description": "first tool", "inputSchema": map[string]any{"type": "object"}}}},
			s2: map[string]any{"tools": []any{map[string]any{"name": t2, "description": "second tool", "inputSchema": map[string]any{"type": "object"}}}},
		}})
		snap, _, err := provider.Import("mcp", catalog)
		if err != nil {
			return
		}
		e, err := compile.Open(snap)
		if err != nil {
			return
		}
		checkNames(t, e)
	})
}

// Names made to equal a renamed name at every length of digits cannot make
// two tools share a name: the last of them is renamed too.
func TestNamesMadeToCollideAtEveryLength(t *testing.T) {
	sum := sha256.Sum256([]byte("tools.get.x"))
	digits := hex.EncodeToString(sum[:])
	tools := []string{`{"name":"get.x","description":"d","input_schema":{"type":"object"}}`}
	for _, n := range []int{8, 16, 32, 48, 56} {
		prefix := "get_x"
		tools = append(tools, fmt.Sprintf(`{"name":%q,"description":"made to collide","input_schema":{"type":"object"}}`, prefix+"_"+digits[:n]))
	}
	e := importEngine(t, "anthropic", "["+strings.Join(tools, ",")+"]")
	table := namesTable(t, e, "anthropic")
	require.Len(t, table, 6)
	checkNames(t, e)
	require.Equal(t, "get_x_"+digits[:56], func() string {
		for _, n := range table {
			if n.CanonicalPath == "tools.get.x" {
				return n.Name
			}
		}
		return ""
	}(), "the renamed tool took the longest digits")
}
