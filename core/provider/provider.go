// Package provider renders the engine's answers in the shapes model
// providers define for tool search, so that every host emits the same bytes
// from one implementation (the module's toolsift_provider call):
//
//   - OpenAI Responses, client-executed tool search: the "tool_search" tool
//     to send (execution "client", a parameter schema that is our search
//     request), and the "tool_search_output" item that answers a
//     "tool_search_call" with the found tools' full definitions, in rank
//     order, within a token budget.
//   - Anthropic, a client-side search tool: its definition, and the
//     "tool_result" block that answers its "tool_use" with "tool_reference"
//     blocks, which the API expands into the deferred tools' definitions.
//
// The search itself is the engine's (exact-name guard, filters, ranking);
// this package maps the model's arguments to a tool-search.v1 request and
// the ranked references to provider JSON. Definitions are a tool's original
// one (catalog.Tool.Original, kept by an import for tool search) when it was
// imported from that provider's format, and otherwise derived from its name,
// description and input schema.
//
// Output is compact JSON with Go's encoding/json escaping, members in a
// fixed order; a definition kept from the input is written as stored
// (compact, keys sorted).
package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/lint"
	"github.com/toolsift/toolsift/core/wire"
)

// Operations of Do, named as the hosts' methods are (answerToolSearchCall,
// answer_tool_search_call, AnswerToolSearchCall, …).
const (
	OpOpenAIToolSearchTool = "openai_tool_search_tool"
	OpAnswerToolSearchCall = "answer_tool_search_call"
	OpAnthropicSearchTool  = "anthropic_search_tool"
	OpAnswerToolUse        = "answer_tool_use"
	OpDefinitions          = "definitions"
	OpNames                = "names"
	OpResolveName          = "resolve_name"
	OpLint                 = "lint" // the catalog's toolsift.lint.v1 report (core/lint)
	ProviderOpenAI         = "openai"
	ProviderAnthropic      = "anthropic"
	DefaultBudgetTokens    = 8192
	MaxBudgetTokens        = 1 << 20
	DefaultSearchToolName  = "tool_search"
	maxSearchToolNameBytes = 64
	bytesPerToken          = 4
)

// Request is one call of Do: an operation and its arguments. Fields that an
// operation does not take must be absent.
type Request struct {
	Op string `json:"op"`
	// Item is the OpenAI "tool_search_call" output item to answer.
	Item json.RawMessage `json:"item,omitempty"`
	// Block is the Anthropic "tool_use" content block to answer.
	Block json.RawMessage `json:"block,omitempty"`
	// BudgetTokens caps the definitions an answer loads (0: the default,
	// DefaultBudgetTokens). Tokens are counted as bytes/4, rounded up.
	BudgetTokens int `json:"budget_tokens,omitempty"`
	// Name is the Anthropic search tool's name ("" : tool_search), or the
	// shown name to resolve.
	Name string `json:"name,omitempty"`
	// Namespace is the OpenAI namespace of the shown name to resolve.
	Namespace string `json:"namespace,omitempty"`
	// Provider is the provider of Definitions, Names and ResolveName:
	// "openai" or "anthropic".
	Provider string `json:"provider,omitempty"`
	// Session is a conversation's state (session.go; {} starts one): the
	// answer then loads only tools not loaded yet, within the session's
	// caps, and comes as {"output","session","catalog_changed",
	// "already_loaded","over_cap"}.
	Session json.RawMessage `json:"session,omitempty"`
	// Expect is lint's list of {"query","tool"} expectations.
	Expect []lint.Expectation `json:"expect,omitempty"`
}

