// Package beir imports the corpus of a BEIR-style tool-retrieval benchmark,
// corpus.jsonl, one tool per line, in either layout:
//
//   - BEIR's own: {"_id","title","text","metadata"}: the title is the tool's
//     display name, the text its description, and metadata's values that
//     carry words its keywords;
//   - this project's benchmark layout: {"id","name","description","text",
//     "doc"}, where doc is the tool's original definition (an object, its
//     JSON text, or an array of functions, read as one tool holding them)
//     and text the words of it: beside a description or doc, the lines of
//     text that say something new go to the tool's extra text.
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
// map to safety as in package mcp. Every other field's words go to the
// tool's extra text, and a malformed detail is repaired with the tool kept
// (native.Reader) unless the tally is strict: only a line without a usable
// id, or a duplicate one, is skipped.
package beir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/mcp"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
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
// tool.Origin names the line even on error. Only a line without a usable
// id is refused; anything else malformed is repaired through t (see
// native.Reader), unless t is strict.
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
	r := &native.Reader{T: t}
	var id string
	if number, isNumber := object[idKey].(json.Number); isNumber && t.Lenient() {
		id = number.String() // qrels name it by the same digits
		_ = r.Fix(idKey, fmt.Errorf("line %d: field %q: the number %s read as a string", n, idKey, id))
	} else {
		id = f.Str(idKey)
	}
	if f.Err != nil {
		return product, tool, f.Err
	}
	if id == "" {
		return product, tool, fmt.Errorf(`field "_id" (or "id"): missing or empty`)
	}
	tool.Origin = fmt.Sprintf("line %d (%s %q)", n, idKey, id)
	r.Tool = tool.Origin
	product.ID, product.Name, tool.Name = Split(id)

	known := []native.Role{{Key: idKey, To: "name"}}
	title := ""
	if f.Has("name") {
		title = r.Text(&f, "name", "name")
		known = append(known, native.Role{Key: "name", To: "title"})
		if f.Has("title") {
			known = append(known, native.Role{Key: "title", To: "title"})
			if other := r.Text(&f, "title", "title"); other != title {
				r.Extra.Add(other)
			}
		}
	} else if f.Has("title") {
		title = r.Text(&f, "title", "title")
		known = append(known, native.Role{Key: "title", To: "title"})
	}
	if title != tool.Name {
		tool.Title = title
	}
	description := r.Text(&f, "description", "description")
	known = append(known, native.Role{Key: "description", To: "description"})
	definitionValue := object["doc"]
	if s, isString := definitionValue.(string); isString {
		if strings.HasPrefix(strings.TrimSpace(s), "{") || strings.HasPrefix(strings.TrimSpace(s), "[") {
			decoded, err := jsonread.Decode([]byte(s)) // ToolRet keeps the definition as JSON text
			if err != nil {
				if err := r.Fix("doc", fmt.Errorf(`field "doc": %w; read as text`, err)); err != nil {
					return product, tool, err
				}
				decoded = s
			}
			definitionValue = decoded
		}
	}
	var definitions []map[string]any // one, or a service's functions
	switch d := definitionValue.(type) {
	case nil:
	case map[string]any:
		definitions = []map[string]any{d}
	case []any:
		// A service with several functions: one tool holds them all (the
		// record's id is what relevance judgements name).
		if err := r.Fix("doc", fmt.Errorf(`field "doc": an array of %d definitions; read as one tool holding them`, len(d))); err != nil {
			return product, tool, err
		}
		for _, item := range d {
			if m, ok := item.(map[string]any); ok {
				definitions = append(definitions, m)
			} else {
				r.Extra.Walk(item)
			}
		}
	default:
		if err := r.Fix("doc", fmt.Errorf(`field "doc": want an object, got %s; its text is kept`, jsonread.TypeName(definitionValue))); err != nil {
			return product, tool, err
		}
		r.Extra.Walk(definitionValue)
	}
	if definitionValue != nil {
		known = append(known, native.Role{Key: "doc", To: "definition"})
	}
	if f.Err != nil {
		return product, tool, f.Err
	}

	d := definitionReader{r: r}
	// The line itself may carry definition fields; doc's come after it.
	if err := d.read(object, "", known, []string{"text", "metadata"}); err != nil {
		return product, tool, err
	}
	for i, definition := range definitions {
		prefix := "doc."
		if _, isList := definitionValue.([]any); isList {
			prefix = "doc[]."
		}
		if i > 0 && d.name != "" {
			d.names = append(d.names, d.name) // each function's name is a word of the tool
			d.name = ""
		}
		if err := d.read(definition, prefix, nil, nil); err != nil {
			return product, tool, err
		}
	}
	for _, name := range d.names {
		r.Extra.Add(name)
	}
	for _, text := range d.descriptions {
		description = appendProse(description, text)
	}
	text := r.Text(&f, "text", "text")
	switch {
	case text == "":
	case description == "" && definitions == nil:
		description = text
		t.UseAs("text", "description")
	default:
		// BEIR's text is the document; beside a definition it is derived
		// from it. Its lines that say something the tool's fields do not
		// are kept as extra text.
		if keepNewLines(r, text, tool, description, title, d.parameters, d.name) {
			t.UseAs("text", tally.ToExtra)
		} else {
			t.IgnoreAs("text", "dropped: repeats the definition")
		}
	}
	tool.Description = description
	if tool.Title == "" && d.name != "" && d.name != tool.Name {
		tool.Title = d.name
	}
	tool.Summary = d.summary
	tool.Examples = d.examples
	tool.InputSchema, tool.Parameters, tool.SchemaField = d.schema, d.parameters, d.schemaField
	tool.Deprecated = d.deprecated
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
	switch metadata := object["metadata"].(type) {
	case nil:
	case map[string]any:
		keywords = append(keywords, metadataKeywords(metadata, r)...)
		t.UseAs("metadata", "keywords")
	default:
		if err := r.Fix("metadata", fmt.Errorf(`field "metadata": want an object, got %s; its text is kept`, jsonread.TypeName(metadata))); err != nil {
			return product, tool, err
		}
		r.Extra.Walk(metadata)
	}
	tool.Keywords = catalog.SortedUnique(keywords)
	product.Description = d.productDescription
	if err := r.Finish(&tool); err != nil {
		return product, tool, err
	}
	return product, tool, nil
}

