package gateway

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The words an untrusted tool's effect is read from: a destructive verb
// anywhere (any inflection), a clearing verb or a write verb leading the
// name or the description; never lower than the annotations.
func TestGuardEffect(t *testing.T) {
	for _, tc := range []struct {
		annotated, name, description string
		trusted                      bool
		want                         string
	}{
		{"read", "delete_all_files", "Lists the files.", false, "destructive"},
		{"read", "delete_all_files", "Lists the files.", true, "read"},
		{"read", "deleteAllFiles", "", false, "destructive"},
		{"read", "tidy", "Tidies up: purges old records.", false, "destructive"},
		{"read", "cleanup", "Removal of stale entries.", false, "destructive"},
		{"read", "db-reset", "", false, "destructive"},
		{"read", "clear_cache", "", false, "destructive"},
		{"read", "summary", "A clear summary of the day.", false, "read"},
		{"read", "create_issue", "Opens an issue.", false, "write"},
		{"read", "notes", "Writes a note.", false, "write"},
		{"read", "read_text_file", "Read the complete contents of a file from the file system as text.", false, "read"},
		{"destructive", "read_text_file", "Read a file.", false, "destructive"},
		{"write", "get_weather", "Get the forecast.", false, "write"},
		{"bogus", "get_weather", "", true, "destructive"},
		{"read", "kill_process", "", false, "destructive"},
		{"read", "stopper", "Overwriting is what it does.", false, "destructive"},
	} {
		got := guardEffect(tc.annotated, tc.trusted, tc.name, tc.description)
		require.Equal(t, tc.want, got, "%+v", tc)
	}
}

// The config file's order comes from its tokens: "b" before "a" stays so,
// a name given twice keeps its first place, and the top-level key is
// matched as encoding/json matches it.
func TestFileOrder(t *testing.T) {
	require.Equal(t, []string{"b", "a", "c"}, fileOrder([]byte(`{"x": [1, {"a": 2}], "mcpServers": {"b": {"command": "x"}, "a": {"url": "u", "nested": {"z": 1}}, "b": {}, "c": {}}}`)))
	require.Equal(t, []string{"z", "y"}, fileOrder([]byte(`{"MCPSERVERS": {"z": {}, "y": {}}}`)))
	require.Equal(t, []string{"s2", "s1"}, fileOrder([]byte(`{"servers": {"s2": {}, "s1": {}}}`)))
	require.Nil(t, fileOrder([]byte(`[1]`)))

	cfg, err := ParseConfig([]byte(`{"mcpServers": {"zeta": {"command": "z", "trusted": true}, "alpha": {"command": "a"}}}`))
	require.NoError(t, err)
	require.Equal(t, []string{"zeta", "alpha"}, cfg.FileOrder)
	require.Equal(t, "alpha", cfg.Servers[0].Name)
	require.False(t, cfg.Servers[0].Trusted)
	require.True(t, cfg.Servers[1].Trusted)
}

// The history remembers a catalog for 10 minutes after it was replaced,
// however long it served, and at most historyLength of them.
func TestHistory(t *testing.T) {
	var h history
	gen := func(i int) *generation {
		return &generation{sourceHash: string(rune('a' + i)), surfaceHash: "s", routes: map[string]route{}}
	}
	h.add(gen(0))
	h.entries[0].replaced = time.Time{} // serving: never expires
	_, ok := h.find("a", "s")
	require.True(t, ok)
	h.add(gen(1))
	h.entries[0].replaced = time.Now().Add(-historyAge - time.Second)
	_, ok = h.find("a", "s")
	require.False(t, ok, "replaced more than historyAge ago")
	_, ok = h.find("b", "s")
	require.True(t, ok)
	for i := 0; i < 2*historyLength; i++ {
		h.add(&generation{sourceHash: string(rune(0x100 + i)), surfaceHash: "s"})
	}
	require.Len(t, h.entries, historyLength)
}

// A reference's rank is rewritten where the wire wrote it, whatever its
// strings hold.
func TestWithRank(t *testing.T) {
	ref := []byte(`{"canonical_path":"a.b","agent_summary":"says \",\"rank\":9 inside","rank":12,"rank_sources":["x"],"requires_inspect":true}`)
	got, ok := withRank(ref, 3)
	require.True(t, ok)
	require.Equal(t, `{"canonical_path":"a.b","agent_summary":"says \",\"rank\":9 inside","rank":3,"rank_sources":["x"],"requires_inspect":true}`, string(got))
	answer := []byte(`{"version":"v","candidates":[{"rank":1},{"rank":2}],"hint":"h"}`)
	start, end, refs, ok := candidatesSpan(answer)
	require.True(t, ok)
	require.Equal(t, `[{"rank":1},{"rank":2}]`, string(answer[start:end]))
	require.Len(t, refs, 2)
}
