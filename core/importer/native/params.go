package native

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/internal/jsonw"
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
//
// It is strict: ReadParametersWith reads leniently.
func ReadParameters(value any) (schema catalog.RawJSON, parameters []Parameter, err error) {
	return ReadParametersWith(value, nil, "parameters")
}

// ReadParametersWith is ReadParameters repairing through r (nil: strict),
// with field naming the input's field in the report. A lenient read coerces
// what ReadParameters refuses: a string "required", an OpenAPI "$ref"
// parameter without a name (named by the reference's last segment), an
// "enum" that is an object or a string, a property or a schema that is not
// a schema (its text goes to extra), a "properties" that is a parameter
// list.
func ReadParametersWith(value any, r *Reader, field string) (schema catalog.RawJSON, parameters []Parameter, err error) {
	switch v := value.(type) {
	case map[string]any:
		if IsJSONSchema(v) || !isSpecMap(v) { // neither: Build says what is wrong with the schema
			if r != nil && !IsJSONSchema(v) && !schemaLike(v) {
				// Not a schema and not a map of specs: its words are kept.
				if err := r.Fix(field, fmt.Errorf("field %q: not a JSON Schema object nor a map of parameters; its text is kept, no parameters", field)); err != nil {
					return nil, nil, err
				}
				r.Extra.Walk(v)
				return nil, nil, nil
			}
			schema, err := jsonw.AppendValue(nil, v, false)
			return schema, nil, err
		}
		parameters, err := specMap(v, r, field)
		return nil, parameters, err
	case []any:
		parameters, err := parameterList(v, r, field)
		return nil, parameters, err
	}
	err = fmt.Errorf("want a JSON Schema object, a list of parameters or a map of name → parameter, got %s", jsonread.TypeName(value))
	if r == nil || !r.T.Lenient() {
		return nil, nil, err
	}
	if err := r.Fix(field, fmt.Errorf("field %q: %w", field, err)); err != nil {
		return nil, nil, err
	}
	r.Extra.Walk(value)
	return nil, nil, nil
}

// schemaLike: a map with "properties" or "type", which Build reads as a
// schema (and whose faults the lenient derivation repairs).
func schemaLike(m map[string]any) bool {
	_, p := m["properties"]
	_, t := m["type"]
	return p || t
}

// schemaKeywords are the JSON Schema keywords that may stand at the top of
// an object schema with no "type" or "properties".
var schemaKeywords = []string{"$defs", "$id", "$schema", "additionalProperties", "allOf", "anyOf", "definitions",
	"description", "not", "oneOf", "patternProperties", "required", "title"}