// keepNewLines adds to r.Extra each line of a record's text that the
// tool's other fields do not already hold (a BEIR text rendered from the
// definition repeats them), and reports whether any line was text to index.
func keepNewLines(r *native.Reader, text string, tool native.Tool, description, title string, parameters []native.Parameter, name string) bool {
	any := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == tool.Name || line == title || line == name || strings.Contains(description, line) {
			continue
		}
		if slices.ContainsFunc(parameters, func(p native.Parameter) bool { return p.Name == line || p.Description == line }) {
			continue
		}
		any = r.Extra.Add(line) || any
	}
	return any
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
	r                  *native.Reader
	name               string
	names              []string // the names of a service's further functions
	descriptions       []string
	summary            string
	keywords           []string
	groups             []string
	examples           []string
	productDescription string
	deprecated         bool

	schemaField string
	schema      catalog.RawJSON
	parameters  []native.Parameter
	hasSchema   bool
	mcp         bool
	safety      catalog.Safety
}

// read reads the definition fields of object, named prefix+key in messages
// and in the tally. The keys in handled are the caller's, counted with
// their roles; the keys in own the caller reads and counts itself. Every
// other key's words go to extra.
func (d *definitionReader) read(object map[string]any, prefix string, handled []native.Role, own []string) error {
	// Parameter fields first, in the order of preference: the first present
	// one is the tool's parameters.
	keys := slices.Concat(parameterFields, slices.Sorted(maps.Keys(object)))
	for i, key := range keys {
		if object[key] == nil || slices.ContainsFunc(handled, func(h native.Role) bool { return h.Key == key }) || slices.Contains(own, key) || slices.Index(keys, key) < i {
			continue
		}
		role, err := d.field(object, key, prefix+key, prefix)
		if err != nil {
			return err
		}
		if role != "" {
			handled = append(handled, native.Role{Key: key, To: role})
		}
	}
	counted := object
	if len(own) > 0 {
		counted = maps.Clone(object)
		for _, key := range own {
			delete(counted, key)
		}
	}
	d.r.Route(prefix, counted, handled...)
	return nil
}

