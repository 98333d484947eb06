package hostapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/toolsift/toolsift/core/wire"
)

// Provider tool search: the names mirror the bindings' (fromOpenAITools,
// answerToolSearchCall, …; docs/INTEGRATIONS.md). The shapes are rendered
// inside the module (core/provider), so every host returns the same bytes.

// ToolList is the result of FromOpenAITools, FromAnthropicTools and
// FromMCPTools: a snapshot to Open, and the import's report.
type ToolList struct {
	// Snapshot holds the deferred tools, each with its definition as given.
	Snapshot []byte
	// Report is the import report's exact JSON (tools read, imported,
	// skipped and why, fields used, and always_loaded).
	Report json.RawMessage
	// AlwaysLoaded names, in input order, the tools left out of the index
	// because they stay in the request as they are: not deferred while
	// others are, and the provider's built-in tools (by type).
	AlwaysLoaded []string
}

// FromOpenAITools imports the tools a Responses (or Chat Completions)
// request passes, as a JSON array or {"tools": […]}: function and custom
// tools, namespaces, defer_loading. When any tool is deferred only the
// deferred ones are indexed. Cost: as BuildSnapshot, for a list this size
// milliseconds after the module's compile.
func FromOpenAITools(ctx context.Context, tools []byte, opts ...Option) (*ToolList, error) {
	return importTools(ctx, "openai", tools, opts)
}

// FromAnthropicTools imports the tools a Messages request passes (an array
// or {"tools": […]}); as FromOpenAITools.
func FromAnthropicTools(ctx context.Context, tools []byte, opts ...Option) (*ToolList, error) {
	return importTools(ctx, "anthropic", tools, opts)
}

// FromMCPTools imports an MCP tools/list result (or {"servers": {…}} of
// them); every tool is indexed, each server a namespace.
func FromMCPTools(ctx context.Context, tools []byte, opts ...Option) (*ToolList, error) {
	return importTools(ctx, "mcp", tools, opts)
}

func importTools(ctx context.Context, format string, tools []byte, opts []Option) (*ToolList, error) {
	if newConfig(opts).engine == NativeEngine {
		out, err := importToolsNative(ctx, format, tools)
		if err != nil {
			return nil, err
		}
		return decodeToolList(out)
	}
	out, err := oneShot(ctx, "import tools", opts, func(in *instance) ([]byte, error) {
		fn, err := in.providerExport("toolsift_import_tools")
		if err != nil {
			return nil, err
		}
		fmtPtr, err := in.put(ctx, []byte(format))
		if err != nil {
			return nil, err
		}
		ptr, err := in.put(ctx, tools)
		if err != nil {
			return nil, err
		}
		results, err := fn.Call(ctx, uint64(fmtPtr), uint64(len(format)), uint64(ptr), uint64(len(tools)))
		if err != nil {
			return nil, fmt.Errorf("toolsift_import_tools: %w", err)
		}
		for _, p := range []uint32{fmtPtr, ptr} {
			if err := in.free(ctx, p); err != nil {
				return nil, err
			}
		}
		return in.take(ctx, results[0])
	})
	if err != nil {
		return nil, err
	}
	return decodeToolList(out)
}

// decodeToolList reads toolsift_import_tools's payload: the report's length
// (u32 little-endian), the report's JSON, then the snapshot bytes.
func decodeToolList(out []byte) (*ToolList, error) {
	if len(out) < 4 || uint64(binary.LittleEndian.Uint32(out))+4 > uint64(len(out)) {
		return nil, abiErrorf("toolsift_import_tools returned %d bytes, not a report and a snapshot", len(out))
	}
	n := 4 + int(binary.LittleEndian.Uint32(out))
	list := &ToolList{Report: json.RawMessage(out[4:n]), Snapshot: out[n:]}
	var report struct {
		AlwaysLoaded []string `json:"always_loaded"`
	}
	if err := json.Unmarshal(list.Report, &report); err != nil {
		return nil, abiErrorf("toolsift_import_tools report: %v", err)
	}
	list.AlwaysLoaded = report.AlwaysLoaded
	return list, nil
}

