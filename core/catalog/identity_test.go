package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
)

func TestNormalizeCLIPath(t *testing.T) {
	for in, want := range map[string]string{
		"  dws  chat   message send ": "chat message send",
		"chat\tmessage":               "chat message",
		"dws":                         "",
		"chat.message.send":           "chat.message.send",
		"dwsx chat":                   "dwsx chat",
	} {
		require.Equal(t, want, catalog.NormalizeCLIPath(in), in)
	}
	for in, want := range map[string]string{
		"dws chat.message.read-status": "chat message read-status",
		"chat/message/read-status":     "chat message read-status",
		" chat . message ":             "chat message",
		"..":                           "",
	} {
		require.Equal(t, want, catalog.NormalizeQueryCLIPath(in), in)
	}
}

func tool(canonical, cli string, aliases ...string) *catalog.Tool {
	return &catalog.Tool{Identity: catalog.Identity{CanonicalPath: canonical, Path: canonical, CLIPath: cli, PrimaryCLIPath: cli, Aliases: aliases}}
}

func TestIdentityIndexResolves(t *testing.T) {
	tools := []*catalog.Tool{tool("chat.send", "chat message send", "chat deliver"), tool("doc.read", "doc read")}
	tools[1].Identity.SourceProductID = "legacy"
	tools[1].Identity.Name = "read"
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	for q, want := range map[string]int{
		"chat.send": 0, " chat.send ": 0, "chat message send": 0, "dws chat message send": 0,
		"chat deliver": 0, "doc.read": 1, "legacy.read": 1,
	} {
		got, ok := idx.Resolve(q)
		require.True(t, ok, q)
		require.Equal(t, want, got, q)
	}
	_, ok := idx.Resolve("chat/message/send")
	require.False(t, ok, "Resolve is strict")
	got, ok := idx.ResolveQuery("chat/message/send")
	require.True(t, ok)
	require.Equal(t, 0, got)
	_, ok = idx.ResolveQuery("Chat.Send")
	require.False(t, ok, "identities are case-sensitive")
}

func TestIdentityIndexBareNames(t *testing.T) {
	named := func(canonical, name string) *catalog.Tool {
		return &catalog.Tool{Identity: catalog.Identity{CanonicalPath: canonical, Path: canonical, Name: name}}
	}
	tools := []*catalog.Tool{
		named("github.create_issue", "create_issue"),
		named("github.search", "search"),
		named("jira.search", "search"),                  // "search" is ambiguous
		named("tools.math.factorial", "math.factorial"), // a bare name with a dot
		named("x.github.search", "github.search"),       // a name that is another tool's canonical path
	}
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	_, ok := idx.Resolve("create_issue")
	require.False(t, ok, "bare names resolve only once indexed")

	idx.IndexBareNames(tools)
	for q, want := range map[string]int{"create_issue": 0, " create_issue ": 0, "math.factorial": 3, "github.search": 1, "jira.search": 2} {
		got, ok := idx.Resolve(q)
		require.True(t, ok, q)
		require.Equal(t, want, got, q)
	}
	_, ok = idx.Resolve("search")
	require.False(t, ok, "an ambiguous bare name resolves to no tool")
	got, ok := idx.ResolveQuery("math.factorial")
	require.True(t, ok)
	require.Equal(t, 3, got)
}

