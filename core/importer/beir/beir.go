// Package beir imports the corpus of a BEIR-style tool-retrieval benchmark,
// corpus.jsonl, one tool per line, in either layout:
//
//   - BEIR's own: {"_id","title","text","metadata"}: the title is the tool's
//     display name, the text its description, and metadata's values that
//     carry words its keywords;
//   - this project's benchmark layout: {"id","name","description","text",
//     "doc"}, where doc is the tool's original definition (and text the
//     words of it, derived, so ignored when doc is there).
//
// An id "server::tool" becomes product "server" and tool "tool"; any other id
// is a tool under native.DefaultProduct. CanonicalPath gives the mapping, so
// that relevance judgements keyed by corpus id can be compared with search
// results.
//
// A definition (doc, or the line itself) is read under the names real
// catalogs use: parameters from "parameters", "inputSchema",
// "input_schema", "arguments", "api_arguments", "params" (also under
// "function"), in any shape native.ReadParameters knows, or ToolBench's
// "required_parameters"/"optional_parameters"; descriptions from
// "description", "func_description", "api_description", "summary"; keywords
// from "category", "category_name", "tags", "keywords"; "examples". A
// definition with an MCP "inputSchema" is an MCP tool and its annotations
// map to safety as in package mcp.
package beir

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
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

// Import reads corpus.jsonl strictly: a line that is not a tool fails the
// import. Blank lines are skipped.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith reads corpus.jsonl, counting into t what it reads, uses and
// ignores; a line that is not a tool goes to t.Skip (nil t: strict).
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	doc := &native.Document{}
	products := map[string]int{} // product ID → index in doc.Products (lookup only)
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		t.Read()
		product, tool, err := decodeLine(line, n+1, t)
		if err != nil {
			if err := t.Skip(tool.Origin, fmt.Errorf("%s: %w", tool.Origin, err)); err != nil {
				return nil, err
			}
			continue
		}
		i, seen := products[product.ID]
		if !seen {
			i = len(doc.Products)
			products[product.ID] = i
			doc.Products = append(doc.Products, product)
		}
		if p := &doc.Products[i]; p.Description == "" {
			p.Description = product.Description
		}
		doc.Products[i].Tools = append(doc.Products[i].Tools, tool)
	}
	return doc, nil
}

// decodeLine returns the tool of one line and its (still toolless) product.
// tool.Origin names the line even on error.
func decodeLine(line []byte, n int, t *tally.Tally) (native.Product, native.Tool, error) {
	var product native.Product
	tool := native.Tool{Origin: fmt.Sprintf("line %d", n)}
	value, err := jsonread.Decode(line)
	if err != nil {
		return product, tool, err
	}
	object, ok := value.(map[string]any)
	if !ok {
		return product, tool, fmt.Errorf("want a JSON object, got %s", jsonread.TypeName(value))
	}
	f := jsonread.Fields{Object: object}
	idKey := "id"
	if f.Has("_id") {
		idKey = "_id"
	}
	id := f.Str(idKey)
	if f.Err != nil {
		return product, tool, f.Err
	}
	if id == "" {
		return product, tool, fmt.Errorf(`field "_id" (or "id"): missing or empty`)
	}
	tool.Origin = fmt.Sprintf("line %d (%s %q)", n, idKey, id)
	product.ID, product.Name, tool.Name = Split(id)

	used := []string{idKey}
	title := f.Str("name")
	if f.Has("name") {
		used = append(used, "name")
	} else if f.Has("title") {
		title = f.Str("title")
		used = append(used, "title")
	}
	if title != tool.Name {
		tool.Title = title
	}
	description := f.Str("description")
	if description != "" {
		used = append(used, "description")
	}
	definitionValue := object["doc"]
	if s, isString := definitionValue.(string); isString && strings.HasPrefix(strings.TrimSpace(s), "{") {
		definitionValue, err = jsonread.Decode([]byte(s)) // ToolRet keeps the definition as JSON text
		if err != nil {
			return product, tool, fmt.Errorf(`field "doc": %w`, err)
		}
	}
	definition, _ := definitionValue.(map[string]any)
	if definitionValue != nil && definition == nil {
		return product, tool, fmt.Errorf(`field "doc": want an object, got %s`, jsonread.TypeName(object["doc"]))
	}
	if definition != nil {
		used = append(used, "doc")
	}
	if f.Err != nil {
		return product, tool, f.Err
	}

	var d definitionReader
	// The line itself may carry definition fields; doc's come after it.
	if err := d.read(object, "", t, used, []string{"text", "metadata"}); err != nil {
		return product, tool, err
	}
	if definition != nil {
		if err := d.read(definition, "doc.", t, nil, nil); err != nil {
			return product, tool, err
		}
	}
	for _, text := range d.descriptions {
		description = appendProse(description, text)
	}
	if description == "" && definition == nil && f.Has("text") {
		description = f.Str("text")
		t.Use("text")
	} else if f.Has("text") {
		t.Ignore("text") // the benchmark layout's text is derived from doc
	}
	tool.Description = description
	if tool.Title == "" && d.name != "" && d.name != tool.Name {
		tool.Title = d.name
	}
	tool.Summary = d.summary
	tool.Examples = d.examples
	tool.InputSchema, tool.Parameters, tool.SchemaField = d.schema, d.parameters, d.schemaField
	if d.mcp {
		tool.Interface = native.InterfaceMCP
		tool.Safety = d.safety
	}
	keywords := d.keywords
	for _, group := range d.groups { // a group that is not already the product names it
		if group != product.Name {
			keywords = append(keywords, group)
		}
	}
	metadata := f.Obj("metadata")
	if f.Err != nil {
		return product, tool, f.Err
	}
	keywords = append(keywords, metadataKeywords(metadata, t)...)
	if metadata != nil {
		t.Use("metadata")
	}
	tool.Keywords = catalog.SortedUnique(keywords)
	product.Description = d.productDescription
	return product, tool, nil
}

