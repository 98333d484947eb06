package native

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// ParametersFromSchema lists the parameters a JSON Schema object describes:
// each property of "properties" (required when named in "required"), with
// its type, description, enum and default. Properties of nested objects are
// flattened to "parent.child", properties of array items to
// "parent[].child", down to MaxParameterDepth levels; deeper ones stay in
// the schema that Inspect returns but are not listed. "type" may be a string
// or a list; without one, the types of "anyOf"/"oneOf" branches are used.
func ParametersFromSchema(schema catalog.RawJSON) ([]Parameter, error) {
	value, err := jsonread.Decode(schema)
	if err != nil {
		return nil, err
	}
	root, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON Schema object, got %s", jsonread.TypeName(value))
	}
	return schemaParameters(root, nil, "")
}

// schemaParameters is ParametersFromSchema of a schema already decoded,
// repairing through r (nil: strict; field names the schema's field).
func schemaParameters(root map[string]any, r *Reader, field string) ([]Parameter, error) {
	var out []Parameter
	if err := appendProperties(&out, root, "", true, 1, r, field); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func appendProperties(out *[]Parameter, schema map[string]any, prefix string, parentRequired bool, depth int, r *Reader, field string) error {
	if r != nil {
		return appendPropertiesLeniently(out, schema, prefix, parentRequired, depth, r, field)
	}
	f := jsonread.Fields{Object: schema}
	properties := f.Obj("properties")
	required := f.Strs("required")
	if f.Err != nil {
		return f.Err
	}
	for _, name := range slices.Sorted(maps.Keys(properties)) {
		property, ok := properties[name].(map[string]any)
		if !ok {
			if b, isBool := properties[name].(bool); isBool && b {
				property = map[string]any{} // "name": true allows anything
			} else {
				return fmt.Errorf("property %q: want a schema object, got %s", prefix+name, jsonread.TypeName(properties[name]))
			}
		}
		parameter, err := parameterOf(prefix+name, property, nil, "")
		if err != nil {
			return err
		}
		parameter.Required = parentRequired && contains(required, name)
		*out = append(*out, parameter)
		if len(*out) > MaxParameters {
			return fmt.Errorf("more than %d properties", MaxParameters)
		}
		if depth >= MaxParameterDepth {
			continue
		}
		if _, nested := property["properties"]; nested {
			if err := appendProperties(out, property, prefix+name+".", parameter.Required, depth+1, nil, ""); err != nil {
				return err
			}
		}
		if items, ok := property["items"].(map[string]any); ok {
			if _, nested := items["properties"]; nested {
				if err := appendProperties(out, items, prefix+name+"[].", parameter.Required, depth+1, nil, ""); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// appendPropertiesLeniently is appendProperties that repairs instead of
// refusing: "properties" as a parameter list is read as one, "required" as
// a string names one property (a property's own boolean or string-boolean
// "required" counts too), a property that is a string is its description,
// and any other malformed property or keyword is dropped with its text
// kept in r.Extra. The properties below MaxParameterDepth, and each
// property's words no parameter field keeps, go to r.Extra as well.
func appendPropertiesLeniently(out *[]Parameter, schema map[string]any, prefix string, parentRequired bool, depth int, r *Reader, field string) error {
	var properties map[string]any
	switch p := schema["properties"].(type) {
	case nil:
	case map[string]any:
		properties = p
	case []any:
		if err := r.fixAs(field+".properties", fmt.Errorf("field \"properties\": want an object, got an array"), "read as a parameter list"); err != nil {
			return err
		}
		listed, err := parameterList(p, r, field)
		if err != nil {
			return err
		}
		for _, q := range listed {
			q.Name = prefix + q.Name
			q.Required = q.Required && parentRequired
			*out = append(*out, q)
		}
		if len(*out) > MaxParameters {
			return fmt.Errorf("more than %d properties", MaxParameters)
		}
	default:
		if err := r.fixAs(field+".properties", fmt.Errorf("field \"properties\": want an object, got %s", jsonread.TypeName(p)), "dropped"); err != nil {
			return err
		}
		r.Extra.Walk(p)
	}
	var required []string
	switch list := schema["required"].(type) {
	case nil:
	case bool: // draft 3's mark on the schema itself
		if err := r.fixAs(field+".required", fmt.Errorf("field \"required\": want an array of strings, got a boolean"), "dropped"); err != nil {
			return err
		}
	case []any:
		for _, item := range list {
			if s, ok := item.(string); ok {
				required = append(required, s)
			}
		}
	case string:
		if _, isBool := stringBool(list); !isBool {
			required = []string{list}
		}
		if err := r.fixAs(field+".required", fmt.Errorf("field \"required\": want an array of strings, got a string"), fmt.Sprintf("%q read as a list of it", list)); err != nil {
			return err
		}
	default:
		if err := r.fixAs(field+".required", fmt.Errorf("field \"required\": want an array of strings, got %s", jsonread.TypeName(list)), "dropped"); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(properties)) {
		var property map[string]any
		switch v := properties[name].(type) {
		case map[string]any:
			property = v
		case bool:
			if !v {
				if err := r.fixAs(field+".properties", fmt.Errorf("property %q: want a schema object, got a boolean", prefix+name), "false allows nothing: no parameter"); err != nil {
					return err
				}
				continue
			}
			property = map[string]any{} // "name": true allows anything
		case string:
			if err := r.fixAs(field+".properties", fmt.Errorf("property %q: want a schema object, got a string", prefix+name), "read as its description"); err != nil {
				return err
			}
			property = map[string]any{"description": v}
		default:
			if err := r.fixAs(field+".properties", fmt.Errorf("property %q: want a schema object, got %s", prefix+name, jsonread.TypeName(v)), "read without one"); err != nil {
				return err
			}
			r.Extra.Walk(v)
			property = map[string]any{}
		}
		if depth > MaxParameterDepth {
			r.Extra.Add(name)
			r.Extra.Walk(property)
			continue
		}
		parameter, err := parameterOf(prefix+name, property, r, field)
		if err != nil {
			return err
		}
		own, err := requiredFlag(property["required"], prefix+name, r, field)
		if err != nil {
			return err
		}
		parameter.Required = parentRequired && (own || contains(required, name))
		*out = append(*out, parameter)
		if len(*out) > MaxParameters {
			return fmt.Errorf("more than %d properties", MaxParameters)
		}
		keepLeftovers(name, property, r)
		if _, nested := property["properties"]; nested {
			if err := appendPropertiesLeniently(out, property, prefix+name+".", parameter.Required, depth+1, r, field); err != nil {
				return err
			}
		}
		if items, ok := property["items"].(map[string]any); ok {
			if _, nested := items["properties"]; nested {
				if err := appendPropertiesLeniently(out, items, prefix+name+"[].", parameter.Required, depth+1, r, field); err != nil {
					return err
				}
			} else {
				r.Extra.Walk(items)
			}
		}
	}
	return nil
}

// keepLeftovers adds to r.Extra the words of a property that its
// parameter does not keep: a title beside a description, examples,
// branches of anyOf/oneOf/allOf, extensions.
func keepLeftovers(name string, property map[string]any, r *Reader) {
	// Most properties have no such key: gather the few there are (on the
	// stack) and sort only those, instead of sorting every property's keys.
	var buf [8]string
	keys := buf[:0]
	for key := range property {
		switch key {
		case "type", "description", "enum", "default", "properties", "items", "required", "format", "pattern", "$ref":
			continue
		case "title":
			if _, described := property["description"].(string); !described {
				continue // the title is the parameter's description
			}
			if title, _ := property["title"].(string); sameWords(title, name) {
				continue // generated from the name ("Api Key" for api_key): nothing new
			}
		}
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		r.Extra.Walk(property[key])
	}
}

func parameterOf(name string, property map[string]any, r *Reader, field string) (Parameter, error) {
	p := Parameter{Name: name, Type: schemaType(property)}
	if d, ok := property["description"].(string); ok {
		p.Description = d
	} else if t, ok := property["title"].(string); ok {
		p.Description = t
	} else if d, ok := property["description"]; ok && d != nil && r != nil {
		if err := r.Fix(field+".description", fmt.Errorf("property %q: \"description\": want a string, got %s; its text is kept", name, jsonread.TypeName(d))); err != nil {
			return p, err
		}
		r.Extra.Walk(d)
	}
	switch enum := property["enum"].(type) {
	case []any:
		for _, v := range enum {
			if s, isString := v.(string); isString {
				p.Enum = append(p.Enum, s)
				continue
			}
			text, err := jsonw.AppendValue(nil, v, false)
			if err != nil {
				return p, fmt.Errorf("property %q: enum: %w", name, err)
			}
			p.Enum = append(p.Enum, string(text))
		}
	case map[string]any:
		// A map of value → its description: the values are the keys.
		if r != nil {
			if err := r.Fix(field+".enum", fmt.Errorf("property %q: \"enum\" is an object; its keys read as the values", name)); err != nil {
				return p, err
			}
			p.Enum = slices.Sorted(maps.Keys(enum))
			for _, key := range p.Enum {
				r.Extra.Walk(enum[key])
			}
		}
	case string:
		if r != nil {
			if err := r.Fix(field+".enum", fmt.Errorf("property %q: \"enum\" is a string; read as its one value", name)); err != nil {
				return p, err
			}
			p.Enum = []string{enum}
		}
	}
	if v, ok := property["default"]; ok && v != nil { // a null default is no default
		text, err := jsonw.AppendValue(nil, v, false)
		if err != nil {
			return p, fmt.Errorf("property %q: default: %w", name, err)
		}
		p.Default = text
	}
	return p, nil
}

// schemaType is the property's "type" ("string", or "string|null" for a
// list), else the types of its anyOf/oneOf branches, else "".
func schemaType(property map[string]any) string {
	switch t := property["type"].(type) {
	case string:
		return t
	case []any:
		return joinStrings(t)
	}
	var types []string
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, _ := property[key].([]any)
		for _, branch := range branches {
			if b, ok := branch.(map[string]any); ok {
				if t := schemaType(b); t != "" && !contains(types, t) {
					types = append(types, t)
				}
			}
		}
	}
	return strings.Join(types, "|")
}

func joinStrings(values []any) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		if s, ok := v.(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "|")
}

// sameWords reports whether two names hold the same letters and digits,
// case aside: "Api Key" and "api_key", "getUserArguments" and
// "get_user" + "Arguments" (suffix given in b).
func sameWords(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && !isWordByte(a[i]) {
			i++
		}
		for j < len(b) && !isWordByte(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if lower(a[i]) != lower(b[j]) {
			return false
		}
		i++
		j++
	}
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