// ResolveQueryIn answers as an index of the kept tools alone would.
func TestResolveQueryInKeepsOnlyItsTools(t *testing.T) {
	named := func(canonical, name string) *catalog.Tool {
		return &catalog.Tool{Identity: catalog.Identity{CanonicalPath: canonical, Path: canonical, Name: name}}
	}
	tools := []*catalog.Tool{
		named("github.create_issue", "create_issue"),
		named("github.search", "search"),
		named("jira.search", "search"),            // "search" is ambiguous
		named("x.github.search", "github.search"), // takes github.search's canonical path as its name
	}
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	idx.IndexBareNames(tools)
	keep := func(positions ...int) func(int) bool {
		return func(pos int) bool { return slices.Contains(positions, pos) }
	}
	for _, c := range []struct {
		query string
		kept  []int
		want  int // -1: no tool
	}{
		{"create_issue", []int{0, 1}, 0},
		{"create_issue", []int{1, 2}, -1},        // its only owner is outside
		{"github.create_issue", []int{1}, -1},    // a canonical path outside
		{"search", []int{0, 1, 2, 3}, -1},        // two kept tools share it
		{"search", []int{0, 2, 3}, 2},            // the other one is outside
		{" search ", []int{1}, 1},                //
		{"github.search", []int{1, 3}, 1},        // the canonical path first
		{"github.search", []int{0, 2, 3}, 3},     // then the bare name, once the path's tool is outside
		{"github/search", []int{0, 1, 2, 3}, -1}, // no CLI path to fall back on
	} {
		got, ok := idx.ResolveQueryIn(c.query, tools, true, keep(c.kept...))
		if c.want < 0 {
			require.False(t, ok, "%q in %v resolved to %d", c.query, c.kept, got)
			continue
		}
		require.True(t, ok, "%q in %v", c.query, c.kept)
		require.Equal(t, c.want, got, "%q in %v", c.query, c.kept)
		all, allOK := idx.ResolveQuery(c.query)
		if slices.Equal(c.kept, []int{0, 1, 2, 3}) {
			require.Equal(t, allOK, ok)
			require.Equal(t, all, got)
		}
	}
	_, ok := idx.ResolveQueryIn("search", tools, false, keep(2))
	require.False(t, ok, "no bare names without the profile's setting")
}

func TestIdentityIndexRefusesCollisions(t *testing.T) {
	for name, tools := range map[string][]*catalog.Tool{
		"duplicate canonical":   {tool("a.x", "a x"), tool("a.x", "a y")},
		"alias is another path": {tool("a.x", "a x"), tool("a.y", "a y", "a x")},
		"same CLI path":         {tool("a.x", "a x"), tool("a.y", "dws a  x")},
		"empty canonical":       {tool("", "a x")},
		"cli differs from primary": {{Identity: catalog.Identity{
			CanonicalPath: "a.x", CLIPath: "a x", PrimaryCLIPath: "a z"}}},
	} {
		_, err := catalog.NewIdentityIndex(tools)
		require.Error(t, err, name)
	}
}

func TestAgentExecutable(t *testing.T) {
	ref := &catalog.InterfaceRef{ProductID: "p", RPCName: "r"}
	for _, tc := range []struct {
		in   catalog.Interface
		want bool
	}{
		{catalog.Interface{Mode: "mcp", Availability: "available", Ref: ref}, true},
		{catalog.Interface{Mode: "mcp", Availability: "available"}, false},
		{catalog.Interface{Mode: "local", Availability: "available"}, true},
		{catalog.Interface{Mode: "local", Availability: "available", Ref: ref}, false},
		{catalog.Interface{Mode: "composite", Availability: "available", Reason: "built from two calls"}, true},
		{catalog.Interface{Mode: "composite", Availability: "available", Reason: "  "}, false},
		{catalog.Interface{Mode: "local", Availability: "unavailable"}, false},
		{catalog.Interface{Mode: "rpc", Availability: "available"}, false},
	} {
		require.Equal(t, tc.want, tc.in.AgentExecutable(), "%+v", tc.in)
	}
}

func TestSurfaceHashIgnoresOrderAndPrimaryAlias(t *testing.T) {
	a, b := tool("chat.send", "chat message send", "chat deliver"), tool("doc.read", "doc read")
	h1 := catalog.SurfaceHash([]*catalog.Tool{a, b})
	require.Equal(t, h1, catalog.SurfaceHash([]*catalog.Tool{b, a}))
	a2 := tool("chat.send", "chat message send", "chat deliver", "dws chat message send")
	require.Equal(t, h1, catalog.SurfaceHash([]*catalog.Tool{a2, b}), "an alias equal to the primary path is not identity")
	a3 := tool("chat.send", "chat message send", "chat post")
	require.NotEqual(t, h1, catalog.SurfaceHash([]*catalog.Tool{a3, b}))
}

