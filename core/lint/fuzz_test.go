package lint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolsift/toolsift/core/lint"
	"github.com/toolsift/toolsift/core/provider"
	"github.com/toolsift/toolsift/core/wire"
)

// FuzzLintExpectations: any expectations, sent as the lint op's request
// (or as a raw expect member), give a report or a typed error, never a
// panic (go test ./core/lint -fuzz FuzzLintExpectations).
func FuzzLintExpectations(f *testing.F) {
	e := open(f, "mcp", tripsPath)
	f.Add("weather", "store.get_forecast", []byte(`[]`))
	f.Add("\u202e", "get_forecast", []byte(`null`))
	f.Add("x", "", []byte(`{}`))
	f.Add("send an email", "post_message", []byte(`[{"query":"q","tool":"store.get_data","rank":1}]`))
	f.Fuzz(func(t *testing.T, query, tool string, rawExpect []byte) {
		for _, request := range [][]byte{
			mustJSON(t, map[string]any{"op": provider.OpLint, "expect": []lint.Expectation{{Query: query, Tool: tool}}}),
			append(append([]byte(`{"op":"lint","expect":`), rawExpect...), '}'),
		} {
			out, err := provider.Do(nil, e, request)
			if err != nil {
				var werr *wire.Error
				if !errors.As(err, &werr) {
					t.Fatalf("untyped error %v", err)
				}
				continue
			}
			if !bytes.HasPrefix(out, []byte(`{"schema":"`+lint.Schema+`"`)) {
				t.Fatalf("not a report: %.80s", out)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
