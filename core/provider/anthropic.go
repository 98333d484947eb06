package provider

import (
	"encoding/json"
	"fmt"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/internal/jsonw"
	"github.com/toolsift/toolsift/core/wire"
)

// AnthropicSearchTool appends the definition of a client-side search tool
// for the Messages API (a custom tool named name, "" meaning tool_search),
// whose input is our search request.
func AnthropicSearchTool(dst []byte, e *engine.Engine, name string) ([]byte, error) {
	if name == "" {
		name = DefaultSearchToolName
	}
	if !validToolName(name) {
		return dst, wire.Validation("invalid_name", fmt.Sprintf("tool name %q: want 1 to %d of a-z A-Z 0-9 _ -", name, maxSearchToolNameBytes))
	}
	if _, taken := namesOf(e).byAnthropic[name]; taken {
		return dst, wire.Validation("name_taken", fmt.Sprintf("tool name %q is a deferred tool's: the two would share a name in one tools list", name))
	}
	cat := e.Catalog()
	o := jsonw.StartObject(dst, true)
	o.String("name", name)
	o.String("description", searchToolDescription(cat))
	o.Key("input_schema")
	o.Buf = appendSchema(o.Buf, cat)
	return o.End(), nil
}

// toolUse is the part of a Messages "tool_use" content block an answer
// needs.
type toolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Input json.RawMessage `json:"input"`
}

// AnswerToolUse appends the "tool_result" block answering the search tool's
// "tool_use" block: one "tool_reference" block per found tool, in rank
// order, as many as fit budget tokens of the definitions the API will
// expand them into (an exact-name query finds that tool alone). With none
// found the content is one text block saying so.
func AnswerToolUse(dst []byte, e *engine.Engine, block []byte, budget int) ([]byte, error) {
	return answerToolUse(dst, e, block, budget, nil)
}

// answerToolUse is AnswerToolUse that, with a session, references only the
// tools the session has not loaded, within its caps, and records them.
func answerToolUse(dst []byte, e *engine.Engine, block []byte, budget int, s *session) ([]byte, error) {
	var use toolUse
	if err := json.Unmarshal(block, &use); err != nil {
		return dst, wire.Validation("invalid_block", "tool_use block: "+err.Error())
	}
	switch {
	case use.Type != "tool_use":
		return dst, wire.Validation("invalid_block", fmt.Sprintf(`want a block of type "tool_use", got %q`, use.Type))
	case use.ID == "":
		return dst, wire.Validation("invalid_block", "the tool_use block has no id to answer")
	}
	request, err := decodeArguments(use.Input)
	if err != nil {
		return dst, err
	}
	tools, err := found(e, shownRequest(e, ProviderAnthropic, request))
	if err != nil {
		return dst, err
	}
	size := func(t *catalog.Tool) (int, error) {
		b, err := appendAnthropicTool(nil, e, t)
		return len(b), err
	}
	matched := len(tools)
	if err := s.recount(e, size); err != nil {
		return dst, err
	}
	tools = s.fresh(e, tools)
	kept, _, err := withinBudget(tools, budget, func(dst []byte, kept []*catalog.Tool) ([]byte, error) {
		return appendAnthropicTools(dst, e, kept)
	}, s.allow(size))
	if err != nil {
		return dst, err
	}
	if err := s.record(kept, size); err != nil {
		return dst, err
	}
	start := len(dst)
	o := jsonw.StartObject(dst, true)
	o.String("type", "tool_result")
	o.String("tool_use_id", use.ID)
	o.Key("content")
	if len(kept) == 0 {
		text := "No deferred tool matched the search."
		if matched > 0 {
			text = "The matching tools are already loaded or do not fit the budget."
		}
		o.Buf = append(o.Buf, `[{"type":"text","text":`...)
		o.Buf = jsonw.AppendString(o.Buf, text, true)
		o.Buf = append(o.Buf, `}]`...)
		return s.wrap(o.End(), start), nil
	}
	o.Buf = append(o.Buf, '[')
	for i, t := range kept {
		if i > 0 {
			o.Buf = append(o.Buf, ',')
		}
		ref := jsonw.StartObject(o.Buf, true)
		ref.String("type", "tool_reference")
		ref.String("tool_name", anthropicName(e, t))
		o.Buf = ref.End()
	}
	o.Buf = append(o.Buf, ']')
	return s.wrap(o.End(), start), nil
}

// appendAnthropicTools appends the JSON array of tools' Anthropic
// definitions.
func appendAnthropicTools(dst []byte, e *engine.Engine, tools []*catalog.Tool) ([]byte, error) {
	dst = append(dst, '[')
	for i, t := range tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendAnthropicTool(dst, e, t); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// appendAnthropicTool appends one tool's Anthropic definition: the one it
// was imported with from an Anthropic list (under its shown name, which is
// its own unless that was invalid or shared), or a deferred tool derived
// from its name, description and input schema.
func appendAnthropicTool(dst []byte, e *engine.Engine, t *catalog.Tool) ([]byte, error) {
	name := anthropicName(e, t)
	kept, err := original(e.Catalog(), t, ProviderAnthropic, name)
	if err != nil || kept != nil {
		return append(dst, kept...), err
	}
	o := jsonw.StartObject(dst, true)
	o.String("name", name)
	o.String("description", description(t))
	o.Raw("input_schema", inputSchema(t))
	o.Bool("defer_loading", true)
	return o.End(), nil
}

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > maxSearchToolNameBytes {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Definitions appends every tool's definition in the provider's shape, in
// catalog order: for "anthropic" the deferred tools to send in the request's
// tools list (the API expands a tool_reference only into a tool it was
// given), for "openai" the tools a tool_search_output can load.
func Definitions(dst []byte, e *engine.Engine, provider string) ([]byte, error) {
	cat := e.Catalog()
	var all []*catalog.Tool
	for i := range cat.Products {
		for j := range cat.Products[i].Tools {
			all = append(all, &cat.Products[i].Tools[j])
		}
	}
	var out []byte
	var err error
	switch provider {
	case ProviderOpenAI:
		out, err = appendOpenAITools(dst, e, all)
	case ProviderAnthropic:
		out, err = appendAnthropicTools(dst, e, all)
	default:
		return dst, unknownProvider(provider)
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}
