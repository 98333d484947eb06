package native

import (
	"fmt"
	"maps"
	"slices"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/jsonw"
)

// ReadParameters reads the parameters a foreign definition keeps in one
// field, whatever its shape:
//
//   - a JSON Schema object ({"type":"object","properties":{…}}): returned as
//     the input schema, from which Build derives the parameters;
//   - a list of parameter objects, OpenAPI's ({"name","in","schema",
//     "description","required"}) or ToolBench's ({"name","type",
//     "description","default"}); a bare string is a parameter's name;
//   - a map of parameter name → spec ({"city":{"type":"string",…}}), the
//     spec a schema object, or a string that is a type or a description.
//
// A map is a JSON Schema only when its schema keywords have schema values:
// "type" a string or list, "properties" an object of schema objects,
// "required" a list. So a parameter named "properties", "type", "items" or
// "default" stays a parameter of a name → spec map.
func ReadParameters(value any) (schema catalog.RawJSON, parameters []Parameter, err error) {
	switch v := value.(type) {
	case map[string]any:
		if IsJSONSchema(v) || !isSpecMap(v) { // neither: Build says what is wrong with the schema
			schema, err := jsonw.AppendValue(nil, v, false)
			return schema, nil, err
		}
		parameters, err := specMap(v)
		return nil, parameters, err
	case []any:
		parameters, err := parameterList(v)
		return nil, parameters, err
	}
	return nil, nil, fmt.Errorf("want a JSON Schema object, a list of parameters or a map of name → parameter, got %s", jsonread.TypeName(value))
}

// schemaKeywords are the JSON Schema keywords that may stand at the top of
// an object schema with no "type" or "properties".
var schemaKeywords = []string{"$defs", "$id", "$schema", "additionalProperties", "allOf", "anyOf", "definitions",
	"description", "not", "oneOf", "patternProperties", "required", "title"}

// IsJSONSchema reports whether m reads as a JSON Schema object rather than a
// map of parameter name → spec.
func IsJSONSchema(m map[string]any) bool {
	if t, ok := m["type"]; ok && !isTypeValue(t) {
		return false
	}
	if r, ok := m["required"]; ok {
		if _, isList := r.([]any); !isList {
			return false
		}
	}
	if p, ok := m["properties"]; ok {
		properties, isObject := p.(map[string]any)
		if !isObject {
			return false
		}
		if m["type"] != "object" && m["type"] != "dict" { // declared object schemas are checked by Build
			for _, v := range properties {
				if _, isObject := v.(map[string]any); !isObject {
					if _, isBool := v.(bool); !isBool {
						return false
					}
				}
			}
		}
		return true
	}
	if _, ok := m["type"]; ok {
		return true
	}
	for key := range m {
		if !slices.Contains(schemaKeywords, key) {
			return false
		}
	}
	return true
}

