// Package beir imports the corpus of a BEIR-style tool-retrieval benchmark:
// corpus.jsonl, one tool per line as {"id","name","description","doc"},
// where doc is the tool's original definition. It exists for evaluation
// (wasmhost eval), so that a benchmark's tools are searched exactly as a
// user's would be.
//
// An id "server::tool" becomes product "server" and tool "tool"; any other id
// is a tool under native.DefaultProduct. CanonicalPath gives the mapping, so
// that relevance judgements keyed by corpus id can be compared with search
// results. Parameters come from the definition's JSON Schema ("parameters",
// "inputSchema" or "input_schema") or from ToolBench's
// "required_parameters"/"optional_parameters" lists; a definition with an
// MCP "inputSchema" is an MCP tool and its annotations map to safety as in
// package mcp.
package beir

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/mcp"
	"github.com/toolsift/toolsift/core/importer/native"
)

// Format is this importer's name.
const Format = "beir"

const serverSeparator = "::"

// Split returns the product ID, the product's display name and the tool
// name of a corpus id.
func Split(id string) (productID, productName, name string) {
	if server, tool, ok := strings.Cut(id, serverSeparator); ok {
		return native.ProductID(server), server, tool
	}
	return native.DefaultProduct, "", id
}

// CanonicalPath is the canonical path the tool with this corpus id gets.
func CanonicalPath(id string) string {
	product, _, name := Split(id)
	return product + "." + name
}

// Import reads corpus.jsonl. Blank lines are skipped; every other line must
// be one tool.
func Import(data []byte) (*native.Document, error) {
	doc := &native.Document{}
	products := map[string]int{} // product ID → index in doc.Products (lookup only)
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		product, tool, err := decodeLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		i, seen := products[product.ID]
		if !seen {
			i = len(doc.Products)
			products[product.ID] = i
			doc.Products = append(doc.Products, product)
		}
		doc.Products[i].Tools = append(doc.Products[i].Tools, tool)
	}
	return doc, nil
}

// decodeLine returns the tool of one line and its (still empty) product.
func decodeLine(line []byte) (native.Product, native.Tool, error) {
	var product native.Product
	value, err := jsonread.Decode(line)
	if err != nil {
		return product, native.Tool{}, err
	}
	object, ok := value.(map[string]any)
	if !ok {
		return product, native.Tool{}, fmt.Errorf("want a JSON object, got %s", jsonread.TypeName(value))
	}
	f := jsonread.Fields{Object: object}
	id := f.Str("id")
	if f.Err != nil {
		return product, native.Tool{}, f.Err
	}
	if id == "" {
		return product, native.Tool{}, fmt.Errorf(`field "id": missing or empty`)
	}
	var name string
	product.ID, product.Name, name = Split(id)
	tool := native.Tool{Name: name, Description: f.Str("description")}
	if title := f.Str("name"); title != name {
		tool.Title = title
	}
	definition := jsonread.Fields{Object: f.Obj("doc")}
	if f.Err != nil {
		return product, tool, fmt.Errorf("id %q: %w", id, f.Err)
	}
	if err := fromDefinition(&tool, &definition); err != nil {
		return product, tool, fmt.Errorf("id %q: doc: %w", id, err)
	}
	return product, tool, nil
}

// fromDefinition fills the tool's schema, parameters and safety from its
// original definition.
func fromDefinition(tool *native.Tool, d *jsonread.Fields) error {
	for _, key := range []string{"parameters", "inputSchema", "input_schema"} {
		if d.Has(key) {
			d.Obj(key)
			tool.InputSchema = d.Raw(key)
			break
		}
	}
	if d.Has("inputSchema") { // an MCP tool definition
		tool.Interface = native.InterfaceMCP
		annotations := jsonread.Fields{Object: d.Obj("annotations")}
		tool.Safety = mcp.Safety(annotations.OptBool("readOnlyHint"), annotations.OptBool("destructiveHint"), annotations.OptBool("idempotentHint"))
		if annotations.Err != nil {
			d.Fail(fmt.Errorf("annotations: %w", annotations.Err))
		}
	}
	if d.Has("required_parameters") || d.Has("optional_parameters") { // ToolBench
		tool.Parameters = []native.Parameter{}
		for _, list := range []struct {
			key      string
			required bool
		}{{"required_parameters", true}, {"optional_parameters", false}} {
			for i, entry := range d.Arr(list.key) {
				p, err := toolBenchParameter(entry, list.required)
				if err != nil {
					d.Fail(fmt.Errorf("%s[%d]: %w", list.key, i, err))
					break
				}
				if repeatedParameter(tool.Parameters, p) {
					continue
				}
				tool.Parameters = append(tool.Parameters, p)
			}
		}
	}
	return d.Err
}

func toolBenchParameter(entry any, required bool) (native.Parameter, error) {
	object, ok := entry.(map[string]any)
	if !ok {
		return native.Parameter{}, fmt.Errorf("want an object, got %s", jsonread.TypeName(entry))
	}
	f := jsonread.Fields{Object: object}
	p := native.Parameter{Name: f.Str("name"), Type: f.Str("type"), Description: f.Str("description"), Required: required}
	if f.Has("default") {
		p.Default = f.Raw("default")
	}
	return p, f.Err
}

// repeatedParameter reports whether p's name is already listed. ToolBench
// lists a repeatable HTTP query parameter ("array[]") once per value; it is
// one parameter, whose first entry describes it.
func repeatedParameter(listed []native.Parameter, p native.Parameter) bool {
	for _, q := range listed {
		if q.Name == p.Name {
			return true
		}
	}
	return false
}