// field reads one key; it returns the catalog field the value reached
// ("" for none: the key's words then go to extra).
func (d *definitionReader) field(object map[string]any, key, field, prefix string) (string, error) {
	r := d.r
	f := jsonread.Fields{Object: object}
	str := func() string { return r.Text(&f, key, field) }
	switch {
	case slices.Contains(nameFields, key):
		name := str()
		if d.name == "" {
			d.name = name
		} else {
			d.names = append(d.names, name)
		}
		return roleIf(name != "", "title"), f.Err
	case slices.Contains(descriptionFields, key):
		text := str()
		d.descriptions = append(d.descriptions, text)
		return roleIf(text != "", "description"), f.Err
	case key == "summary":
		d.summary = str()
		return roleIf(d.summary != "", "summary"), f.Err
	case key == "tool_description":
		d.productDescription = str()
		return roleIf(d.productDescription != "", "product description"), f.Err
	case key == "deprecated":
		var tool native.Tool
		if err := r.Deprecated(&tool, object[key], field); err != nil {
			return "", err
		}
		d.deprecated = d.deprecated || tool.Deprecated
		return "deprecated", nil
	case slices.Contains(keywordFields, key):
		words := labels(object[key])
		d.keywords = append(d.keywords, words...)
		return roleIf(len(words) > 0, "keywords"), nil
	case slices.Contains(groupFields, key):
		s, _ := object[key].(string)
		if strings.TrimSpace(s) != "" {
			d.groups = append(d.groups, s)
		}
		return roleIf(s != "", "keywords"), nil
	case key == "examples":
		d.examples = append(d.examples, labels(object[key])...)
		return roleIf(len(d.examples) > 0, "examples"), nil
	case slices.Contains(parameterFields, key):
		if d.hasSchema {
			return "", nil // one definition of the parameters; the first wins; the others' words go to extra
		}
		schema, parameters, err := native.ReadParametersWith(object[key], r, field)
		if err != nil {
			return "", fmt.Errorf("field %q: %w", field, err)
		}
		d.hasSchema, d.schemaField, d.schema, d.parameters = true, field, schema, parameters
		if m, ok := object[key].(map[string]any); ok && schema != nil {
			r.Extra.Walk(m["description"]) // the schema's own description
		}
		if key == "inputSchema" {
			d.mcp = true
			var a jsonread.Fields
			switch annotations := object["annotations"].(type) {
			case nil:
			case map[string]any:
				a.Object = annotations
			default:
				if err := r.Fix(prefix+"annotations", fmt.Errorf(`field "%sannotations": want an object, got %s; dropped`, prefix, jsonread.TypeName(annotations))); err != nil {
					return "", err
				}
			}
			d.safety = mcp.Safety(r.Bool(&a, "readOnlyHint", prefix+"annotations.readOnlyHint"),
				r.Bool(&a, "destructiveHint", prefix+"annotations.destructiveHint"),
				r.Bool(&a, "idempotentHint", prefix+"annotations.idempotentHint"))
			if a.Err != nil {
				return "", fmt.Errorf(`field "%sannotations": %w`, prefix, a.Err)
			}
		}
		return "parameters", nil
	case key == "annotations":
		if d.mcp || object["inputSchema"] != nil { // read with inputSchema
			return "safety", nil
		}
		return "", nil
	case slices.Contains(toolBenchFields, key):
		if key == "optional_parameters" && object["required_parameters"] != nil {
			return "parameters", nil // read with required_parameters
		}
		if d.hasSchema {
			return "", nil
		}
		parameters, err := toolBenchParameters(object, prefix, r)
		if err != nil {
			return "", err
		}
		d.hasSchema, d.parameters = true, parameters
		return "parameters", nil
	case key == "function":
		function, ok := object[key].(map[string]any)
		if !ok {
			err := fmt.Errorf("field %q: want an object, got %s", field, jsonread.TypeName(object[key]))
			if err := r.Fix(field, fmt.Errorf("%w; its text is kept", err)); err != nil {
				return "", err
			}
			return "", nil
		}
		return "definition", d.read(function, field+".", nil, nil)
	}
	return "", nil
}