// IsJSONSchema reports whether m reads as a JSON Schema object rather than a
// map of parameter name → spec.
func IsJSONSchema(m map[string]any) bool {
	if t, ok := m["type"]; ok && !IsTypeValue(t) {
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

// IsTypeValue reports whether v can be a JSON Schema "type": a name or a
// list of names.
func IsTypeValue(v any) bool {
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

func specMap(m map[string]any, r *Reader, field string) ([]Parameter, error) {
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
			p, err := parameterOf(name, spec, r, field)
			if err != nil {
				return nil, err
			}
			if p.Required, err = requiredFlag(spec["required"], name, r, field); err != nil {
				return nil, err
			}
			out = append(out, p)
			if IsJSONSchema(spec) {
				if err := appendNested(&out, name, spec, p.Required, r, field); err != nil {
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

// requiredFlag reads a parameter's own "required": a boolean; leniently
// also a string boolean. A list (a nested schema's required properties)
// says nothing of the parameter itself.
func requiredFlag(v any, name string, r *Reader, field string) (bool, error) {
	switch b := v.(type) {
	case nil, []any:
		return false, nil
	case bool:
		return b, nil
	case string:
		if value, ok := stringBool(b); ok && r != nil {
			return value, r.Fix(field+".required", fmt.Errorf("parameter %q: \"required\": %q read as %t", name, b, value))
		}
	}
	if r == nil {
		return false, nil // as before: a strict read took only a boolean
	}
	return false, r.Fix(field+".required", fmt.Errorf("parameter %q: \"required\": want a boolean, got %s; read as false", name, jsonread.TypeName(v)))
}

func stringBool(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "1":
		return true, true
	case "false", "no", "0", "":
		return false, true
	}
	return false, false
}

// appendNested lists the properties of an object (or array of objects)
// parameter, as ParametersFromSchema does for a schema's properties.
func appendNested(out *[]Parameter, name string, spec map[string]any, required bool, r *Reader, field string) error {
	if _, nested := spec["properties"]; nested {
		if err := appendProperties(out, spec, name+".", required, 2, r, field); err != nil {
			return err
		}
	}
	if items, ok := spec["items"].(map[string]any); ok && IsJSONSchema(items) {
		if _, nested := items["properties"]; nested {
			return appendProperties(out, items, name+"[].", required, 2, r, field)
		}
	}
	return nil
}

// parameterList reads a list of parameter objects. A name listed twice is
// one parameter, described by its first entry (ToolBench lists a repeatable
// HTTP query parameter once per value).
func parameterList(list []any, r *Reader, field string) ([]Parameter, error) {
	out := []Parameter{}
	for i, entry := range list {
		var p Parameter
		switch e := entry.(type) {
		case string:
			p = Parameter{Name: e}
		case map[string]any:
			var err error
			if p, err = listedParameter(e, r, field); err != nil {
				return nil, fmt.Errorf("[%d]%s: %w", i, jsonread.Label(entry, "name"), err)
			}
		default:
			err := fmt.Errorf("[%d]: want a parameter object, got %s", i, jsonread.TypeName(entry))
			if r == nil {
				return nil, err
			}
			if err := r.Fix(field, err); err != nil {
				return nil, err
			}
			continue
		}
		if p.Name == "" && r != nil && r.T.Lenient() {
			continue // a lenient read of an entry without a name (its text is in extra)
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
// type, enum and default in "schema"; the entry's own fields win. An
// OpenAPI reference ({"$ref": "#/components/parameters/limit"}) has no
// name of its own: a lenient read names it by the reference's last segment.
func listedParameter(e map[string]any, r *Reader, field string) (Parameter, error) {
	f := jsonread.Fields{Object: e}
	var name string
	if r != nil {
		name = r.Text(&f, "name", field+".name")
	} else {
		name = f.Str("name")
	}
	if f.Err != nil {
		return Parameter{}, f.Err
	}
	if name == "" && r.T.Lenient() {
		ref, _ := e["$ref"].(string)
		if segment := lastSegment(ref); segment != "" {
			name = segment
			if err := r.Fix(field+".$ref", fmt.Errorf("parameter %q: named by its reference's last segment", ref)); err != nil {
				return Parameter{}, err
			}
		} else {
			if err := r.Fix(field+".name", fmt.Errorf("a parameter without a name; its text is kept")); err != nil {
				return Parameter{}, err
			}
			r.Extra.Walk(e)
			return Parameter{}, nil
		}
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
	p, err := parameterOf(name, spec, r, field)
	if err != nil {
		return p, err
	}
	if r == nil {
		p.Required = f.Bool("required")
		return p, f.Err
	}
	if p.Required, err = requiredFlag(e["required"], name, r, field); err != nil {
		return p, err
	}
	for _, key := range []string{"in", "example", "examples"} { // where it goes, an example: words too
		if v, ok := e[key]; ok {
			r.Extra.Walk(v)
		}
	}
	return p, nil
}

// lastSegment is the part of a JSON reference after its last "/".
func lastSegment(ref string) string {
	ref = strings.TrimRight(strings.TrimSpace(ref), "/")
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		ref = ref[i+1:]
	}
	return strings.TrimPrefix(ref, "#")
}

// ReadSchemaField reads the object-valued field key of a tool definition
// into tool (see ReadParameters), recording a wrong type or shape in f.
// tool.SchemaField is set to key, so that messages name the user's field.
func ReadSchemaField(tool *Tool, f *jsonread.Fields, key string) {
	ReadSchemaFieldWith(tool, f, key, nil)
}

// ReadSchemaFieldWith is ReadSchemaField repairing through r (nil:
// strict): the field may then hold any shape ReadParametersWith reads (an
// OpenAPI parameter list where a schema object was expected, say), and the
// schema's text that no parameter keeps (titles beside descriptions,
// examples, properties deeper than MaxParameterDepth, the root's own
// description) goes to r.Extra.
func ReadSchemaFieldWith(tool *Tool, f *jsonread.Fields, key string, r *Reader) {
	var value any
	if r == nil || !r.T.Lenient() {
		object := f.Obj(key) // type check: parameters here are an object
		if object == nil {
			return
		}
		value = object
	} else if value = f.Object[key]; value == nil {
		return
	}
	before := 0
	if r != nil {
		before = r.Extra.Len()
		defer func() {
			if r.Extra.Len() > before {
				r.T.Also(r.Prefix+key, tally.ToExtra)
			}
		}()
	}
	schema, parameters, err := ReadParametersWith(value, r, key)
	if err != nil {
		f.Fail(fmt.Errorf("field %q: %w", key, err))
		return
	}
	tool.InputSchema, tool.Parameters, tool.SchemaField = schema, parameters, key
	if schema != nil {
		object := value.(map[string]any)
		derived, err := schemaParameters(object, r, key)
		tool.fromSchema = &derivedParameters{parameters: derived, err: err}
		if err == nil && r != nil {
			for _, k := range slices.Sorted(maps.Keys(object)) {
				switch k {
				case "properties", "required", "type", "$schema", "$id", "additionalProperties":
				case "title":
					// Generated by SDKs from the function's name
					// ("get_weatherArguments"): nothing new.
					if title, _ := object[k].(string); !generatedTitle(title, tool.Name) {
						r.Extra.Walk(object[k])
					}
				default:
					r.Extra.Walk(object[k])
				}
			}
		}
	}
}

// generatedTitle reports whether a schema's title is its tool's name with
// a suffix SDKs add ("Arguments", "Input", "Params", "Request").
func generatedTitle(title, name string) bool {
	for _, suffix := range []string{"", "Arguments", "Args", "Input", "Params", "Parameters", "Request", "Schema"} {
		if len(title) >= len(suffix) && strings.EqualFold(title[len(title)-len(suffix):], suffix) && sameWords(title[:len(title)-len(suffix)], name) {
			return true
		}
	}
	return false
}
