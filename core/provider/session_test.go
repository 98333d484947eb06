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

type state struct {
	SourceHash  string `json:"source_hash"`
	SurfaceHash string `json:"surface_hash"`
	MaxTools    int    `json:"max_tools"`
	MaxBytes    int64  `json:"max_bytes"`
	Loaded      []struct {
		Path  string `json:"path"`
		Bytes int64  `json:"bytes"`
	} `json:"loaded"`
}

func decodeState(t *testing.T, raw json.RawMessage) state {
	t.Helper()
	var s state
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

func (s state) total() int64 {
	var n int64
	for _, l := range s.Loaded {
		n += l.Bytes
	}
	return n
}

// A state the host forged cannot bypass a cap: counts that overflow when
// added up, counts over max_bytes, paths the catalog does not hold are
// refused as invalid_session; counts that understate the loaded tools are
// replaced by what their definitions measure, so the cap counts what was
// loaded. (Before, counts summing past 2^63 to a negative total loaded
// 2,265 bytes under max_bytes 1500.)
func TestSessionForgedStates(t *testing.T) {
	e, _, _ := open(t, "openai", "openai-tools.json")
	do := func(r []byte) ([]byte, error) { return provider.Do(nil, e, r) }
	item := func(query string) string {
		return `{"type":"tool_search_call","call_id":"c","arguments":{"query":"` + query + `","limit":2}}`
	}
	genuine := decodeState(t, ask(t, do, "answer_tool_search_call", "item", item("customer email"), json.RawMessage(`{}`)).Session)
	require.Len(t, genuine.Loaded, 2)
	forge := func(edit func(*state)) json.RawMessage {
		s := genuine
		s.Loaded = append(s.Loaded[:0:0], genuine.Loaded...)
		edit(&s)
		raw, err := json.Marshal(s)
		require.NoError(t, err)
		return raw
	}

	// Refused: every count is checked against the cap before it is added.
	for name, forged := range map[string]json.RawMessage{
		"counts that wrap to 0": forge(func(s *state) {
			s.MaxBytes = 1500
			for i := range s.Loaded {
				s.Loaded[i].Bytes = 1 << 62 // 4 × 2^62 = 2^64 wraps to 0
			}
			s.Loaded = append(s.Loaded, s.Loaded...)[:4]
			for i := range s.Loaded {
				s.Loaded[i].Path = genuine.Loaded[i%len(genuine.Loaded)].Path + string(rune('a'+i))
			}
		}),
		"counts that wrap negative": forge(func(s *state) {
			s.MaxBytes = 1500
			s.Loaded[0].Bytes = 1<<63 - 1
			s.Loaded[1].Bytes = 1<<63 - 1
		}),
		"a count over max_bytes": forge(func(s *state) { s.MaxBytes = 1500; s.Loaded[0].Bytes = 1501 }),
		"counts over max_bytes":  forge(func(s *state) { s.MaxBytes = 1500; s.Loaded[0].Bytes, s.Loaded[1].Bytes = 1000, 501 }),
		"a negative count":       forge(func(s *state) { s.Loaded[0].Bytes = -5 }),
		"a path not in the catalog": forge(func(s *state) {
			s.Loaded[0].Path = "tools.no_such_tool"
		}),
		"a count past int64": json.RawMessage(`{"max_bytes":1500,"loaded":[{"path":"x","bytes":1e30}]}`),
	} {
		request := `{"op":"answer_tool_search_call","item":` + item("invoice") + `,"session":` + string(forged) + `}`
		_, err := provider.Do(nil, e, []byte(request))
		require.ErrorContains(t, err, "invalid_session", name)
	}

	// Understated: each loaded tool claims 1 byte under a cap of the
	// claimed total plus one small tool. The counts come back as measured,
	// and nothing loads past the cap.
	understated := forge(func(s *state) {
		for i := range s.Loaded {
			s.Loaded[i].Bytes = 1
		}
		s.MaxBytes = int64(len(s.Loaded)) + 400
	})
	a := ask(t, do, "answer_tool_search_call", "item", item("calendar event flights"), understated)
	after := decodeState(t, a.Session)
	for i, l := range genuine.Loaded {
		require.Equal(t, l, after.Loaded[i], "the count is the definition's")
	}
	require.Len(t, after.Loaded, len(genuine.Loaded), "a state already over its cap loads nothing")
	require.NotEmpty(t, a.OverCap, "%s %v", a.Output, a.AlreadyLoaded)

	// Every answer keeps the loaded set within the caps it loads under.
	for _, maxBytes := range []int64{1, 300, 700, 1500, 4000} {
		s := decodeState(t, ask(t, do, "answer_tool_search_call", "item", item("customer orders"), json.RawMessage(`{"max_bytes":`+itoa(maxBytes)+`}`)).Session)
		require.LessOrEqual(t, s.total(), maxBytes)
		next := decodeState(t, ask(t, do, "answer_tool_search_call", "item", item("calendar event flights sql"), must(json.Marshal(s))).Session)
		require.LessOrEqual(t, next.total(), maxBytes)
	}
}

func must(b []byte, err error) json.RawMessage {
	if err != nil {
		panic(err)
	}
	return b
}

func itoa(n int64) string { return string(must(json.Marshal(n))) }

// FuzzSessionState feeds any bytes as a conversation's session state to an
// answer: a typed refusal, or an answer whose state stays within its caps
// whenever it loaded something (a state already over its caps, made for the
// other provider's shape, loads nothing), with every count positive.
func FuzzSessionState(f *testing.F) {
	e, _, _ := open(f, "openai", "openai-tools.json")
	v := e.Version()
	hashes := `"source_hash":"` + v.SourceHash + `","surface_hash":"` + v.SurfaceHash + `"`
	for _, seed := range []string{
		`{}`, `{"max_tools":1}`, `{"max_bytes":300}`,
		`{` + hashes + `,"max_bytes":1500,"loaded":[{"path":"crm.get_customer_profile","bytes":1}]}`,
		`{` + hashes + `,"max_bytes":1500,"loaded":[{"path":"crm.get_customer_profile","bytes":4611686018427387904},{"path":"crm.delete_customer","bytes":4611686018427387904}]}`,
		`{"max_bytes":1500,"loaded":[{"path":"a.b","bytes":9223372036854775807},{"path":"a.c","bytes":9223372036854775807}]}`,
	} {
		f.Add([]byte(seed))
	}
	item := `{"type":"tool_search_call","call_id":"c","arguments":{"query":"customer calendar event flights","limit":5}}`
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		out, err := provider.Do(nil, e, []byte(`{"op":"answer_tool_search_call","item":`+item+`,"session":`+string(raw)+`}`))
		if err != nil {
			require.ErrorContains(t, err, "validation")
			return
		}
		var a sessionAnswer
		require.NoError(t, json.Unmarshal(out, &a))
		after := decodeState(t, a.Session)
		var before state
		_ = json.Unmarshal(raw, &before)
		for _, l := range after.Loaded {
			require.Positive(t, l.Bytes)
		}
		reset := before.SourceHash != v.SourceHash || before.SurfaceHash != v.SurfaceHash
		if (reset && len(after.Loaded) > 0) || len(after.Loaded) > len(before.Loaded) {
			require.LessOrEqual(t, after.total(), after.MaxBytes, "%s", raw)
			require.LessOrEqual(t, len(after.Loaded), after.MaxTools, "%s", raw)
		}
	})
}
