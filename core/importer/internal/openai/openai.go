// Package openai imports OpenAI function tool definitions, in both shapes:
// Chat Completions ({"type":"function","function":{"name",…}}) and Responses
// ({"type":"function","name",…}), plus Responses namespaces
// ({"type":"namespace","name","description","tools":[…]}), whose name is the
// product of their tools. Tools outside a namespace go under
// native.DefaultProduct. Custom tools ({"type":"custom"}) have no parameter
// schema and are imported with their name and description.
//
// The input is a JSON array of tools or an object whose "tools" field is one.
// Built-in tools (web_search, file_search, …) name no function an agent could
// be pointed at, so they are refused with an error rather than dropped.
//
// ImportForToolSearch reads the same input for client-executed tool search
// (core/provider): each tool keeps its definition in the Responses shape,
// and when any tool or namespace is marked defer_loading only the deferred
// tools are imported; the others, and built-in tools, stay in the request
// as they are and are returned as always loaded.
package openai

import (
	"fmt"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Format is this importer's name.
const Format = "openai"

// Import reads OpenAI tool definitions strictly: one bad tool fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Import counting into t; a bad tool goes to t.Skip.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	doc, _, err := read(data, t, false)
	return doc, err
}

// ImportForToolSearch is ImportWith for provider tool search: every tool
// keeps its definition (Responses shape: a Chat Completions tool's
// "function" members are lifted to the top), and when any tool or namespace
// is marked "defer_loading": true only the deferred tools are imported.
// alwaysLoaded names, in input order, the tools left in the request as they
// are: those not deferred (when some are), and built-in tools (web_search,
// tool_search, …), which are not refused here since a request's tool list
// holds them.
func ImportForToolSearch(data []byte, t *tally.Tally) (doc *native.Document, alwaysLoaded []string, err error) {
	return read(data, t, true)
}

// entry is one imported tool with what tool search needs to know of it.
type entry struct {
	product  int // index into the document's products; -1: loose
	tool     native.Tool
	deferred bool
	label    string // its name as the always-loaded list gives it
}

func read(data []byte, t *tally.Tally, forSearch bool) (*native.Document, []string, error) {
	entries, err := jsonread.ToolList(data)
	if err != nil {
		return nil, nil, err
	}
	doc := &native.Document{}
	var tools []entry
	var alwaysLoaded []string
	for i, item := range entries {
		label := fmt.Sprintf("tools[%d]%s", i, jsonread.Label(item, "name"))
		object, ok := item.(map[string]any)
		if !ok {
			t.Read()
			if err := t.Skip(label, fmt.Errorf("%s: want a tool object, got %s", label, jsonread.TypeName(item))); err != nil {
				return nil, nil, err
			}
			continue
		}
		kind, _ := object["type"].(string)
		if forSearch && builtIn(kind) {
			alwaysLoaded = append(alwaysLoaded, kind)
			continue
		}
		if kind == "namespace" {
			product, members, err := namespace(object, label, t, forSearch)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", label, err)
			}
			for _, m := range members {
				m.product = len(doc.Products)
				tools = append(tools, m)
			}
			doc.Products = append(doc.Products, product)
			continue
		}
		t.Read()
		tool, deferred, err := decodeTool(object, t, forSearch)
		if err != nil {
			if err := t.Skip(label, fmt.Errorf("%s: %w", label, err)); err != nil {
				return nil, nil, err
			}
			continue
		}
		tools = append(tools, entry{product: -1, tool: tool, deferred: deferred, label: tool.Name})
	}
	anyDeferred := false
	for _, e := range tools {
		anyDeferred = anyDeferred || e.deferred
	}
	loose := native.Product{ID: native.DefaultProduct}
	for _, e := range tools {
		if forSearch && anyDeferred && !e.deferred {
			alwaysLoaded = append(alwaysLoaded, e.label)
			continue
		}
		if e.product < 0 {
			loose.Tools = append(loose.Tools, e.tool)
		} else {
			doc.Products[e.product].Tools = append(doc.Products[e.product].Tools, e.tool)
		}
	}
	kept := doc.Products[:0]
	for _, p := range doc.Products {
		if len(p.Tools) > 0 || !forSearch {
			kept = append(kept, p)
		}
	}
	doc.Products = kept
	if len(loose.Tools) > 0 {
		doc.Products = append(doc.Products, loose)
	}
	return doc, alwaysLoaded, nil
}

// builtIn reports whether a tool type is one of OpenAI's built-in tools
// (executed by the API or a hosted runtime, not searched for).
func builtIn(kind string) bool {
	switch kind {
	case "function", "custom", "namespace", "":
		return false
	}
	return true
}