// appendProse adds text to description unless description already says it.
func appendProse(description, text string) string {
	text = strings.TrimSpace(text)
	switch {
	case text == "" || strings.Contains(description, text):
		return description
	case description == "":
		return text
	}
	return description + "\n\n" + text
}

// Field names of a definition, by what they become.
var (
	nameFields        = []string{"name", "api_name"}
	descriptionFields = []string{"description", "func_description", "api_description"}
	keywordFields     = []string{"category", "category_name", "tags", "keywords"}
	groupFields       = []string{"tool_name", "server"} // the product: a keyword unless it is the product's name already
	parameterFields   = []string{"parameters", "inputSchema", "input_schema", "arguments", "api_arguments", "params"}
	toolBenchFields   = []string{"required_parameters", "optional_parameters"}
)

// definitionReader gathers what the definition fields of a line say.
type definitionReader struct {
	name               string
	descriptions       []string
	summary            string
	keywords           []string
	groups             []string
	examples           []string
	productDescription string

	schemaField string
	schema      catalog.RawJSON
	parameters  []native.Parameter
	hasSchema   bool
	mcp         bool
	safety      catalog.Safety
}

// read reads the definition fields of object, named prefix+key in messages
// and in the tally. The keys in handled are the caller's: counted as used;
// the keys in own the caller reads and counts itself.
func (d *definitionReader) read(object map[string]any, prefix string, t *tally.Tally, handled, own []string) error {
	used := slices.Clone(handled)
	// Parameter fields first, in the order of preference: the first present
	// one is the tool's parameters.
	keys := slices.Concat(parameterFields, slices.Sorted(maps.Keys(object)))
	for i, key := range keys {
		if object[key] == nil || slices.Contains(handled, key) || slices.Contains(own, key) || slices.Index(keys, key) < i {
			continue
		}
		ok, err := d.field(object, key, prefix+key, prefix, t)
		if err != nil {
			return err
		}
		if ok {
			used = append(used, key)
		}
	}
	counted := object
	if len(own) > 0 {
		counted = maps.Clone(object)
		for _, key := range own {
			delete(counted, key)
		}
	}
	t.Keys(prefix, counted, used...)
	return nil
}

