package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/wire"
)

// FuzzSearchJSON feeds arbitrary bytes through decode → validate → search →
// encode on the DWS catalog: every input gets a response within the byte
// budget or a typed error, never a panic.
func FuzzSearchJSON(f *testing.F) {
	for _, seed := range []string{
		`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读"}`,
		`{"version":"tool-search.v1","query":"chat.query_msg_read_status","exclude_canonical":["chat.query_msg_read_status"]}`,
		`{"version":"tool-search.v1","query":"AI表格 新增记录","limit":20,"candidate_limit":100}`,
		`{"version":"tool-search.v1","subqueries":["发文件","查已读"],"effects":["read"],"product_ids":["chat"]}`,
		`{"version":"tool-search.v1","query":"查询","limit":20}`,
		`{"version":"tool-search.v1","query":"\u202e"}`,
		`{"version":"tool-search.v1","query":"x","effects":["READ","write"]}`,
		`{"version":"tool-search.v1","pattern":"^send_|文件$","product_ids":["chat"]}`,
		`{"version":"tool-search.v1","pattern":"[^\\x01]{0,1000}\\x01"}`,
		`{"version":"tool-search.v1","query":"chat.send_personal_message","scope":{"product_ids":["chat"],"effects":["read"],"exclude_canonical":["chat.query_msg_read_status"]}}`,
		`{"version":"tool-search.v1","subqueries":["发文件","chat.send_personal_message"],"effects":["read"],"scope":{"effects":["read","write"]}}`,
		`{"version":"tool-search.v1","pattern":"send","scope":{"product_ids":["chat"]},"product_ids":["todo"]}`,
	} {
		f.Add([]byte(seed))
	}
	e := newDWSEngine(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, searchErr := e.SearchJSON(data)
		if searchErr != nil {
			err := typedError(t, searchErr)
			if err.Reason == "" || (err.Category != wire.CategoryValidation && err.Category != wire.CategoryInternal) {
				t.Fatalf("untyped error %+v", err)
			}
			return
		}
		if len(out)+1 > wire.MaxResponseBytes || !json.Valid(out) {
			t.Fatalf("bad response (%d bytes)", len(out))
		}
	})
}

// FuzzInspectJSON: any Inspect request is answered or refused with a type.
func FuzzInspectJSON(f *testing.F) {
	e := newDWSEngine(f)
	v := e.Version()
	for _, path := range []string{"chat.query_msg_read_status", "chat message read-status", "chat", "chat message", "dws/chat/message", "", "  ", "no.such"} {
		request, _ := json.Marshal(wire.InspectRequest{Version: wire.InspectVersion, CanonicalPath: path, ExpectedSourceHash: v.SourceHash, ExpectedSurfaceHash: v.SurfaceHash})
		f.Add(request)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, inspectErr := e.InspectJSON(data)
		if inspectErr != nil {
			if err := typedError(t, inspectErr); err.Reason == "" {
				t.Fatalf("untyped error %+v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatal("invalid JSON")
		}
	})
}