// Do decodes one request (compact or not, at most wire.MaxRequestBytes)
// and appends its JSON answer to dst. A failure is a *wire.Error
// (validation for a bad request or item); dst is then returned unchanged.
func Do(dst []byte, e *engine.Engine, request []byte) ([]byte, error) {
	if len(request) > wire.MaxRequestBytes {
		return dst, wire.RequestTooLarge("provider")
	}
	var r Request
	if err := strictDecode(request, &r); err != nil {
		return dst, wire.Validation("invalid_request_json", "provider request: "+err.Error())
	}
	budget, err := budgetOf(r.BudgetTokens)
	if err != nil {
		return dst, err
	}
	only := func(allowed ...string) error { return onlyFields(&r, allowed...) }
	var out []byte
	switch r.Op {
	case OpOpenAIToolSearchTool:
		if err = only(); err == nil {
			out = OpenAIToolSearchTool(dst, e)
		}
	case OpAnswerToolSearchCall:
		var s *session
		if err = only("item", "budget_tokens", "session"); err == nil {
			if s, err = sessionOf(r.Session, e); err == nil {
				out, err = answerToolSearchCall(dst, e, r.Item, budget, s)
			}
		}
	case OpAnthropicSearchTool:
		if err = only("name"); err == nil {
			out, err = AnthropicSearchTool(dst, e, r.Name)
		}
	case OpAnswerToolUse:
		var s *session
		if err = only("block", "budget_tokens", "session"); err == nil {
			if s, err = sessionOf(r.Session, e); err == nil {
				out, err = answerToolUse(dst, e, r.Block, budget, s)
			}
		}
	case OpDefinitions:
		if err = only("provider"); err == nil {
			out, err = Definitions(dst, e, r.Provider)
		}
	case OpNames:
		if err = only("provider"); err == nil {
			out, err = Names(dst, e, r.Provider)
		}
	case OpResolveName:
		if err = only("provider", "name", "namespace"); err == nil {
			out, err = ResolveName(dst, e, r.Provider, r.Namespace, r.Name)
		}
	case OpLint:
		if err = only("expect"); err == nil {
			out, err = appendLint(dst, e, r.Expect)
		}
	case "":
		err = wire.Validation("missing_op", `provider request has no "op"`)
	default:
		err = wire.Validation("unknown_op", fmt.Sprintf("unknown provider op %q (known: %s, %s, %s, %s, %s, %s, %s, %s)", r.Op,
			OpOpenAIToolSearchTool, OpAnswerToolSearchCall, OpAnthropicSearchTool, OpAnswerToolUse, OpDefinitions, OpNames, OpResolveName, OpLint))
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}

// appendLint appends the catalog's lint report (core/lint) to dst.
func appendLint(dst []byte, e *engine.Engine, expect []lint.Expectation) ([]byte, error) {
	report, err := lint.Run(e, lint.Options{Expect: expect})
	if err != nil {
		return dst, err
	}
	return report.AppendJSON(dst)
}

// sessionOf decodes a request's session, nil when it has none.
func sessionOf(raw json.RawMessage, e *engine.Engine) (*session, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return decodeSession(raw, e)
}

func budgetOf(tokens int) (int, error) {
	switch {
	case tokens == 0:
		return DefaultBudgetTokens, nil
	case tokens < 0 || tokens > MaxBudgetTokens:
		return 0, wire.Validation("invalid_budget", fmt.Sprintf("budget_tokens must be between 1 and %d, got %d", MaxBudgetTokens, tokens))
	}
	return tokens, nil
}

// onlyFields refuses the members of r that its operation does not take.
func onlyFields(r *Request, allowed ...string) error {
	present := []struct {
		name string
		set  bool
	}{
		{"item", len(r.Item) > 0},
		{"block", len(r.Block) > 0},
		{"budget_tokens", r.BudgetTokens != 0},
		{"name", r.Name != ""},
		{"namespace", r.Namespace != ""},
		{"provider", r.Provider != ""},
		{"session", len(r.Session) > 0},
		{"expect", r.Expect != nil},
	}
	for _, p := range present {
		if !p.set {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == p.name
		}
		if !ok {
			return wire.Validation("unexpected_field", fmt.Sprintf("provider op %q takes no %q", r.Op, p.name))
		}
	}
	return nil
}

// strictDecode decodes exactly one JSON value into v, refusing unknown
// fields.
func strictDecode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}