// field reads one key; it reports whether the value reached the tool.
func (d *definitionReader) field(object map[string]any, key, field, prefix string, t *tally.Tally) (bool, error) {
	wrap := func(err error) error { return fmt.Errorf("field %q: %w", field, err) }
	str := func() (string, error) {
		s, ok := object[key].(string)
		if !ok {
			return "", wrap(fmt.Errorf("want a string, got %s", jsonread.TypeName(object[key])))
		}
		return s, nil
	}
	switch {
	case slices.Contains(nameFields, key):
		name, err := str()
		if d.name == "" {
			d.name = name
		}
		return name != "", err
	case slices.Contains(descriptionFields, key):
		text, err := str()
		d.descriptions = append(d.descriptions, text)
		return text != "", err
	case key == "summary":
		summary, err := str()
		d.summary = summary
		return summary != "", err
	case key == "tool_description":
		description, err := str()
		d.productDescription = description
		return description != "", err
	case slices.Contains(keywordFields, key):
		words := labels(object[key])
		d.keywords = append(d.keywords, words...)
		return len(words) > 0, nil
	case slices.Contains(groupFields, key):
		s, _ := object[key].(string)
		if strings.TrimSpace(s) != "" {
			d.groups = append(d.groups, s)
		}
		return s != "", nil
	case key == "examples":
		d.examples = append(d.examples, labels(object[key])...)
		return len(d.examples) > 0, nil
	case slices.Contains(parameterFields, key):
		if d.hasSchema {
			return false, nil // one definition of the parameters; the first wins
		}
		schema, parameters, err := native.ReadParameters(object[key])
		if err != nil {
			return false, wrap(err)
		}
		d.hasSchema, d.schemaField, d.schema, d.parameters = true, field, schema, parameters
		if key == "inputSchema" {
			d.mcp = true
			annotations, _ := object["annotations"].(map[string]any)
			if object["annotations"] != nil && annotations == nil {
				return false, fmt.Errorf(`field "%sannotations": want an object, got %s`, prefix, jsonread.TypeName(object["annotations"]))
			}
			a := jsonread.Fields{Object: annotations}
			d.safety = mcp.Safety(a.OptBool("readOnlyHint"), a.OptBool("destructiveHint"), a.OptBool("idempotentHint"))
			if a.Err != nil {
				return false, fmt.Errorf(`field "%sannotations": %w`, prefix, a.Err)
			}
		}
		return true, nil
	case key == "annotations":
		return d.mcp || object["inputSchema"] != nil, nil // read with inputSchema
	case slices.Contains(toolBenchFields, key):
		if key == "optional_parameters" && object["required_parameters"] != nil {
			return true, nil // read with required_parameters
		}
		if d.hasSchema {
			return false, nil
		}
		parameters, err := toolBenchParameters(object, prefix)
		if err != nil {
			return false, err
		}
		d.hasSchema, d.parameters = true, parameters
		return true, nil
	case key == "function":
		function, ok := object[key].(map[string]any)
		if !ok {
			return false, wrap(fmt.Errorf("want an object, got %s", jsonread.TypeName(object[key])))
		}
		return true, d.read(function, field+".", t, nil, nil)
	}
	return false, nil
}

// toolBenchParameters reads ToolBench's required/optional lists.
func toolBenchParameters(object map[string]any, prefix string) ([]native.Parameter, error) {
	parameters := []native.Parameter{}
	for _, list := range []struct {
		key      string
		required bool
	}{{"required_parameters", true}, {"optional_parameters", false}} {
		entries, ok := object[list.key].([]any)
		if !ok && object[list.key] != nil {
			return nil, fmt.Errorf("field %q: want an array, got %s", prefix+list.key, jsonread.TypeName(object[list.key]))
		}
		for i, entry := range entries {
			p, err := toolBenchParameter(entry, list.required)
			if err != nil {
				return nil, fmt.Errorf("field \"%s%s[%d]\": %w", prefix, list.key, i, err)
			}
			if repeatedParameter(parameters, p) {
				continue
			}
			parameters = append(parameters, p)
		}
	}
	return parameters, nil
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

// labels returns the strings in a label value (a string, or a list of
// strings and objects, whose string values count) that carry words.
func labels(value any) []string {
	var out []string
	switch v := value.(type) {
	case string:
		if hasWords(v) {
			out = append(out, strings.TrimSpace(v))
		}
	case []any:
		for _, item := range v {
			out = append(out, labels(item)...)
		}
	case map[string]any:
		for _, key := range slices.Sorted(maps.Keys(v)) {
			out = append(out, labels(v[key])...)
		}
	}
	return out
}

// metadataKeywords keeps the string (and list of string) values of a BEIR
// metadata object that carry words; numbers, booleans and nested objects
// are counted as ignored.
func metadataKeywords(metadata map[string]any, t *tally.Tally) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(metadata)) {
		if metadata[key] == nil {
			continue
		}
		var words []string
		switch metadata[key].(type) {
		case string, []any:
			words = labels(metadata[key])
		}
		if len(words) > 0 {
			t.Use("metadata." + key)
		} else {
			t.Ignore("metadata." + key)
		}
		out = append(out, words...)
	}
	return out
}

// hasWords reports whether s has a letter: a label such as "17" or "4.5"
// is no word an agent would search for.
func hasWords(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}