// OpenAIToolSearchTool returns the Responses "tool_search" tool to send
// beside the always-loaded tools (execution "client", our search request as
// its parameters). Same cost as Search.
func (e *Engine) OpenAIToolSearchTool(ctx context.Context) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "openai_tool_search_tool"})
}

// AnswerToolSearchCall answers a client-executed "tool_search_call" output
// item (its JSON) with the "tool_search_output" item to append to the next
// request's input: call_id echoed, the found tools' full definitions in rank
// order, as many as fit budgetTokens (0: 8192; tokens counted as bytes/4).
// A bad item or bad arguments is a *wire.Error (invalid_item, invalid_arguments,
// or the search's own reason). Same cost as Search.
func (e *Engine) AnswerToolSearchCall(ctx context.Context, item []byte, budgetTokens int) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "answer_tool_search_call", "item": json.RawMessage(item), "budget_tokens": budgetTokens})
}

// AnthropicSearchTool returns the definition of a client-side search tool
// for the Messages API, named name ("": tool_search).
func (e *Engine) AnthropicSearchTool(ctx context.Context, name string) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "anthropic_search_tool", "name": name})
}

// AnswerToolUse answers the search tool's "tool_use" content block with the
// "tool_result" block of "tool_reference" blocks, in rank order, within
// budgetTokens of the definitions the API expands them into.
func (e *Engine) AnswerToolUse(ctx context.Context, block []byte, budgetTokens int) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "answer_tool_use", "block": json.RawMessage(block), "budget_tokens": budgetTokens})
}

// Definitions returns every indexed tool's definition as a JSON array in the
// shape of provider ("openai" or "anthropic"): for Anthropic, the deferred
// tools the request's tools list must carry for tool_reference to expand.
func (e *Engine) Definitions(ctx context.Context, provider string) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "definitions", "provider": provider})
}

// Names returns the name each indexed tool is shown under by provider
// ("openai" or "anthropic"), as a JSON array in catalog order of
// {"canonical_path","name"}, with "namespace" for an OpenAI function inside
// one. A tool keeps its own name where the provider takes it and no other
// tool of the list would share it; otherwise it is renamed with 8 hex
// digits of its canonical path's SHA-256 (core/provider/names.go). The
// table is built once per engine.
func (e *Engine) Names(ctx context.Context, provider string) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "names", "provider": provider})
}

// ResolveName maps a name provider showed (a tool_use's name; a
// function_call's name and namespace, "" for a top-level function) back to
// the tool: {"canonical_path","product_id","name"}, its identity and own
// name. A name no tool is shown under is a *wire.Error (unknown_name).
func (e *Engine) ResolveName(ctx context.Context, provider, namespace, name string) ([]byte, error) {
	return e.provider(ctx, map[string]any{"op": "resolve_name", "provider": provider, "namespace": namespace, "name": name})
}

// ProviderRaw sends one provider request (core/provider.Request's JSON) as
// it is, for hosts that build it themselves (the golden tests do).
func (e *Engine) ProviderRaw(ctx context.Context, request []byte) ([]byte, error) {
	if err := e.mr.refuseOversized(request, "provider_request_too_large"); err != nil {
		return nil, err
	}
	if e.native != nil {
		return e.native.provider(ctx, request)
	}
	return e.run(ctx, "provider", func(in *instance) ([]byte, error) {
		fn, err := in.providerExport("toolsift_provider")
		if err != nil {
			return nil, err
		}
		ptr, err := in.put(ctx, request)
		if err != nil {
			return nil, err
		}
		results, err := fn.Call(ctx, uint64(in.handle), uint64(ptr), uint64(len(request)))
		if err != nil {
			return nil, fmt.Errorf("toolsift_provider: %w", err)
		}
		if err := in.free(ctx, ptr); err != nil {
			return nil, err
		}
		return in.take(ctx, results[0])
	})
}

