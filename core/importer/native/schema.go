package native

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/jsonw"
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
	return schemaParameters(root)
}

// schemaParameters is ParametersFromSchema of a schema already decoded.
func schemaParameters(root map[string]any) ([]Parameter, error) {
	var out []Parameter
	if err := appendProperties(&out, root, "", true, 1); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func appendProperties(out *[]Parameter, schema map[string]any, prefix string, parentRequired bool, depth int) error {
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
		parameter, err := parameterOf(prefix+name, property)
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
			if err := appendProperties(out, property, prefix+name+".", parameter.Required, depth+1); err != nil {
				return err
			}
		}
		if items, ok := property["items"].(map[string]any); ok {
			if _, nested := items["properties"]; nested {
				if err := appendProperties(out, items, prefix+name+"[].", parameter.Required, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func parameterOf(name string, property map[string]any) (Parameter, error) {
	p := Parameter{Name: name, Type: schemaType(property)}
	if d, ok := property["description"].(string); ok {
		p.Description = d
	} else if t, ok := property["title"].(string); ok {
		p.Description = t
	}
	if enum, ok := property["enum"].([]any); ok {
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
