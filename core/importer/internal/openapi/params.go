package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/importer/native"
)

// locations are the places a parameter may be, in the order the input
// schema lists them when two share a name (the first is kept).
var locations = []string{"path", "query", "header", "cookie"}

// swagger2Keys are the keys of a Swagger 2.0 parameter that describe its
// value: the parameter is its own schema there.
var swagger2Keys = []string{"default", "enum", "exclusiveMaximum", "exclusiveMinimum", "format", "items",
	"maxItems", "maxLength", "maximum", "minItems", "minLength", "minimum", "multipleOf", "pattern", "type", "uniqueItems"}

// parameter is one parameter as the input schema will list it.
type parameter struct {
	name, in string
	schema   map[string]any
	required bool
}

// inputSchema builds the operation's input schema: its parameters, then
// its request body, expanded and cleaned.
func (o *opReader) inputSchema(shared any) map[string]any {
	e := &expansion{r: o.res}
	properties := map[string]any{}
	var required []string
	add := func(p parameter) {
		if _, taken := properties[p.name]; taken {
			o.warn("parameters", fmt.Sprintf("parameter %q (in %s) has the name of another; dropped", p.name, p.in))
			o.extra(describeText(p.schema))
			return
		}
		properties[p.name] = p.schema
		if p.required {
			required = append(required, p.name)
		}
	}

	var body, form []parameter
	var bodyRequired bool
	all := o.parameters(shared, e)
	for _, in := range locations {
		for _, p := range all {
			if p.in == in {
				add(p)
			}
		}
	}
	for _, p := range all {
		switch p.in {
		case "body":
			body = append(body, p)
		case "formData":
			form = append(form, p)
		}
	}

	var bodySchema map[string]any
	switch {
	case o.swagger2 && len(body) > 0:
		bodySchema, bodyRequired = body[0].schema, body[0].required
		if len(body) > 1 {
			o.warn("parameters", "more than one body parameter; the first kept")
		}
	case o.swagger2 && len(form) > 0:
		formProperties := map[string]any{}
		var formRequired []any
		for _, p := range form {
			formProperties[p.name] = p.schema
			if p.required {
				formRequired = append(formRequired, p.name)
			}
		}
		bodySchema = map[string]any{"type": "object", "properties": formProperties}
		if len(formRequired) > 0 {
			bodySchema["required"] = formRequired
		}
		bodyRequired = true
	case !o.swagger2:
		bodySchema, bodyRequired = o.requestBody(e)
	}
	if bodySchema != nil {
		// Cleaned before merging: only its properties may reach the
		// input schema, and what is wrong with the rest is still said.
		o.clean(bodySchema, "request body", 0)
		o.mergeBody(properties, &required, bodySchema, bodyRequired)
	}

	if e.missing != "" {
		o.warn("$ref", e.missing)
	}
	if e.cut {
		o.warn("schema", fmt.Sprintf("the expanded schema was cut (more than %d values, %d nested references or %d levels)", maxSchemaNodes, maxRefDepth, maxSchemaDepth))
	}
	schema := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		slices.Sort(required)
		list := make([]any, len(required))
		for i, name := range required {
			list[i] = name
		}
		schema["required"] = list
	}
	o.clean(schema, "input schema", 0)
	return schema
}

// parameters reads the operation's parameters merged with the path item's
// (shared): an operation's parameter replaces a shared one of the same
// name and place. A parameter that cannot be read is dropped with a
// warning, its description kept in extra.
func (o *opReader) parameters(shared any, e *expansion) []parameter {
	own := o.parameterList(o.op["parameters"], "parameters", e)
	var out []parameter
	for _, p := range o.parameterList(shared, "path parameters", e) {
		if !slices.ContainsFunc(own, func(q parameter) bool { return q.name == p.name && q.in == p.in }) {
			out = append(out, p)
		}
	}
	return append(out, own...)
}