func isTypeValue(v any) bool {
	switch t := v.(type) {
	case string:
		return true
	case []any:
		for _, item := range t {
			if _, ok := item.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// specKeywords are the keys of which a parameter spec has at least one.
var specKeywords = []string{"$ref", "anyOf", "default", "description", "enum", "items", "oneOf", "properties", "required", "title", "type"}

// isSpecMap reports whether every value of m is a parameter spec: a string,
// an empty object or one with a spec keyword.
func isSpecMap(m map[string]any) bool {
	for _, v := range m {
		switch spec := v.(type) {
		case nil, string:
		case map[string]any:
			if len(spec) > 0 && !slices.ContainsFunc(specKeywords, func(k string) bool { _, ok := spec[k]; return ok }) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// typeWords are the type names a bare string spec may be instead of a
// description.
var typeWords = []string{"array", "bool", "boolean", "dict", "float", "int", "integer", "list", "null", "number", "object", "str", "string"}

func specMap(m map[string]any) ([]Parameter, error) {
	out := []Parameter{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch spec := m[name].(type) {
		case nil:
			continue
		case string:
			p := Parameter{Name: name}
			if slices.Contains(typeWords, spec) {
				p.Type = spec
			} else {
				p.Description = spec
			}
			out = append(out, p)
		case map[string]any:
			p, err := parameterOf(name, spec)
			if err != nil {
				return nil, err
			}
			p.Required, _ = spec["required"].(bool)
			out = append(out, p)
			if IsJSONSchema(spec) {
				if err := appendNested(&out, name, spec, p.Required); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("parameter %q: want a spec object or a string, got %s", name, jsonread.TypeName(spec))
		}
		if len(out) > MaxParameters {
			return nil, fmt.Errorf("more than %d parameters", MaxParameters)
		}
	}
	return out, nil
}

// appendNested lists the properties of an object (or array of objects)
// parameter, as ParametersFromSchema does for a schema's properties.
func appendNested(out *[]Parameter, name string, spec map[string]any, required bool) error {
	if _, nested := spec["properties"]; nested {
		if err := appendProperties(out, spec, name+".", required, 2); err != nil {
			return err
		}
	}
	if items, ok := spec["items"].(map[string]any); ok && IsJSONSchema(items) {
		if _, nested := items["properties"]; nested {
			return appendProperties(out, items, name+"[].", required, 2)
		}
	}
	return nil
}

// parameterList reads a list of parameter objects. A name listed twice is
// one parameter, described by its first entry (ToolBench lists a repeatable
// HTTP query parameter once per value).
func parameterList(list []any) ([]Parameter, error) {
	out := []Parameter{}
	for i, entry := range list {
		var p Parameter
		switch e := entry.(type) {
		case string:
			p = Parameter{Name: e}
		case map[string]any:
			var err error
			if p, err = listedParameter(e); err != nil {
				return nil, fmt.Errorf("[%d]%s: %w", i, jsonread.Label(entry, "name"), err)
			}
		default:
			return nil, fmt.Errorf("[%d]: want a parameter object, got %s", i, jsonread.TypeName(entry))
		}
		if !slices.ContainsFunc(out, func(q Parameter) bool { return q.Name == p.Name }) {
			out = append(out, p)
		}
		if len(out) > MaxParameters {
			return nil, fmt.Errorf("more than %d parameters", MaxParameters)
		}
	}
	return out, nil
}

// listedParameter reads one entry of a parameter list. OpenAPI keeps the
// type, enum and default in "schema"; the entry's own fields win.
func listedParameter(e map[string]any) (Parameter, error) {
	f := jsonread.Fields{Object: e}
	name := f.Str("name")
	if f.Err != nil {
		return Parameter{}, f.Err
	}
	spec := map[string]any{}
	if schema, ok := e["schema"].(map[string]any); ok {
		maps.Copy(spec, schema)
	}
	for _, key := range []string{"type", "description", "title", "enum", "default"} {
		if v, ok := e[key]; ok {
			spec[key] = v
		}
	}
	p, err := parameterOf(name, spec)
	if err != nil {
		return p, err
	}
	p.Required = f.Bool("required")
	return p, f.Err
}

// ReadSchemaField reads the object-valued field key of a tool definition
// into tool (see ReadParameters), recording a wrong type or shape in f.
// tool.SchemaField is set to key, so that messages name the user's field.
func ReadSchemaField(tool *Tool, f *jsonread.Fields, key string) {
	object := f.Obj(key) // type check: parameters here are an object
	if object == nil {
		return
	}
	schema, parameters, err := ReadParameters(object)
	if err != nil {
		f.Fail(fmt.Errorf("field %q: %w", key, err))
		return
	}
	tool.InputSchema, tool.Parameters, tool.SchemaField = schema, parameters, key
	if schema != nil {
		derived, err := schemaParameters(object)
		tool.fromSchema = &derivedParameters{parameters: derived, err: err}
	}
}