func (e *Engine) provider(ctx context.Context, request map[string]any) ([]byte, error) {
	// Members at their zero value are left out, as the module wants them.
	for k, v := range request {
		switch v := v.(type) {
		case string:
			if v == "" {
				delete(request, k)
			}
		case int:
			if v == 0 {
				delete(request, k)
			}
		}
	}
	body, err := json.Marshal(request)
	if err != nil { // an item or block that is not JSON
		return nil, wire.Validation("invalid_request_json", "provider request: "+err.Error())
	}
	return e.ProviderRaw(ctx, body)
}

// providerExport looks up an export of the provider calls, which modules
// built before them lack: using one is then an ABI error that says so.
func (in *instance) providerExport(name string) (interface {
	Call(context.Context, ...uint64) ([]uint64, error)
}, error) {
	fn := in.mod.ExportedFunction(name)
	if fn == nil {
		return nil, abiErrorf("the module has no export %s (a module built before provider tool search: rebuild it with wasm/build.sh)", name)
	}
	return fn, nil
}

// ToolSession remembers which tools one conversation has loaded, under
// which catalog generation, so that each answer loads only new tools,
// within caps on the loaded set (by default 64 tools and 128 KiB of
// definitions). The state lives in the module's answers
// (core/provider/session.go); a ToolSession only carries it from one call
// to the next. It is not safe for concurrent use (a conversation is
// sequential).
type ToolSession struct {
	state json.RawMessage

	// CatalogChanged says whether the last answer found the catalog changed
	// under the conversation (the loaded set then started again).
	CatalogChanged bool
	// AlreadyLoaded and OverCap list the last answer's found tools that it
	// left out: loaded before, or beyond the caps.
	AlreadyLoaded, OverCap []string
}

// NewToolSession starts a conversation's state; 0 means the default cap.
func NewToolSession(maxTools, maxBytes int) *ToolSession {
	state, _ := json.Marshal(map[string]int{"max_tools": maxTools, "max_bytes": maxBytes})
	if maxTools == 0 && maxBytes == 0 {
		state = json.RawMessage(`{}`)
	}
	return &ToolSession{state: state}
}

// AnswerToolSearchCall is Engine.AnswerToolSearchCall loading only the
// tools this conversation has not loaded yet.
func (s *ToolSession) AnswerToolSearchCall(ctx context.Context, e *Engine, item []byte, budgetTokens int) ([]byte, error) {
	return s.answer(ctx, e, map[string]any{"op": "answer_tool_search_call", "item": json.RawMessage(item), "budget_tokens": budgetTokens})
}

// AnswerToolUse is Engine.AnswerToolUse referencing only the tools this
// conversation has not loaded yet.
func (s *ToolSession) AnswerToolUse(ctx context.Context, e *Engine, block []byte, budgetTokens int) ([]byte, error) {
	return s.answer(ctx, e, map[string]any{"op": "answer_tool_use", "block": json.RawMessage(block), "budget_tokens": budgetTokens})
}

// Loaded lists the canonical paths of the tools loaded so far, in the order
// they were loaded.
func (s *ToolSession) Loaded() []string {
	var st struct {
		Loaded []struct {
			Path string `json:"path"`
		} `json:"loaded"`
	}
	_ = json.Unmarshal(s.state, &st)
	out := make([]string, 0, len(st.Loaded))
	for _, l := range st.Loaded {
		out = append(out, l.Path)
	}
	return out
}

// State is the session's JSON state, to store with the conversation.
func (s *ToolSession) State() json.RawMessage { return s.state }

func (s *ToolSession) answer(ctx context.Context, e *Engine, request map[string]any) ([]byte, error) {
	request["session"] = s.state
	out, err := e.provider(ctx, request)
	if err != nil {
		return nil, err
	}
	var a struct {
		Output         json.RawMessage `json:"output"`
		Session        json.RawMessage `json:"session"`
		CatalogChanged bool            `json:"catalog_changed"`
		AlreadyLoaded  []string        `json:"already_loaded"`
		OverCap        []string        `json:"over_cap"`
	}
	if err := json.Unmarshal(out, &a); err != nil {
		return nil, abiErrorf("toolsift_provider session answer: %v", err)
	}
	s.state, s.CatalogChanged, s.AlreadyLoaded, s.OverCap = a.Session, a.CatalogChanged, a.AlreadyLoaded, a.OverCap
	return a.Output, nil
}
