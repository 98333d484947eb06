// Package mcp imports Model Context Protocol tool lists: the result of one
// server's tools/list (or the JSON-RPC response that carries it), or several
// servers at once as {"servers": {"<server>": <tools/list result>, …}}. The
// server name is the product; a single result goes under
// native.DefaultProduct.
//
// Tool annotations map to the safety vocabulary with the MCP specification's
// defaults for absent hints (readOnlyHint false, destructiveHint true,
// idempotentHint false): a tool that says nothing is treated as one that may
// destroy, as the specification asks clients to assume.
//
// Every other field's words (outputSchema, _meta, other annotations) go to
// the tool's extra text; a malformed detail (a text that is not a string, a
// hint that is a string boolean, a schema that is a parameter list) is
// repaired with the tool kept unless the tally is strict.
package mcp

import (
	"fmt"
	"maps"
	"slices"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Format is this importer's name.
const Format = "mcp"

// Import reads one tools/list result, a JSON-RPC response holding one, or a
// {"servers": {…}} object of them, strictly: one bad tool fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Import counting into t; a bad tool goes to t.Skip.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	return read(data, t, false)
}

// ImportForToolSearch is ImportWith for provider tool search: every tool
// keeps its definition as tools/list gave it (MCP has no deferred loading:
// every tool is imported, none is always loaded).
func ImportForToolSearch(data []byte, t *tally.Tally) (*native.Document, []string, error) {
	doc, err := read(data, t, true)
	return doc, nil, err
}

func read(data []byte, t *tally.Tally, keep bool) (*native.Document, error) {
	value, err := jsonread.Decode(data)
	if err != nil {
		return nil, err
	}
	root, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`want a tools/list result ({"tools": […]}) or {"servers": {…}}, got %s`, jsonread.TypeName(value))
	}
	doc := &native.Document{}
	if servers, multi := root["servers"]; multi {
		byName, ok := servers.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`field "servers": want an object of server name → tools/list result, got %s`, jsonread.TypeName(servers))
		}
		if len(root) != 1 {
			return nil, fmt.Errorf(`a {"servers": …} catalog must have no other top-level field`)
		}
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			product, err := server(name, byName[name], t, keep)
			if err != nil {
				return nil, fmt.Errorf("servers[%q]: %w", name, err)
			}
			if len(product.Tools) == 0 {
				continue // a server may offer only prompts or resources: nothing to search
			}
			doc.Products = append(doc.Products, product)
		}
		return doc, nil
	}
	product, err := server(native.DefaultProduct, root, t, keep)
	product.Name = "" // the default product has no display name of its own
	if err != nil {
		return nil, err
	}
	doc.Products = append(doc.Products, product)
	return doc, nil
}

// server reads one tools/list result (unwrapping a JSON-RPC response).
func server(name string, value any, t *tally.Tally, keep bool) (native.Product, error) {
	product := native.Product{ID: native.ProductID(name), Name: name}
	if list, isList := value.([]any); isList && t.Lenient() {
		// The tools themselves, without the result object around them.
		if err := t.Repair("servers", fmt.Errorf("servers[%q]: a list of tools, not a tools/list result; read as its tools", name)); err != nil {
			return product, err
		}
		value = map[string]any{"tools": list}
	}
	result, ok := value.(map[string]any)
	if !ok {
		return product, fmt.Errorf("want a tools/list result object, got %s", jsonread.TypeName(value))
	}
	if inner, isRPC := result["result"].(map[string]any); isRPC && result["jsonrpc"] != nil {
		result = inner
	}
	f := jsonread.Fields{Object: result}
	tools := f.Arr("tools")
	if f.Err == nil && !f.Has("tools") {
		f.Fail(fmt.Errorf(`missing field "tools"`))
	}
	if f.Err != nil {
		return product, f.Err
	}
	for i, entry := range tools {
		t.Read()
		tool, err := decodeTool(entry, t, keep)
		if err != nil {
			label := fmt.Sprintf("tools[%d]%s", i, jsonread.Label(entry, "name"))
			if name != native.DefaultProduct {
				label = fmt.Sprintf("servers[%q].%s", name, label)
			}
			if err := t.Skip(label, fmt.Errorf("tools[%d]%s: %w", i, jsonread.Label(entry, "name"), err)); err != nil {
				return product, err
			}
			continue
		}
		product.Tools = append(product.Tools, tool)
	}
	return product, nil
}