// parameterList reads one list of parameters.
func (o *opReader) parameterList(value any, field string, e *expansion) []parameter {
	if value == nil {
		return nil
	}
	var out []parameter
	list, ok := value.([]any)
	if !ok {
		o.warn(field, fmt.Sprintf("want an array of parameters, got %s; dropped", typeName(value)))
	}
	for i, entry := range list {
		object, err := o.res.object(entry)
		if err != nil {
			o.warn("parameters", fmt.Sprintf("%s[%d]: %v; dropped", field, i, err))
			continue
		}
		name, _ := object["name"].(string)
		name = strings.TrimSpace(name)
		description, _ := object["description"].(string)
		if name == "" {
			o.warn("parameters.name", fmt.Sprintf("%s[%d] has no name; dropped", field, i))
			o.extra(description)
			continue
		}
		in, _ := object["in"].(string)
		if !slices.Contains(locations, in) && !(o.swagger2 && (in == "body" || in == "formData")) {
			o.warn("parameters.in", fmt.Sprintf("parameter %q: %s is not a parameter location; read as query", name, describe(object["in"])))
			in = "query"
		}
		p := parameter{name: name, in: in, schema: o.parameterSchema(object, e)}
		if description != "" {
			p.schema["description"] = description
		}
		subject := fmt.Sprintf("parameter %q: ", name)
		if o.flag(object, "deprecated", "parameters.deprecated", subject) {
			p.schema["deprecated"] = true
		}
		p.required = o.flag(object, "required", "parameters.required", subject) || in == "path" // a path parameter is always required
		out = append(out, p)
	}
	return out
}

// parameterSchema is a parameter's schema, expanded: 3.x keeps it in
// "schema" (or in "content", one schema per media type); Swagger 2.0's
// parameter is its own schema, except a body parameter's.
func (o *opReader) parameterSchema(p map[string]any, e *expansion) map[string]any {
	var schema any
	switch {
	case p["schema"] != nil:
		schema = p["schema"]
	case p["content"] != nil:
		schema = o.mediaSchema(p["content"], "parameters.content")
	case o.swagger2:
		own := map[string]any{}
		for _, k := range swagger2Keys {
			if v, ok := p[k]; ok {
				own[k] = v
			}
		}
		schema = own
	}
	if schema == nil {
		return map[string]any{}
	}
	expanded, ok := e.schema(schema, 0).(map[string]any)
	if !ok {
		if _, isBool := schema.(bool); !isBool {
			o.warn("parameters.schema", fmt.Sprintf("parameter %q: want a schema object, got %s; dropped", p["name"], typeName(schema)))
		}
		return map[string]any{}
	}
	return expanded
}

// requestBody reads a 3.x request body: its schema (of the JSON media type
// when there is one) expanded, and whether it is required. Its description
// goes to extra.
func (o *opReader) requestBody(e *expansion) (map[string]any, bool) {
	value := o.op["requestBody"]
	if value == nil {
		return nil, false
	}
	body, err := o.res.object(value)
	if err != nil {
		o.warn("requestBody", err.Error()+"; dropped")
		return nil, false
	}
	o.extra(o.textOf(body, "description", "requestBody.description"))
	required := o.flag(body, "required", "requestBody.required", "")
	schema := o.mediaSchema(body["content"], "requestBody.content")
	if schema == nil {
		return nil, false
	}
	expanded, ok := e.schema(schema, 0).(map[string]any)
	if !ok {
		o.warn("requestBody", fmt.Sprintf("want a schema object, got %s; dropped", typeName(schema)))
		return nil, false
	}
	return expanded, required
}

// mediaSchema picks the schema of a content map: application/json's, else
// the first JSON media type's, else the first's, in name order.
func (o *opReader) mediaSchema(value any, field string) any {
	content, ok := value.(map[string]any)
	if !ok {
		if value != nil {
			o.warn(field, fmt.Sprintf("want an object of media type → media object, got %s", typeName(value)))
		}
		return nil
	}
	types := slices.Sorted(maps.Keys(content))
	slices.SortStableFunc(types, func(a, b string) int { return rank(a) - rank(b) })
	for _, t := range types {
		if media, ok := content[t].(map[string]any); ok && media["schema"] != nil {
			return media["schema"]
		}
	}
	return nil
}

// rank orders media types: JSON first.
func rank(mediaType string) int {
	switch {
	case mediaType == "application/json":
		return 0
	case strings.Contains(mediaType, "json"):
		return 1
	}
	return 2
}

// mergeBody adds a request body to the input schema: an object body's
// properties stand beside the parameters (all of allOf's branches
// together), unless one has a parameter's name; otherwise the body is the
// one property "body".
func (o *opReader) mergeBody(properties map[string]any, required *[]string, body map[string]any, bodyRequired bool) {
	fields, fieldsRequired := objectProperties(body)
	for name, field := range fields {
		// A read-only property is not sent in a request (OpenAPI 3.0
		// "readOnly"): the server's own id, say, is no input.
		if m, ok := field.(map[string]any); ok && m["readOnly"] == true {
			delete(fields, name)
		}
	}
	clash := fields == nil
	for name := range fields {
		_, taken := properties[name]
		clash = clash || taken
	}
	if !clash {
		// The body's own description has no property to stand on.
		o.extra(describeText(body))
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			properties[name] = fields[name]
			if bodyRequired && slices.Contains(fieldsRequired, name) {
				*required = append(*required, name)
			}
		}
		return
	}
	name := "body"
	if _, taken := properties[name]; taken {
		name = "requestBody"
	}
	if _, taken := properties[name]; taken {
		o.warn("requestBody", "the parameters take the names \"body\" and \"requestBody\"; the body is dropped")
		return
	}
	properties[name] = body
	if bodyRequired {
		*required = append(*required, name)
	}
}

