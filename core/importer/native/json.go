package native

import (
	"fmt"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/internal/jsonw"
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
	f.Only("aliases", "availability", "avoid_when", "deprecated", "description", "examples", "extra", "input_schema", "interface",
		"keywords", "name", "parameters", "safety", "summary", "title", "unavailable_reason", "use_when")
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
		Keywords:          f.Strs("keywords"),
		Extra:             f.Str("extra"),
		Deprecated:        f.Bool("deprecated"),
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
	return appendJSON(dst, doc, keepAll)
}

// keepAll is the flush of a form kept whole in one buffer.
func keepAll(dst []byte) []byte { return dst }

// appendJSON is AppendJSON passing the buffer to flush after each tool;
// flush returns what to go on appending to (dst itself, or dst[:0] once
// it has consumed the bytes), so that a hash can take the form in pieces
// instead of one buffer of it all.
func appendJSON(dst []byte, doc *Document, flush func([]byte) []byte) []byte {
	o := jsonw.StartObject(dst, false)
	o.Key("products")
	o.Buf = appendArray(o.Buf, len(doc.Products), func(dst []byte, i int) []byte { return appendProduct(dst, &doc.Products[i], flush) })
	o.String("version", Version)
	return o.End()
}

// appendArray appends [item(0), …, item(n-1)].
func appendArray(dst []byte, n int, item func(dst []byte, i int) []byte) []byte {
	dst = append(dst, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = item(dst, i)
	}
	return append(dst, ']')
}

// canonical is a jsonw.Object that leaves out empty values.
type canonical struct{ jsonw.Object }

func (c *canonical) str(k, v string) {
	if v != "" {
		c.String(k, v)
	}
}

func (c *canonical) strs(k string, values []string) {
	if len(values) > 0 {
		c.Strings(k, values)
	}
}

func appendProduct(dst []byte, p *Product, flush func([]byte) []byte) []byte {
	c := canonical{jsonw.StartObject(dst, false)}
	c.str("description", p.Description)
	c.str("id", p.ID)
	c.str("name", p.Name)
	c.Key("tools")
	c.Buf = appendArray(c.Buf, len(p.Tools), func(dst []byte, i int) []byte { return flush(appendTool(dst, &p.Tools[i])) })
	return c.End()
}

func appendTool(dst []byte, t *Tool) []byte {
	c := canonical{jsonw.StartObject(dst, false)}
	c.strs("aliases", t.Aliases)
	c.str("availability", t.Availability)
	c.strs("avoid_when", t.AvoidWhen)
	if t.Deprecated { // left out when false, as extra when empty: a catalog without them keeps its hash
		c.Bool("deprecated", true)
	}
	c.str("description", t.Description)
	c.strs("examples", t.Examples)
	c.str("extra", t.Extra)
	c.Raw("input_schema", t.InputSchema)
	c.str("interface", t.Interface)
	c.strs("keywords", t.Keywords) // left out when empty: a catalog without keywords keeps its hash
	c.str("name", t.Name)
	if t.Parameters != nil { // [] stays [], so that nothing is derived again on reading
		c.Key("parameters")
		c.Buf = appendArray(c.Buf, len(t.Parameters), func(dst []byte, i int) []byte { return appendParameter(dst, &t.Parameters[i]) })
	}
	if t.Safety != (catalog.Safety{}) {
		c.Key("safety")
		s := canonical{jsonw.StartObject(c.Buf, false)}
		s.str("confirmation", t.Safety.Confirmation)
		s.str("effect", t.Safety.Effect)
		s.str("idempotency", t.Safety.Idempotency)
		s.str("risk", t.Safety.Risk)
		c.Buf = s.End()
	}
	c.str("summary", t.Summary)
	c.str("title", t.Title)
	c.str("unavailable_reason", t.UnavailableReason)
	c.strs("use_when", t.UseWhen)
	return c.End()
}

func appendParameter(dst []byte, p *Parameter) []byte {
	c := canonical{jsonw.StartObject(dst, false)}
	c.Raw("default", p.Default)
	c.str("description", p.Description)
	c.strs("enum", p.Enum)
	c.str("name", p.Name)
	if p.Required {
		c.Bool("required", true)
	}
	c.str("type", p.Type)
	return c.End()
}