func namespace(object map[string]any, outer string, t *tally.Tally, forSearch bool) (native.Product, []entry, error) {
	f := jsonread.Fields{Object: object}
	name := f.Str("name")
	product := native.Product{ID: name, Description: f.Str("description")}
	if !forSearch && native.ProductID(name) != name {
		// As an MCP server's name: the ID trimmed and without ".", the name
		// as given kept for display. Tool search answers with the
		// namespace's name as the product ID, so there it must be one.
		product.ID, product.Name = native.ProductID(name), name
	}
	tools := f.Arr("tools")
	deferAll := forSearch && f.Bool("defer_loading")
	if f.Err != nil {
		return product, nil, f.Err
	}
	var members []entry
	for j, item := range tools {
		object, ok := item.(map[string]any)
		if !ok {
			return product, nil, fmt.Errorf("tools[%d]: want a tool object, got %s", j, jsonread.TypeName(item))
		}
		t.Read()
		tool, deferred, err := decodeTool(object, t, forSearch)
		if err != nil {
			label := fmt.Sprintf("tools[%d]%s", j, jsonread.Label(item, "name"))
			if err := t.Skip(outer+"."+label, fmt.Errorf("%s: %s: %w", outer, label, err)); err != nil {
				return product, nil, fmt.Errorf("%s: %w", label, err)
			}
			continue
		}
		members = append(members, entry{tool: tool, deferred: deferred || deferAll, label: product.ID + "." + tool.Name})
	}
	return product, members, nil
}

// decodeTool reads one function or custom tool in either API shape; for
// tool search it also keeps the definition and says whether it is deferred.
func decodeTool(object map[string]any, t *tally.Tally, forSearch bool) (native.Tool, bool, error) {
	f := jsonread.Fields{Object: object}
	kind := f.Str("type")
	switch kind {
	case "function", "custom":
	case "":
		// A function whose "type" was left out: named, so it can be kept.
		if !named(object) || !t.Lenient() {
			f.Fail(fmt.Errorf(`field "type": missing (want "function", "custom" or "namespace")`))
		} else if err := t.Repair("type", fmt.Errorf(`field "type": missing; read as "function"`)); err != nil {
			f.Fail(err)
		}
	case "namespace":
		f.Fail(fmt.Errorf(`field "type": a namespace cannot hold another namespace`))
	default:
		f.Fail(fmt.Errorf(`field "type": %q is a built-in tool, not a function an agent can search for; remove it from the catalog`, kind))
	}
	if f.Err != nil {
		return native.Tool{}, false, f.Err
	}
	definition := object
	deferred := forSearch && f.Bool("defer_loading")
	outer := object
	if function := f.Obj("function"); function != nil { // Chat Completions nests the definition
		definition = lift(object, function)
		f = jsonread.Fields{Object: function}
		if forSearch {
			deferred = deferred || f.Bool("defer_loading")
		}
	}
	tool := native.Tool{Name: f.Str("name")}
	if f.Err == nil && tool.Name == "" {
		f.Fail(fmt.Errorf(`field "name": missing or empty`))
	}
	if f.Err != nil {
		return tool, false, f.Err // no identity: nothing to keep
	}
	r := &native.Reader{T: t, Name: tool.Name}
	prefix := ""
	if object["function"] != nil {
		prefix = "function."
	}
	r.Prefix = prefix
	tool.Description = r.Text(&f, "description", prefix+"description")
	if d, ok := f.Object["deprecated"]; ok {
		if err := r.Deprecated(&tool, d, prefix+"deprecated"); err != nil {
			f.Fail(err)
		}
	}
	native.ReadSchemaFieldWith(&tool, &f, "parameters", r)
	if prefix != "" {
		r.Route("", outer, native.Role{Key: "type"}, native.Role{Key: "function", To: "definition"}, native.Role{Key: "defer_loading"}, native.Role{Key: "strict"})
	}
	r.Route(prefix, f.Object, roles...)
	if err := r.Finish(&tool); err != nil {
		f.Fail(err)
	}
	if forSearch && f.Err == nil {
		if kind == "function" {
			definition = withNulls(definition, "parameters", "strict")
		}
		original, err := jsonw.AppendValue(nil, definition, false)
		if err != nil {
			f.Fail(err)
		}
		tool.Original = original
	}
	return tool, deferred, f.Err
}

// named reports whether a tool definition has a name, at its top or under
// "function".
func named(object map[string]any) bool {
	if _, ok := object["name"].(string); ok {
		return true
	}
	function, _ := object["function"].(map[string]any)
	_, ok := function["name"].(string)
	return ok
}

// roles of a function's fields, for the report; "strict" and
// "defer_loading" say how to call or load it, nothing to search for.
var roles = []native.Role{
	{Key: "defer_loading"}, {Key: "deprecated", To: "deprecated"}, {Key: "description", To: "description"},
	{Key: "name", To: "name"}, {Key: "parameters", To: "parameters"}, {Key: "strict"}, {Key: "type"},
}

// withNulls returns the definition with each absent key set to null: a
// Responses function tool states "parameters" and "strict" (null leaves
// the choice to the API, as an absent key does), and the SDKs' types of a
// tool_search_output require both.
func withNulls(definition map[string]any, keys ...string) map[string]any {
	var out map[string]any
	for _, k := range keys {
		if _, ok := definition[k]; ok {
			continue
		}
		if out == nil { // copy: the input's map is not ours to change
			out = make(map[string]any, len(definition)+len(keys))
			for key, v := range definition {
				out[key] = v
			}
		}
		out[k] = nil
	}
	if out == nil {
		return definition
	}
	return out
}

// lift turns a Chat Completions tool ({"type":"function","function":{…}})
// into the Responses shape a tool_search_output carries: the function's
// members at the top, beside the outer ones other than "function".
func lift(outer, function map[string]any) map[string]any {
	out := make(map[string]any, len(outer)+len(function))
	for k, v := range outer {
		if k != "function" {
			out[k] = v
		}
	}
	for k, v := range function {
		out[k] = v
	}
	return out
}