func FuzzNormalizeCLIPathFastPath(f *testing.F) {
	for _, seed := range []string{"", "dws", "dws chat", "chat  send", " chat", "chat ", "chat\tsend", "群 聊", "chat\u3000send", "dwsx y", "a b c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		parts := strings.Fields(path)
		if len(parts) > 0 && parts[0] == "dws" {
			parts = parts[1:]
		}
		if want := strings.Join(parts, " "); catalog.NormalizeCLIPath(path) != want {
			t.Fatalf("NormalizeCLIPath(%q) = %q, want %q", path, catalog.NormalizeCLIPath(path), want)
		}
	})
}

// TestResolveQueryWithNonASCIIText: natural-language queries skip the
// normalisations when every key is ASCII, but Unicode spaces still separate,
// and non-ASCII keys (a bare name here) still resolve.
func TestResolveQueryWithNonASCIIText(t *testing.T) {
	tools := []*catalog.Tool{tool("chat.send", "chat message send")}
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	for _, q := range []string{"\u3000chat.send\u00a0", "dws\u3000chat message send", "chat\u2003message\u2003send"} {
		got, ok := idx.ResolveQuery(q)
		require.True(t, ok, "%q", q)
		require.Equal(t, 0, got)
	}
	for _, q := range []string{"给群里发文件", "chat.send群", "chat.sénd", "chat.send\xff"} {
		_, ok := idx.ResolveQuery(q)
		require.False(t, ok, "%q", q)
	}

	named := tool("im.send", "im send")
	named.Identity.Name = "发消息"
	idx, err = catalog.NewIdentityIndex([]*catalog.Tool{named})
	require.NoError(t, err)
	idx.IndexBareNames([]*catalog.Tool{named})
	got, ok := idx.ResolveQuery(" 发消息 ")
	require.True(t, ok)
	require.Equal(t, 0, got)
}

// TestResolveQueryRefusesLongQueriesByLetters: ResolveQuery refuses a
// query with more letters and digits than any key holds plus the program
// name, without normalising it; spaces and separators do not count, so the
// longest key, padded and behind the program name, still resolves, and a
// bare name counts as a key.
func TestResolveQueryRefusesLongQueriesByLetters(t *testing.T) {
	tools := []*catalog.Tool{tool("chat.send", "chat message send"), tool("im.get", "im get")}
	tools[1].Identity.Name = "get_message42"
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	idx.IndexBareNames(tools)
	for q, want := range map[string]int{
		"dws  chat . message\t/ send ": 0, // 18 letters: the longest key's 15 and the program name's
		"dws\tchat/message/send":       0,
		"get_message42":                1,
		" get_message42 ":              1,
	} {
		got, ok := idx.ResolveQuery(q)
		require.True(t, ok, "%q", q)
		require.Equal(t, want, got, "%q", q)
	}
	for _, q := range []string{
		"please send a chat message to the team about the release",
		"dws dws chat message send", // a second program name is not dropped
		"dws chat message sendx",
	} {
		_, ok := idx.ResolveQuery(q)
		require.False(t, ok, "%q", q)
	}
}

// The index's shortcut for a tool with one CLI path and no aliases maps
// exactly what the general path maps: nothing for an empty CLI path, the
// normalized path for one with spaces around it.
func TestIdentityIndexCLIPathShortcut(t *testing.T) {
	tools := []*catalog.Tool{tool("a.none", ""), tool("a.spaced", " a  spaced "), tool("a.plain", "a plain")}
	idx, err := catalog.NewIdentityIndex(tools)
	require.NoError(t, err)
	for q, want := range map[string]int{"a spaced": 1, "dws a spaced": 1, "a plain": 2, "a.none": 0} {
		got, ok := idx.Resolve(q)
		require.True(t, ok, q)
		require.Equal(t, want, got, q)
	}
	_, ok := idx.Resolve("")
	require.False(t, ok, "an empty CLI path names no tool")
}
