// Package anthropic imports Anthropic Messages API tool definitions
// ({"name","description","input_schema"}), given as a JSON array or as an
// object whose "tools" field is one. All go under native.DefaultProduct.
// Anthropic's server tools (a "type" such as "web_search_20250305") are
// executed by the API, not by the agent, so they are refused with an error
// rather than dropped.
//
// ImportForToolSearch reads the same input for Anthropic tool search
// (core/provider): each tool keeps its definition, and when any tool is
// marked defer_loading only the deferred ones are imported; the others, and
// server tools, stay in the request as they are and are returned as always
// loaded.
package anthropic

import (
	"fmt"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Format is this importer's name.
const Format = "anthropic"

// Import reads Anthropic tool definitions strictly: one bad tool fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Import counting into t; a bad tool goes to t.Skip.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	doc, _, err := read(data, t, false)
	return doc, err
}

// ImportForToolSearch is ImportWith for provider tool search: every tool
// keeps its definition, and when any tool is marked "defer_loading": true
// only the deferred tools are imported. alwaysLoaded names, in input order,
// the tools left in the request as they are: those not deferred (when some
// are), and server tools (by their type), which are not refused here since
// a request's tool list holds them.
func ImportForToolSearch(data []byte, t *tally.Tally) (doc *native.Document, alwaysLoaded []string, err error) {
	return read(data, t, true)
}

func read(data []byte, t *tally.Tally, forSearch bool) (*native.Document, []string, error) {
	entries, err := jsonread.ToolList(data)
	if err != nil {
		return nil, nil, err
	}
	var tools []native.Tool
	var deferred []bool
	var alwaysLoaded []string
	for i, entry := range entries {
		if object, ok := entry.(map[string]any); ok && forSearch {
			if kind, _ := object["type"].(string); kind != "" && kind != "custom" {
				alwaysLoaded = append(alwaysLoaded, kind)
				continue
			}
		}
		t.Read()
		tool, isDeferred, err := decodeTool(entry, t, forSearch)
		if err != nil {
			label := fmt.Sprintf("tools[%d]%s", i, jsonread.Label(entry, "name"))
			if err := t.Skip(label, fmt.Errorf("%s: %w", label, err)); err != nil {
				return nil, nil, err
			}
			continue
		}
		tools = append(tools, tool)
		deferred = append(deferred, isDeferred)
	}
	anyDeferred := false
	for _, d := range deferred {
		anyDeferred = anyDeferred || d
	}
	product := native.Product{ID: native.DefaultProduct}
	for i, tool := range tools {
		if forSearch && anyDeferred && !deferred[i] {
			alwaysLoaded = append(alwaysLoaded, tool.Name)
			continue
		}
		product.Tools = append(product.Tools, tool)
	}
	return &native.Document{Products: []native.Product{product}}, alwaysLoaded, nil
}

// roles of a tool's fields, for the report; "cache_control" and
// "defer_loading" say how the API treats it, nothing to search for.
var roles = []native.Role{
	{Key: "cache_control"}, {Key: "defer_loading"}, {Key: "deprecated", To: "deprecated"}, {Key: "description", To: "description"},
	{Key: "input_schema", To: "parameters"}, {Key: "name", To: "name"}, {Key: "type"},
}

func decodeTool(entry any, t *tally.Tally, forSearch bool) (native.Tool, bool, error) {
	object, ok := entry.(map[string]any)
	if !ok {
		return native.Tool{}, false, fmt.Errorf("want a tool object, got %s", jsonread.TypeName(entry))
	}
	f := jsonread.Fields{Object: object}
	if kind := f.Str("type"); kind != "" && kind != "custom" {
		f.Fail(fmt.Errorf(`field "type": %q is a server tool the API runs, not a tool an agent can search for; remove it from the catalog`, kind))
	}
	tool := native.Tool{Name: f.Str("name")}
	if f.Err == nil && tool.Name == "" {
		f.Fail(fmt.Errorf(`field "name": missing or empty`))
	}
	if f.Err != nil {
		return tool, false, f.Err // no identity: nothing to keep
	}
	r := &native.Reader{T: t, Name: tool.Name}
	tool.Description = r.Text(&f, "description", "description")
	if !f.Has("input_schema") {
		if err := r.Fix("input_schema", fmt.Errorf(`field "input_schema": missing (Anthropic requires one per tool)`)); err != nil {
			f.Fail(err)
		}
	}
	if f.Err == nil {
		native.ReadSchemaFieldWith(&tool, &f, "input_schema", r)
	}
	if d, ok := object["deprecated"]; ok {
		if err := r.Deprecated(&tool, d, "deprecated"); err != nil {
			f.Fail(err)
		}
	}
	deferred := false
	if forSearch {
		deferred = f.Bool("defer_loading")
	}
	r.Route("", object, roles...)
	if err := r.Finish(&tool); err != nil {
		f.Fail(err)
	}
	if forSearch && f.Err == nil {
		original, err := jsonw.AppendValue(nil, object, false)
		if err != nil {
			f.Fail(err)
		}
		tool.Original = original
	}
	return tool, deferred, f.Err
}
