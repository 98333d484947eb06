package native

import (
	"fmt"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/jsonw"
)

// Decode reads the JSON form of a document strictly: the right version, no
// unknown fields, every value of its documented type. Errors name the
// product and tool by position and name.
func Decode(data []byte) (*Document, error) {
	value, err := jsonread.Decode(data)
	if err != nil {
		return nil, err
	}
	root, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object with \"version\" and \"products\", got %s", jsonread.TypeName(value))
	}
	f := jsonread.Fields{Object: root}
	f.Only("products", "version")
	if version := f.Str("version"); f.Err == nil && version != Version {
		return nil, fmt.Errorf("field \"version\": want %q, got %q", Version, version)
	}
	products := f.Arr("products")
	if f.Err != nil {
		return nil, f.Err
	}
	doc := &Document{Products: make([]Product, 0, len(products))}
	for i, item := range products {
		product, err := decodeProduct(item)
		if err != nil {
			return nil, fmt.Errorf("products[%d]%s: %w", i, jsonread.Label(item, "id"), err)
		}
		doc.Products = append(doc.Products, product)
	}
	return doc, nil
}

func object(item any) (jsonread.Fields, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return jsonread.Fields{}, fmt.Errorf("want an object, got %s", jsonread.TypeName(item))
	}
	return jsonread.Fields{Object: m}, nil
}