// roles of a tool's fields, for the report.
var roles = []native.Role{
	{Key: "annotations", To: "safety"}, {Key: "deprecated", To: "deprecated"}, {Key: "description", To: "description"},
	{Key: "inputSchema", To: "parameters"}, {Key: "name", To: "name"}, {Key: "title", To: "title"},
}

// annotationRoles: the annotations a tool's catalog fields take; any other
// annotation's words go to extra.
var annotationRoles = []native.Role{
	{Key: "deprecated", To: "deprecated"}, {Key: "destructiveHint", To: "safety"}, {Key: "idempotentHint", To: "safety"},
	{Key: "openWorldHint"}, {Key: "readOnlyHint", To: "safety"}, {Key: "title", To: "title"},
}

func decodeTool(entry any, t *tally.Tally, keep bool) (native.Tool, error) {
	object, ok := entry.(map[string]any)
	if !ok {
		return native.Tool{}, fmt.Errorf("want a tool object, got %s", jsonread.TypeName(entry))
	}
	f := jsonread.Fields{Object: object}
	tool := native.Tool{Name: f.Str("name"), Interface: native.InterfaceMCP}
	if f.Err == nil && tool.Name == "" {
		f.Fail(fmt.Errorf(`field "name": missing or empty`))
	}
	if f.Err != nil {
		return tool, f.Err // no identity: nothing to keep
	}
	r := &native.Reader{T: t, Name: tool.Name}
	tool.Title = r.Text(&f, "title", "title")
	tool.Description = r.Text(&f, "description", "description")
	native.ReadSchemaFieldWith(&tool, &f, "inputSchema", r)
	if d, ok := object["deprecated"]; ok {
		if err := r.Deprecated(&tool, d, "deprecated"); err != nil {
			f.Fail(err)
		}
	}
	var annotations jsonread.Fields
	switch a := object["annotations"].(type) {
	case nil:
	case map[string]any:
		annotations.Object = a
	default:
		if err := r.Fix("annotations", fmt.Errorf(`field "annotations": want an object, got %s; dropped`, jsonread.TypeName(a))); err != nil {
			f.Fail(err)
		}
		r.Extra.Walk(a)
	}
	if tool.Title == "" {
		tool.Title = r.Text(&annotations, "title", "annotations.title")
	} else if title, _ := annotations.Object["title"].(string); title != tool.Title {
		r.Extra.Add(title)
	}
	tool.Safety = Safety(r.Bool(&annotations, "readOnlyHint", "annotations.readOnlyHint"),
		r.Bool(&annotations, "destructiveHint", "annotations.destructiveHint"),
		r.Bool(&annotations, "idempotentHint", "annotations.idempotentHint"))
	if d, ok := annotations.Object["deprecated"]; ok {
		if err := r.Deprecated(&tool, d, "annotations.deprecated"); err != nil {
			f.Fail(err)
		}
	}
	if annotations.Err != nil {
		f.Fail(fmt.Errorf("annotations: %w", annotations.Err))
	}
	r.Route("", object, roles...)
	if annotations.Object != nil {
		r.Route("annotations.", annotations.Object, annotationRoles...)
	}
	if err := r.Finish(&tool); err != nil {
		f.Fail(err)
	}
	if keep && f.Err == nil {
		original, err := jsonw.AppendValue(nil, object, false)
		if err != nil {
			f.Fail(err)
		}
		tool.Original = original
	}
	return tool, f.Err
}

// Safety maps MCP tool annotation hints (nil when absent) to the safety
// vocabulary. Effect: read-only → read; else destructive → destructive;
// else write. Risk follows the effect (low, high, medium); a destructive
// tool needs the user's confirmation. A read-only tool is idempotent (it
// changes nothing, however often it runs); otherwise idempotentHint decides.
func Safety(readOnlyHint, destructiveHint, idempotentHint *bool) catalog.Safety {
	hint := func(v *bool, def bool) bool {
		if v == nil {
			return def
		}
		return *v
	}
	readOnly, destructive, idempotent := hint(readOnlyHint, false), hint(destructiveHint, true), hint(idempotentHint, false)
	s := catalog.Safety{Confirmation: "not_required", Idempotency: "non_idempotent"}
	switch {
	case readOnly:
		s.Effect, s.Risk, s.Idempotency = "read", "low", "idempotent"
	case destructive:
		s.Effect, s.Risk, s.Confirmation = "destructive", "high", "user_required"
	default:
		s.Effect, s.Risk = "write", "medium"
	}
	if !readOnly && idempotent {
		s.Idempotency = "idempotent"
	}
	return s
}