// objectProperties lists an object schema's properties and required names,
// with those of its allOf branches; nil when it has none.
func objectProperties(schema map[string]any) (map[string]any, []string) {
	var properties map[string]any
	var required []string
	collect := func(s map[string]any) {
		if p, ok := s["properties"].(map[string]any); ok {
			if properties == nil {
				properties = map[string]any{}
			}
			for _, k := range slices.Sorted(maps.Keys(p)) {
				if _, seen := properties[k]; !seen {
					properties[k] = p[k]
				}
			}
		}
		if list, ok := s["required"].([]any); ok {
			for _, item := range list {
				if name, ok := item.(string); ok {
					required = append(required, name)
				}
			}
		}
	}
	if t, ok := schema["type"].(string); ok && t != "object" {
		return nil, nil
	}
	collect(schema)
	if branches, ok := schema["allOf"].([]any); ok {
		for _, b := range branches {
			if m, ok := b.(map[string]any); ok {
				collect(m)
			}
		}
	}
	return properties, required
}

// clean repairs what would make the input schema unreadable as a list of
// parameters (native.ParametersFromSchema): a "required" that is not a
// list of names (Swagger 2.0's "required": true inside a schema), a
// "properties" that is not an object of schemas, a "type" that is not a
// name or list of names, an "enum" that is not a list. Each is dropped with
// a warning; the schema is the expansion's own copy, changed in place.
func (o *opReader) clean(schema map[string]any, at string, depth int) {
	if depth > maxSchemaDepth {
		return
	}
	if v, ok := schema["type"]; ok && !native.IsTypeValue(v) {
		o.warn("schema.type", fmt.Sprintf("%s: want a type name or list of names, got %s; dropped", at, describe(v)))
		delete(schema, "type")
	}
	if v, ok := schema["required"]; ok {
		list, isList := v.([]any)
		var names []any
		for _, item := range list {
			if s, ok := item.(string); ok {
				names = append(names, s)
			}
		}
		switch {
		case !isList:
			o.warn("schema.required", fmt.Sprintf("%s: want a list of property names, got %s; dropped", at, describe(v)))
			delete(schema, "required")
		case len(names) < len(list):
			o.warn("schema.required", fmt.Sprintf("%s: the list holds values that are not names; they are dropped", at))
			schema["required"] = names
		}
	}
	if v, ok := schema["enum"]; ok {
		if _, isList := v.([]any); !isList {
			o.warn("schema.enum", fmt.Sprintf("%s: want a list of values, got %s; dropped", at, typeName(v)))
			delete(schema, "enum")
		}
	}
	for _, key := range []string{"description", "title"} {
		if v, ok := schema[key]; ok {
			if _, isString := v.(string); !isString {
				o.warn("schema."+key, fmt.Sprintf("%s: want a string, got %s; dropped", at, typeName(v)))
				delete(schema, key)
			}
		}
	}
	if v, ok := schema["properties"]; ok {
		properties, isObject := v.(map[string]any)
		if !isObject {
			o.warn("schema.properties", fmt.Sprintf("%s: want an object of property schemas, got %s; dropped", at, typeName(v)))
			delete(schema, "properties")
		}
		for _, name := range slices.Sorted(maps.Keys(properties)) {
			switch p := properties[name].(type) {
			case map[string]any:
				o.clean(p, at+"."+name, depth+1)
			case bool:
			default:
				o.warn("schema.properties", fmt.Sprintf("%s: property %q: want a schema object, got %s; dropped", at, name, typeName(p)))
				delete(properties, name)
			}
		}
	}
	switch items := schema["items"].(type) {
	case map[string]any:
		o.clean(items, at+"[]", depth+1)
	case []any:
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				o.clean(m, at+"[]", depth+1)
			}
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if branches, ok := schema[key].([]any); ok {
			for _, b := range branches {
				if m, ok := b.(map[string]any); ok {
					o.clean(m, at, depth+1)
				}
			}
		}
	}
	if m, ok := schema["additionalProperties"].(map[string]any); ok {
		o.clean(m, at+"{}", depth+1)
	}
}

// describeText is a dropped schema's description, for extra.
func describeText(schema map[string]any) string {
	s, _ := schema["description"].(string)
	return s
}