func decodeProduct(item any) (Product, error) {
	f, err := object(item)
	if err != nil {
		return Product{}, err
	}
	f.Only("description", "id", "name", "tools")
	p := Product{ID: f.Str("id"), Name: f.Str("name"), Description: f.Str("description")}
	tools := f.Arr("tools")
	if f.Err != nil {
		return p, f.Err
	}
	for j, entry := range tools {
		tool, err := decodeTool(entry)
		if err != nil {
			return p, fmt.Errorf("tools[%d]%s: %w", j, jsonread.Label(entry, "name"), err)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

func decodeTool(item any) (Tool, error) {
	f, err := object(item)
	if err != nil {
		return Tool{}, err
	}
	f.Only("aliases", "availability", "avoid_when", "description", "examples", "input_schema", "interface",
		"name", "parameters", "safety", "summary", "title", "unavailable_reason", "use_when")
	t := Tool{
		Name:              f.Str("name"),
		Title:             f.Str("title"),
		Summary:           f.Str("summary"),
		Description:       f.Str("description"),
		Aliases:           f.Strs("aliases"),
		Interface:         f.Str("interface"),
		Availability:      f.Str("availability"),
		UnavailableReason: f.Str("unavailable_reason"),
		UseWhen:           f.Strs("use_when"),
		AvoidWhen:         f.Strs("avoid_when"),
		Examples:          f.Strs("examples"),
	}
	if f.Has("input_schema") {
		f.Obj("input_schema") // type check: a schema is an object
		t.InputSchema = f.Raw("input_schema")
	}
	if safety := f.Obj("safety"); safety != nil {
		s := jsonread.Fields{Object: safety}
		s.Only("confirmation", "effect", "idempotency", "risk")
		t.Safety = catalog.Safety{Effect: s.Str("effect"), Risk: s.Str("risk"), Confirmation: s.Str("confirmation"), Idempotency: s.Str("idempotency")}
		if s.Err != nil {
			f.Fail(fmt.Errorf("safety: %w", s.Err))
		}
	}
	if f.Has("parameters") {
		list := f.Arr("parameters")
		t.Parameters = make([]Parameter, 0, len(list))
		for i, entry := range list {
			p, err := decodeParameter(entry)
			if err != nil {
				f.Fail(fmt.Errorf("parameters[%d]%s: %w", i, jsonread.Label(entry, "name"), err))
				break
			}
			t.Parameters = append(t.Parameters, p)
		}
	}
	return t, f.Err
}

func decodeParameter(item any) (Parameter, error) {
	f, err := object(item)
	if err != nil {
		return Parameter{}, err
	}
	f.Only("default", "description", "enum", "name", "required", "type")
	p := Parameter{
		Name:        f.Str("name"),
		Type:        f.Str("type"),
		Description: f.Str("description"),
		Required:    f.Bool("required"),
		Enum:        f.Strs("enum"),
	}
	if f.Has("default") {
		p.Default = f.Raw("default")
	}
	return p, f.Err
}

// AppendJSON appends the canonical JSON form of doc: compact, object keys in
// byte order, empty values left out, no HTML escaping. Decode reads it back
// to an equal document; the source hash of a catalog is computed over it.
func AppendJSON(dst []byte, doc *Document) []byte {
	w := writer{buf: dst}
	w.open()
	w.key("products")
	w.buf = append(w.buf, '[')
	for i := range doc.Products {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.product(&doc.Products[i])
	}
	w.buf = append(w.buf, ']')
	w.str("version", Version)
	w.close()
	return w.buf
}

// writer writes objects whose keys the caller adds in byte order.
type writer struct {
	buf   []byte
	first bool
}

func (w *writer) open()  { w.buf, w.first = append(w.buf, '{'), true }
func (w *writer) close() { w.buf, w.first = append(w.buf, '}'), false }

func (w *writer) key(k string) {
	if !w.first {
		w.buf = append(w.buf, ',')
	}
	w.first = false
	w.buf = jsonw.AppendString(w.buf, k, false)
	w.buf = append(w.buf, ':')
}

func (w *writer) str(k, v string) {
	if v != "" {
		w.key(k)
		w.buf = jsonw.AppendString(w.buf, v, false)
	}
}

func (w *writer) strs(k string, values []string) {
	if len(values) == 0 {
		return
	}
	w.key(k)
	w.buf = jsonw.AppendStrings(w.buf, values, false)
}

func (w *writer) raw(k string, v catalog.RawJSON) {
	if len(v) > 0 {
		w.key(k)
		w.buf = append(w.buf, v...)
	}
}

func (w *writer) product(p *Product) {
	w.open()
	w.str("description", p.Description)
	w.str("id", p.ID)
	w.str("name", p.Name)
	w.key("tools")
	w.buf = append(w.buf, '[')
	for i := range p.Tools {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.tool(&p.Tools[i])
	}
	w.buf = append(w.buf, ']')
	w.close()
}

func (w *writer) tool(t *Tool) {
	w.open()
	w.strs("aliases", t.Aliases)
	w.str("availability", t.Availability)
	w.strs("avoid_when", t.AvoidWhen)
	w.str("description", t.Description)
	w.strs("examples", t.Examples)
	w.raw("input_schema", t.InputSchema)
	w.str("interface", t.Interface)
	w.str("name", t.Name)
	if t.Parameters != nil { // [] stays [], so that nothing is derived again on reading
		w.key("parameters")
		w.buf = append(w.buf, '[')
		for i := range t.Parameters {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.parameter(&t.Parameters[i])
		}
		w.buf = append(w.buf, ']')
	}
	if t.Safety != (catalog.Safety{}) {
		w.key("safety")
		w.open()
		w.str("confirmation", t.Safety.Confirmation)
		w.str("effect", t.Safety.Effect)
		w.str("idempotency", t.Safety.Idempotency)
		w.str("risk", t.Safety.Risk)
		w.close()
	}
	w.str("summary", t.Summary)
	w.str("title", t.Title)
	w.str("unavailable_reason", t.UnavailableReason)
	w.strs("use_when", t.UseWhen)
	w.close()
}

func (w *writer) parameter(p *Parameter) {
	w.open()
	w.raw("default", p.Default)
	w.str("description", p.Description)
	w.strs("enum", p.Enum)
	w.str("name", p.Name)
	if p.Required {
		w.key("required")
		w.buf = append(w.buf, "true"...)
	}
	w.str("type", p.Type)
	w.close()
}
