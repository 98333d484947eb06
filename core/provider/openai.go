package provider

import (
	"encoding/json"
	"fmt"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
	"github.com/toolsift/toolsift/core/wire"
)

// OpenAIToolSearchTool appends the Responses "tool_search" tool to send
// beside the always-loaded tools: executed by the client, with our search
// request as its parameters.
func OpenAIToolSearchTool(dst []byte, e *engine.Engine) []byte {
	cat := e.Catalog()
	o := jsonw.StartObject(dst, true)
	o.String("type", "tool_search")
	o.String("execution", "client")
	o.String("description", searchToolDescription(cat))
	o.Key("parameters")
	o.Buf = appendSchema(o.Buf, cat)
	return o.End()
}

// toolSearchCall is the part of a Responses "tool_search_call" item that an
// answer needs; other members are ignored (the API may add some).
type toolSearchCall struct {
	Type      string          `json:"type"`
	CallID    string          `json:"call_id"`
	Execution string          `json:"execution"`
	Arguments json.RawMessage `json:"arguments"`
}

// AnswerToolSearchCall appends the "tool_search_output" item answering a
// client-executed "tool_search_call" item: its call_id echoed, and as tools
// the found tools' full definitions in rank order (a namespace's members
// inside one namespace entry, placed where its best member ranks), as many
// as fit budget tokens.
func AnswerToolSearchCall(dst []byte, e *engine.Engine, item []byte, budget int) ([]byte, error) {
	return answerToolSearchCall(dst, e, item, budget, nil)
}

// answerToolSearchCall is AnswerToolSearchCall that, with a session, loads
// only the tools the session has not, within its caps, and records them.
func answerToolSearchCall(dst []byte, e *engine.Engine, item []byte, budget int, s *session) ([]byte, error) {
	var call toolSearchCall
	if err := json.Unmarshal(item, &call); err != nil {
		return dst, wire.Validation("invalid_item", "tool_search_call item: "+err.Error())
	}
	switch {
	case call.Type != "tool_search_call":
		return dst, wire.Validation("invalid_item", fmt.Sprintf(`want an item of type "tool_search_call", got %q`, call.Type))
	case call.Execution != "" && call.Execution != "client":
		return dst, wire.Validation("invalid_item", fmt.Sprintf(`the tool_search_call has execution %q: only a client-executed call is answered by the client`, call.Execution))
	case call.CallID == "":
		return dst, wire.Validation("invalid_item", "the tool_search_call has no call_id to answer")
	}
	request, err := decodeArguments(call.Arguments)
	if err != nil {
		return dst, err
	}
	tools, err := found(e, shownRequest(e, ProviderOpenAI, request))
	if err != nil {
		return dst, err
	}
	size := func(t *catalog.Tool) (int, error) {
		b, err := appendOpenAIFunction(nil, e, t)
		return len(b), err
	}
	if err := s.recount(e, size); err != nil {
		return dst, err
	}
	tools = s.fresh(e, tools)
	kept, rendered, err := withinBudget(tools, budget, func(dst []byte, kept []*catalog.Tool) ([]byte, error) {
		return appendOpenAITools(dst, e, kept)
	}, s.allow(size))
	if err != nil {
		return dst, err
	}
	if err := s.record(kept, size); err != nil {
		return dst, err
	}
	start := len(dst)
	o := jsonw.StartObject(dst, true)
	o.String("type", "tool_search_output")
	o.String("call_id", call.CallID)
	o.String("execution", "client")
	o.String("status", "completed")
	o.Key("tools")
	o.Buf = append(o.Buf, rendered...)
	return s.wrap(o.End(), start), nil
}

// appendOpenAITools appends the JSON array of tools' Responses definitions:
// a tool of the default product is a top-level function, the tools of any
// other product are grouped in one namespace entry at the place of the
// first of them.
func appendOpenAITools(dst []byte, e *engine.Engine, tools []*catalog.Tool) ([]byte, error) {
	cat := e.Catalog()
	dst = append(dst, '[')
	done := make([]bool, len(tools))
	first := true
	for i, t := range tools {
		if done[i] {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		product := t.Identity.ProductID
		if product == native.DefaultProduct {
			var err error
			if dst, err = appendOpenAIFunction(dst, e, t); err != nil {
				return nil, err
			}
			continue
		}
		p := findProduct(cat, product)
		o := jsonw.StartObject(dst, true)
		o.String("type", "namespace")
		o.String("name", openAINamespace(e, product))
		o.String("description", namespaceDescription(p))
		o.Key("tools")
		o.Buf = append(o.Buf, '[')
		for j := i; j < len(tools); j++ {
			if done[j] || tools[j].Identity.ProductID != product {
				continue
			}
			if j > i {
				o.Buf = append(o.Buf, ',')
			}
			done[j] = true
			var err error
			if o.Buf, err = appendOpenAIFunction(o.Buf, e, tools[j]); err != nil {
				return nil, err
			}
		}
		o.Buf = append(o.Buf, ']')
		dst = o.End()
	}
	return append(dst, ']'), nil
}

// appendOpenAIFunction appends one tool's Responses definition: the one it
// was imported with from an OpenAI list (under its shown name, which is its
// own unless that was invalid or shared), or a deferred function derived
// from its name, description and input schema.
func appendOpenAIFunction(dst []byte, e *engine.Engine, t *catalog.Tool) ([]byte, error) {
	name := openAIName(e, t)
	kept, err := original(e.Catalog(), t, ProviderOpenAI, name)
	if err != nil || kept != nil {
		return append(dst, kept...), err
	}
	o := jsonw.StartObject(dst, true)
	o.String("type", "function")
	o.String("name", name)
	o.String("description", description(t))
	o.Raw("parameters", inputSchema(t))
	o.Key("strict") // null: the API uses strict mode when the schema allows it
	o.Buf = append(o.Buf, "null"...)
	o.Bool("defer_loading", true)
	return o.End(), nil
}

func findProduct(cat *catalog.Catalog, id string) *catalog.Product {
	for i := range cat.Products {
		if cat.Products[i].ID == id {
			return &cat.Products[i]
		}
	}
	return nil
}

// namespaceDescription is a namespace's description (the API requires
// one): the product's, or its display name.
func namespaceDescription(p *catalog.Product) string {
	if p == nil {
		return ""
	}
	if p.Description != "" {
		return p.Description
	}
	return p.Name
}
