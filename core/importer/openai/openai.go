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
package openai

import (
	"fmt"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
)

// Format is this importer's name.
const Format = "openai"

// Import reads OpenAI tool definitions strictly: one bad tool fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Import counting into t; a bad tool goes to t.Skip.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	entries, err := jsonread.ToolList(data)
	if err != nil {
		return nil, err
	}
	doc := &native.Document{}
	loose := native.Product{ID: native.DefaultProduct}
	for i, entry := range entries {
		label := fmt.Sprintf("tools[%d]%s", i, jsonread.Label(entry, "name"))
		object, ok := entry.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a tool object, got %s", label, jsonread.TypeName(entry))
		}
		if object["type"] == "namespace" {
			product, err := namespace(object, label, t)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			doc.Products = append(doc.Products, product)
			continue
		}
		t.Read()
		tool, err := decodeTool(object, t)
		if err != nil {
			if err := t.Skip(label, fmt.Errorf("%s: %w", label, err)); err != nil {
				return nil, err
			}
			continue
		}
		loose.Tools = append(loose.Tools, tool)
	}
	if len(loose.Tools) > 0 {
		doc.Products = append(doc.Products, loose)
	}
	return doc, nil
}

func namespace(object map[string]any, outer string, t *tally.Tally) (native.Product, error) {
	f := jsonread.Fields{Object: object}
	product := native.Product{ID: f.Str("name"), Description: f.Str("description")}
	tools := f.Arr("tools")
	if f.Err != nil {
		return product, f.Err
	}
	for j, entry := range tools {
		object, ok := entry.(map[string]any)
		if !ok {
			return product, fmt.Errorf("tools[%d]: want a tool object, got %s", j, jsonread.TypeName(entry))
		}
		t.Read()
		tool, err := decodeTool(object, t)
		if err != nil {
			label := fmt.Sprintf("tools[%d]%s", j, jsonread.Label(entry, "name"))
			if err := t.Skip(outer+"."+label, fmt.Errorf("%s: %s: %w", outer, label, err)); err != nil {
				return product, fmt.Errorf("%s: %w", label, err)
			}
			continue
		}
		product.Tools = append(product.Tools, tool)
	}
	return product, nil
}

// decodeTool reads one function or custom tool in either API shape.
func decodeTool(object map[string]any, t *tally.Tally) (native.Tool, error) {
	f := jsonread.Fields{Object: object}
	kind := f.Str("type")
	switch kind {
	case "function", "custom":
	case "":
		f.Fail(fmt.Errorf(`field "type": missing (want "function", "custom" or "namespace")`))
	case "namespace":
		f.Fail(fmt.Errorf(`field "type": a namespace cannot hold another namespace`))
	default:
		f.Fail(fmt.Errorf(`field "type": %q is a built-in tool, not a function an agent can search for; remove it from the catalog`, kind))
	}
	if f.Err != nil {
		return native.Tool{}, f.Err
	}
	t.Keys("", object, "description", "function", "name", "parameters", "type")
	if function := f.Obj("function"); function != nil { // Chat Completions nests the definition
		f = jsonread.Fields{Object: function}
		t.Keys("function.", function, "description", "name", "parameters")
	}
	tool := native.Tool{Name: f.Str("name"), Description: f.Str("description")}
	if f.Err == nil && tool.Name == "" {
		f.Fail(fmt.Errorf(`field "name": missing or empty`))
	}
	native.ReadSchemaField(&tool, &f, "parameters")
	return tool, f.Err
}
