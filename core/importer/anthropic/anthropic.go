// Package anthropic imports Anthropic Messages API tool definitions
// ({"name","description","input_schema"}), given as a JSON array or as an
// object whose "tools" field is one. All go under native.DefaultProduct.
// Anthropic's server tools (a "type" such as "web_search_20250305") are
// executed by the API, not by the agent, so they are refused with an error
// rather than dropped.
package anthropic

import (
	"fmt"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
)

// Format is this importer's name.
const Format = "anthropic"

// Import reads Anthropic tool definitions strictly: one bad tool fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Import counting into t; a bad tool goes to t.Skip.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	entries, err := jsonread.ToolList(data)
	if err != nil {
		return nil, err
	}
	product := native.Product{ID: native.DefaultProduct}
	for i, entry := range entries {
		t.Read()
		tool, err := decodeTool(entry, t)
		if err != nil {
			label := fmt.Sprintf("tools[%d]%s", i, jsonread.Label(entry, "name"))
			if err := t.Skip(label, fmt.Errorf("%s: %w", label, err)); err != nil {
				return nil, err
			}
			continue
		}
		product.Tools = append(product.Tools, tool)
	}
	return &native.Document{Products: []native.Product{product}}, nil
}

func decodeTool(entry any, t *tally.Tally) (native.Tool, error) {
	object, ok := entry.(map[string]any)
	if !ok {
		return native.Tool{}, fmt.Errorf("want a tool object, got %s", jsonread.TypeName(entry))
	}
	f := jsonread.Fields{Object: object}
	if kind := f.Str("type"); kind != "" && kind != "custom" {
		f.Fail(fmt.Errorf(`field "type": %q is a server tool the API runs, not a tool an agent can search for; remove it from the catalog`, kind))
	}
	tool := native.Tool{Name: f.Str("name"), Description: f.Str("description")}
	if f.Err == nil && tool.Name == "" {
		f.Fail(fmt.Errorf(`field "name": missing or empty`))
	}
	if f.Err == nil && !f.Has("input_schema") {
		f.Fail(fmt.Errorf(`field "input_schema": missing (Anthropic requires one per tool)`))
	}
	if f.Err == nil {
		native.ReadSchemaField(&tool, &f, "input_schema")
	}
	t.Keys("", object, "description", "input_schema", "name", "type")
	return tool, f.Err
}