func roleIf(ok bool, role string) string {
	if ok {
		return role
	}
	return ""
}

// toolBenchParameters reads ToolBench's required/optional lists.
func toolBenchParameters(object map[string]any, prefix string, r *native.Reader) ([]native.Parameter, error) {
	parameters := []native.Parameter{}
	for _, list := range []struct {
		key      string
		required bool
	}{{"required_parameters", true}, {"optional_parameters", false}} {
		field := prefix + list.key
		var entries []any
		switch v := object[list.key].(type) {
		case nil:
		case []any:
			entries = v
		default:
			err := fmt.Errorf("field %q: want an array, got %s", field, jsonread.TypeName(v))
			if r.T.Lenient() {
				// Any shape ReadParameters knows (a map of name → spec, say).
				_, listed, lerr := native.ReadParametersWith(v, r, field)
				if lerr == nil && r.Fix(field, fmt.Errorf("%w; read as parameters", err)) == nil {
					for _, p := range listed {
						p.Required = p.Required || list.required
						if !repeatedParameter(parameters, p) {
							parameters = append(parameters, p)
						}
					}
					continue
				}
			}
			return nil, err
		}
		for i, entry := range entries {
			p, err := toolBenchParameter(entry, list.required, r, field)
			if err != nil {
				return nil, fmt.Errorf("field \"%s[%d]\": %w", field, i, err)
			}
			if p.Name == "" && r.T.Lenient() {
				if err := r.Fix(field, fmt.Errorf("field \"%s[%d]\": a parameter without a name; its text is kept", field, i)); err != nil {
					return nil, err
				}
				r.Extra.Add(p.Description)
				continue
			}
			if repeatedParameter(parameters, p) {
				continue
			}
			parameters = append(parameters, p)
		}
	}
	return parameters, nil
}

func toolBenchParameter(entry any, required bool, r *native.Reader, field string) (native.Parameter, error) {
	if name, ok := entry.(string); ok && r.T.Lenient() {
		return native.Parameter{Name: name, Required: required}, nil
	}
	object, ok := entry.(map[string]any)
	if !ok {
		return native.Parameter{}, fmt.Errorf("want an object, got %s", jsonread.TypeName(entry))
	}
	f := jsonread.Fields{Object: object}
	p := native.Parameter{Name: r.Text(&f, "name", field+".name"), Type: r.Text(&f, "type", field+".type"),
		Description: r.Text(&f, "description", field+".description"), Required: required}
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
// metadata object that carry words; the words of nested objects go to
// extra, and numbers and booleans are counted as dropped.
func metadataKeywords(metadata map[string]any, r *native.Reader) []string {
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
		switch {
		case len(words) > 0:
			r.T.UseAs("metadata."+key, "keywords")
		case r.Extra.Walk(metadata[key]):
			r.T.UseAs("metadata."+key, tally.ToExtra)
		default:
			r.T.IgnoreAs("metadata."+key, tally.ToNoneOfThem)
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
