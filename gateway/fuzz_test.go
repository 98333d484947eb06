package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cleanText's output holds nothing it strips, and cleaning it again
// changes nothing.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]8;;x\x1b\\y", "a\u202eb", "\u009b1m", "\xff", "\x1b", "\x1b["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := cleanText(s)
		if !isClean(c) {
			t.Fatalf("cleanText(%q) = %q, not clean", s, c)
		}
		if again := cleanText(c); again != c {
			t.Fatalf("cleanText not idempotent: %q → %q → %q", s, c, again)
		}
		if strings.ContainsRune(c, 0x1b) {
			t.Fatalf("ESC left in %q", c)
		}
	})
}

// A line the stdio filter passes is one the SDK decodes: the filter never
// lets through a line that would end the session.
func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{`"hello"`, `[]`, `42`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"1.0"}`, `{"jsonrpc":"2.0","id":1,"result":{}} x`, `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if strings.ContainsAny(string(line), "\r\n") {
			return // one line at a time
		}
		reply := checkLine(line, false)
		if reply == nil {
			if len(strings.TrimSpace(string(line))) == 0 {
				return
			}
			if _, err := jsonrpc.DecodeMessage([]byte(strings.TrimSpace(string(line)))); err != nil {
				t.Fatalf("passed %q, which the SDK refuses: %v", line, err)
			}
			return
		}
		var msg struct {
			ID    any `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &msg); err != nil || msg.ID != nil || (msg.Error.Code != -32700 && msg.Error.Code != -32600) {
			t.Fatalf("reply %q to %q", reply, line)
		}
	})
}

// A repaired tools/list result always decodes, and keeps every tool whose
// name is a string.
func FuzzRepairToolsResult(f *testing.F) {
	for _, s := range []string{`{"tools":[{"name":"a","annotations":{"readOnlyHint":"yes"}}]}`, `{"tools":[{"name":1}]}`, `{"tools":[{"name":"a","title":5,"annotations":[]}],"nextCursor":3}`, `{"tools":5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		fixed, notes := repairToolsResult(result)
		if notes == nil {
			return // unchanged
		}
		var list mcp.ListToolsResult
		if err := json.Unmarshal(fixed, &list); err != nil {
			t.Fatalf("repaired %q into %q, which does not decode: %v", result, fixed, err)
		}
	})
}
