package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/provider"
)

type sessionAnswer struct {
	Output         json.RawMessage `json:"output"`
	Session        json.RawMessage `json:"session"`
	CatalogChanged bool            `json:"catalog_changed"`
	AlreadyLoaded  []string        `json:"already_loaded"`
	OverCap        []string        `json:"over_cap"`
}

func ask(t *testing.T, do func([]byte) ([]byte, error), op, key, value string, session json.RawMessage) sessionAnswer {
	t.Helper()
	request, err := json.Marshal(map[string]any{"op": op, key: json.RawMessage(value), "session": session})
	require.NoError(t, err)
	out, err := do(request)
	require.NoError(t, err)
	var a sessionAnswer
	require.NoError(t, json.Unmarshal(out, &a))
	return a
}

func loadedPaths(t *testing.T, state json.RawMessage) []string {
	var s struct {
		Loaded []struct {
			Path string `json:"path"`
		} `json:"loaded"`
	}
	require.NoError(t, json.Unmarshal(state, &s))
	var out []string
	for _, l := range s.Loaded {
		out = append(out, l.Path)
	}
	return out
}

// A session loads each tool once, caps the loaded set, and starts again
// when the catalog changes under it.
func TestSessionLoadsOnlyNewTools(t *testing.T) {
	e, _, _ := open(t, "openai", "openai-tools.json")
	do := func(r []byte) ([]byte, error) { return provider.Do(nil, e, r) }
	call := func(id, query string) string {
		return `{"type":"tool_search_call","call_id":"` + id + `","arguments":{"query":"` + query + `","limit":3}}`
	}

	first := ask(t, do, "answer_tool_search_call", "item", call("c1", "customer email"), json.RawMessage(`{}`))
	require.False(t, first.CatalogChanged)
	loaded := loadedPaths(t, first.Session)
	require.Len(t, loaded, 3)
	require.Empty(t, first.AlreadyLoaded)

	// The same search again loads nothing new.
	again := ask(t, do, "answer_tool_search_call", "item", call("c2", "customer email"), first.Session)
	var item struct {
		CallID string            `json:"call_id"`
		Tools  []json.RawMessage `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(again.Output, &item))
	require.Equal(t, "c2", item.CallID)
	require.Empty(t, item.Tools)
	require.Equal(t, loaded, again.AlreadyLoaded)
	require.Equal(t, loaded, loadedPaths(t, again.Session))

	// Caps: two tools at most.
	capped := ask(t, do, "answer_tool_search_call", "item", call("c3", "customer email"), json.RawMessage(`{"max_tools":2}`))
	require.Len(t, loadedPaths(t, capped.Session), 2)
	require.Len(t, capped.OverCap, 1)

	// The state of another catalog: changed, and loaded afresh.
	other, _, _ := open(t, "anthropic", "anthropic-tools.json")
	doOther := func(r []byte) ([]byte, error) { return provider.Do(nil, other, r) }
	moved := ask(t, doOther, "answer_tool_use", "block", `{"type":"tool_use","id":"t1","name":"tool_search","input":{"query":"slack"}}`, first.Session)
	require.True(t, moved.CatalogChanged)
	require.NotContains(t, loadedPaths(t, moved.Session), loaded[0])
	require.NotEmpty(t, loadedPaths(t, moved.Session))

	for _, bad := range []string{`{"max_tools":-1}`, `{"loaded":[{"path":"a","bytes":0}]}`, `{"max_tools":1,"loaded":[{"path":"a","bytes":1},{"path":"b","bytes":1}]}`, `{"extra":1}`, `[]`} {
		request := `{"op":"answer_tool_search_call","item":` + call("c", "x") + `,"session":` + bad + `}`
		_, err := provider.Do(nil, e, []byte(request))
		require.ErrorContains(t, err, "invalid_session", bad)
	}
}
