// Package openapi imports OpenAPI descriptions of HTTP APIs: OpenAPI 3.0
// and 3.1 and Swagger 2.0, in JSON or YAML. Each operation (a method of a
// path) is one tool of one product, the API:
//
//   - name: the operationId, else "METHOD /path"; title: the summary;
//     description: the description; keywords: the tags;
//   - input schema: one object whose properties are the operation's
//     parameters (path, query, header and cookie; path-level ones merged
//     under operation-level ones of the same name and place) and the
//     request body's properties (or the whole body as "body" when it is
//     not an object or a name clashes), local $refs expanded inline within
//     the bounds of ref.go;
//   - safety from the method (GET, HEAD, OPTIONS, TRACE read; POST, PUT,
//     PATCH write; DELETE destructive) unless the operation's
//     x-toolsift-effect says read, write or destructive;
//   - deprecated: the operation's flag;
//   - extra (text no other field has a role for): the method and path,
//     externalDocs and request body descriptions, response descriptions,
//     the text of x-* extensions, and the descriptions of parameters that
//     could not be kept.
//
// The product is the document's info.title (its ID a slug of it) unless
// Options.Product names one. A malformed detail (a reference that cannot
// be followed, a parameter without a name, "required": "true", a value of
// the wrong type) is repaired or dropped in one place, repair, with the
// tool kept and a warning in the import report; a strict import refuses
// it instead. Only identity problems (a name Build refuses, a duplicate or
// look-alike name) leave a tool out.
//
// Object keys are read in sorted order, never in the order a decoder gives
// them, so the catalog does not depend on how the document orders its keys.
package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Format is this importer's name.
const Format = "openapi"

// EffectExtension is the operation field that overrides the effect the
// method implies: "read", "write" or "destructive".
const EffectExtension = "x-toolsift-effect"

// Options tune Read.
type Options struct {
	// Product names the product of every tool (its ID is the name with
	// "." replaced, as for an MCP server); "" takes info.title. It is
	// importer.Options.Product (a build's --product).
	Product string
}

// Import reads an OpenAPI document strictly: any repair fails it.
func Import(data []byte) (*native.Document, error) { return ImportWith(data, nil) }

// ImportWith is Read with default options, the importer's registered form.
func ImportWith(data []byte, t *tally.Tally) (*native.Document, error) {
	return Read(data, t, Options{})
}

// methods are the operations of a path item, in the order tools are read.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Read reads an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML),
// counting into t: a repaired detail goes to t.Warn, a tool left out to
// t.Skip (from native.BuildWith).
func Read(data []byte, t *tally.Tally, opts Options) (*native.Document, error) {
	root, err := decode(data)
	if err != nil {
		return nil, err
	}
	doc, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an OpenAPI document (an object with \"openapi\" or \"swagger\"), got %s", typeName(root))
	}
	r := &reader{t: t, res: &resolver{root: doc}}
	switch {
	case isVersion(doc["openapi"], "3."):
	case isVersion(doc["swagger"], "2."):
		r.swagger2 = true
	default:
		return nil, fmt.Errorf(`want an OpenAPI 3.x document ("openapi": "3.…") or Swagger 2.0 ("swagger": "2.0"): found neither`)
	}
	r.countDocumentKeys(doc)
	r.tagText = tagDescriptions(doc["tags"])
	r.scopeText = r.scopeDescriptions(doc)
	r.security = doc["security"]

	info, _ := doc["info"].(map[string]any)
	title := strings.TrimSpace(r.text(info, "info.title", "info"))
	description := r.text(info, "info.description", "info")
	if docs, ok := doc["externalDocs"].(map[string]any); ok {
		if more := strings.TrimSpace(r.text(docs, "externalDocs.description", "externalDocs")); more != "" && !strings.Contains(description, more) {
			description = strings.TrimSpace(description + "\n\n" + more)
		}
	}
	product := native.Product{Description: r.cut(description, "info.description", "info")}
	switch {
	case opts.Product != "":
		product.ID, product.Name = native.ProductID(opts.Product), opts.Product
	case title != "":
		product.ID, product.Name = slug(title), title
	}
	if product.ID == "" {
		product.ID, product.Name = native.DefaultProduct, ""
	}

	paths, ok := doc["paths"].(map[string]any)
	if !ok && doc["paths"] != nil {
		if err := r.repair("paths", fmt.Sprintf("want an object of path → path item, got %s", typeName(doc["paths"]))); err != nil {
			return nil, err
		}
	}
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, err := r.res.object(paths[path])
		if err != nil {
			if err := r.repair("paths", fmt.Sprintf("paths[%q]: %v", path, err)); err != nil {
				return nil, err
			}
			continue
		}
		shared := item["parameters"]
		for _, method := range methods {
			op, present := item[method]
			if !present {
				continue
			}
			t.Read()
			tool, err := r.operation(path, method, op, shared)
			if err != nil {
				return nil, err
			}
			product.Tools = append(product.Tools, tool)
		}
	}
	r.countSecurity(doc)
	if r.err != nil {
		return nil, r.err
	}
	return &native.Document{Products: []native.Product{product}}, nil
}

// countSecurity counts the document's own security requirements: used when
// an operation took scope descriptions from them, else how to call it.
func (r *reader) countSecurity(doc map[string]any) {
	if r.t == nil || doc["security"] == nil {
		return
	}
	if r.inheritedWords {
		r.t.UseAs("security", tally.ToExtra)
		return
	}
	r.t.IgnoreAs("security", tally.ToHowToCall)
}

func scopeKey(scheme, scope string) string { return scheme + "\x00" + scope }

// scopeDescriptions reads every OAuth scope's description: Swagger 2.0's
// securityDefinitions.<scheme>.scopes, OpenAPI 3's
// components.securitySchemes.<scheme>.flows.<flow>.scopes (a scheme may be a
// $ref). A scheme or flow of the wrong shape has no scopes; the schemes
// themselves are how to call the API.
func (r *reader) scopeDescriptions(doc map[string]any) map[string]string {
	var schemes map[string]any
	if r.swagger2 {
		schemes, _ = doc["securityDefinitions"].(map[string]any)
	} else if components, ok := doc["components"].(map[string]any); ok {
		schemes, _ = components["securitySchemes"].(map[string]any)
	}
	out := map[string]string{}
	add := func(scheme string, scopes any) {
		m, _ := scopes.(map[string]any)
		for scope, d := range m {
			if text, _ := d.(string); strings.TrimSpace(text) != "" {
				out[scopeKey(scheme, scope)] = strings.TrimSpace(text)
			}
		}
	}
	for name, v := range schemes {
		scheme, err := r.res.object(v)
		if err != nil {
			continue
		}
		if r.swagger2 {
			add(name, scheme["scopes"])
			continue
		}
		flows, _ := scheme["flows"].(map[string]any)
		for _, flow := range flows {
			if f, ok := flow.(map[string]any); ok {
				add(name, f["scopes"])
			}
		}
	}
	return out
}

// decode reads JSON (the first byte a "{") with the core's JSON decoder, or
// else YAML, of which JSON is a subset.
func decode(data []byte) (any, error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return jsonread.Decode(trimmed)
	}
	return decodeYAML(data)
}

func isVersion(v any, prefix string) bool {
	switch s := v.(type) {
	case string:
		return strings.HasPrefix(s, prefix)
	case json.Number: // YAML: swagger: 2.0
		return strings.HasPrefix(string(s), prefix)
	}
	return false
}

// reader holds what every operation of one document shares.
type reader struct {
	t        *tally.Tally
	res      *resolver
	swagger2 bool
	tagText  map[string]string // a top-level tag's name → its description (looked up, never walked)
	// scopeText is each OAuth scope's description, by scheme and scope
	// (scopeKey), from the document's security schemes; security is the
	// document's own requirements, which an operation without any inherits.
	scopeText map[string]string
	security  any
	// inheritedWords: an operation took scope descriptions from the
	// document's requirements (the report then counts "security" as used).
	inheritedWords bool
	err            error // the first repair a strict import refused
}

// Where a document's keys go, for the report. components (3.x) and
// definitions, parameters and responses (2.0) are read through the
// references into them; a top-level tag's description joins the extra text
// of each operation it tags; the document's externalDocs description joins
// the product's description; an OAuth scope's description (in
// securityDefinitions or components.securitySchemes) joins the extra text of
// each operation that requires the scope, since it says what the operation
// may do ("modify pets in your account"). Everything else the
// specifications define is about reaching the API (how to call it), or is
// webhooks: requests the API sends, which no agent calls.
var documentRoles = map[string]string{
	"openapi": "version", "swagger": "version", "info": "product", "paths": "tools",
	"components": "references", "definitions": "references", "parameters": "references", "responses": "references",
	"tags":    tally.ToExtra,
	"servers": tally.ToHowToCall, "host": tally.ToHowToCall, "basePath": tally.ToHowToCall, "schemes": tally.ToHowToCall,
	"consumes": tally.ToHowToCall, "produces": tally.ToHowToCall, "security": tally.ToHowToCall,
	"securityDefinitions": "references", "jsonSchemaDialect": tally.ToHowToCall,
	"webhooks":     "dropped: requests the API sends, not operations an agent calls",
	"externalDocs": "product",
}

// operationRoles: the same for an operation's keys that are not read into
// the tool.
var operationRoles = map[string]string{
	"servers": tally.ToHowToCall, "consumes": tally.ToHowToCall,
	"produces": tally.ToHowToCall, "schemes": tally.ToHowToCall,
	"callbacks": "dropped: requests the API sends, not operations an agent calls",
}

// countDocumentKeys counts the document's top-level keys in the report.
func (r *reader) countDocumentKeys(doc map[string]any) {
	if r.t == nil {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if doc[k] == nil || doc[k] == "" || k == "security" { // security: countSecurity, once the operations are read
			continue
		}
		role, known := documentRoles[k]
		switch {
		case !known:
			r.t.Ignore(k)
		case strings.HasPrefix(role, "dropped: "):
			r.t.IgnoreAs(k, role)
		default:
			r.t.UseAs(k, role)
		}
	}
}

// tagDescriptions reads the document's tags list: each tag's description
// and its external docs' description, by name.
func tagDescriptions(v any) map[string]string {
	list, _ := v.([]any)
	out := map[string]string{}
	for _, item := range list {
		tag, _ := item.(map[string]any)
		name, _ := tag["name"].(string)
		if name == "" {
			continue
		}
		var parts []string
		if d, _ := tag["description"].(string); strings.TrimSpace(d) != "" {
			parts = append(parts, strings.TrimSpace(d))
		}
		if docs, ok := tag["externalDocs"].(map[string]any); ok {
			if d, _ := docs["description"].(string); strings.TrimSpace(d) != "" {
				parts = append(parts, strings.TrimSpace(d))
			}
		}
		if len(parts) > 0 {
			out[name] = strings.Join(parts, " ")
		}
	}
	return out
}

// repair is the one place a malformed detail is let through: it records a
// warning for field, or, when the import is strict, the error that refuses
// the document (returned, and kept in r.err).
func (r *reader) repair(field, example string) error {
	err := r.t.Repair(field, errors.New(example))
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// text reads an optional string field of object for a warning under field.
func (r *reader) text(object map[string]any, field, where string) string {
	key := field[strings.LastIndex(field, ".")+1:]
	v, ok := object[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	r.repair(field, fmt.Sprintf("%s: want a string, got %s", where, typeName(v)))
	return ""
}

// operation reads one operation into a tool. Its only error is a repair a
// strict import refuses.
func (r *reader) operation(path, method string, value, shared any) (native.Tool, error) {
	where := fmt.Sprintf("paths[%q].%s", path, method)
	op, ok := value.(map[string]any)
	if !ok {
		op = map[string]any{}
		if err := r.repair("operation", fmt.Sprintf("%s: want an object, got %s", where, typeName(value))); err != nil {
			return native.Tool{}, err
		}
	}
	o := &opReader{reader: r, where: where, op: op, tool: native.Tool{Interface: native.InterfaceFunction}}
	o.countKeys()
	tool := &o.tool

	name := strings.ToUpper(method) + " " + path
	if id, ok := op["operationId"]; ok && id != nil {
		s, isString := id.(string)
		switch {
		case !isString:
			o.warn("operationId", fmt.Sprintf("want a string, got %s; named %q", typeName(id), name))
		case strings.TrimSpace(s) != s && strings.TrimSpace(s) != "":
			o.warn("operationId", fmt.Sprintf("%q has surrounding white space; trimmed", s))
			name = strings.TrimSpace(s)
		case s != "":
			name = s
		}
	}
	tool.Name = name
	tool.Origin = fmt.Sprintf("%s (name %q)", where, name)
	tool.Title = o.str("summary")
	tool.Description = o.str("description")
	tool.Keywords = o.strs("tags")
	for _, tag := range tool.Keywords {
		o.extra(o.tagText[tag])
	}
	tool.Deprecated = o.flag(op, "deprecated", "deprecated", "")
	tool.Safety = o.safety(method)

	o.extra(strings.ToUpper(method) + " " + path)
	if docs, ok := op["externalDocs"].(map[string]any); ok {
		o.extra(o.textOf(docs, "description", "externalDocs.description"))
	}
	o.scopes()
	schema := o.inputSchema(shared)
	o.responses()
	o.extensions()

	encoded, err := jsonw.AppendValue(nil, schema, false)
	if err != nil { // only a value decode never gives (NaN, a Go type): say so
		o.warn("input schema", err.Error())
		encoded = []byte(`{"type":"object"}`)
	}
	tool.InputSchema = encoded
	tool.SchemaField = "parameters"
	tool.Extra = o.extraText()
	return *tool, o.reader.err
}

// opReader reads one operation; its first strict refusal is err.
type opReader struct {
	*reader
	where string
	op    map[string]any
	tool  native.Tool
	parts []string // extra text, in reading order, de-duplicated
}

func (o *opReader) warn(field, detail string) { o.repair(field, o.where+": "+detail) }

// countKeys counts the operation's fields in the report: the ones read are
// used, every x-* extension too (its text goes to extra).
func (o *opReader) countKeys() {
	if o.t == nil {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(o.op)) {
		if o.op[k] == nil || o.op[k] == "" {
			continue
		}
		switch {
		case k == "security": // counted by scopes, which reads it
		case strings.HasPrefix(k, "x-"):
			o.t.Use("operation.x-*")
		case slices.Contains([]string{"deprecated", "description", "externalDocs", "operationId", "parameters",
			"requestBody", "responses", "summary", "tags"}, k):
			o.t.Use("operation." + k)
		case operationRoles[k] != "":
			o.t.IgnoreAs("operation."+k, operationRoles[k])
		default:
			o.t.Ignore("operation." + k)
		}
	}
}

func (o *opReader) str(key string) string {
	v, ok := o.op[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	o.warn(key, fmt.Sprintf("want a string, got %s", typeName(v)))
	return ""
}

func (o *opReader) textOf(object map[string]any, key, field string) string {
	v, ok := object[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	o.warn(field, fmt.Sprintf("want a string, got %s", typeName(v)))
	return ""
}

// strs reads a list of strings, keeping the strings of a mixed list and
// taking a lone string as a list of one.
func (o *opReader) strs(key string) []string {
	switch v := o.op[key].(type) {
	case nil:
		return nil
	case string:
		o.warn(key, fmt.Sprintf("want an array of strings, got a string %q; read as a list of one", v))
		return []string{v}
	case []any:
		var out []string
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				o.warn(key, fmt.Sprintf("want strings, got %s; dropped", typeName(item)))
				continue
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	default:
		o.warn(key, fmt.Sprintf("want an array of strings, got %s; dropped", typeName(v)))
		return nil
	}
}

// flag reads a boolean, coercing "true" and "false" strings (any case);
// subject ("parameter \"q\": ") says whose it is in a warning.
func (o *opReader) flag(object map[string]any, key, field, subject string) bool {
	switch v := object[key].(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			o.warn(field, fmt.Sprintf("%swant a boolean, got the string %q; read as true", subject, v))
			return true
		case "false", "":
			o.warn(field, fmt.Sprintf("%swant a boolean, got the string %q; read as false", subject, v))
			return false
		}
	}
	o.warn(field, fmt.Sprintf("%swant a boolean, got %s; read as false", subject, typeName(object[key])))
	return false
}

// safety is the method's effect, or the one x-toolsift-effect names.
func (o *opReader) safety(method string) catalog.Safety {
	effect := "read"
	switch method {
	case "post", "put", "patch":
		effect = "write"
	case "delete":
		effect = "destructive"
	}
	if v, ok := o.op[EffectExtension]; ok && v != nil {
		s, _ := v.(string)
		switch s = strings.ToLower(strings.TrimSpace(s)); s {
		case "read", "write", "destructive":
			effect = s
		default:
			o.warn(EffectExtension, fmt.Sprintf("want \"read\", \"write\" or \"destructive\", got %s; the method's effect %q kept", describe(v), effect))
		}
	}
	// Idempotency is the method's (RFC 9110 §9.2.2), whatever the effect.
	idempotency := "non_idempotent"
	switch method {
	case "get", "head", "options", "trace", "put", "delete":
		idempotency = "idempotent"
	}
	s := catalog.Safety{Effect: effect, Confirmation: "not_required", Idempotency: idempotency}
	switch effect {
	case "read":
		s.Risk = "low"
	case "write":
		s.Risk = "medium"
	default:
		s.Risk, s.Confirmation = "high", "user_required"
	}
	return s
}

// scopes adds to extra the description of each OAuth scope the operation
// requires: its own security requirements, or, when it has none, the
// document's (an empty list of its own means none at all). Schemes and
// scopes are read in sorted order, so the text does not follow map order.
func (o *opReader) scopes() {
	requirements, own := o.op["security"]
	if !own {
		requirements = o.security
	}
	took := false
	list, _ := requirements.([]any)
	for _, item := range list {
		requirement, _ := item.(map[string]any)
		for _, scheme := range slices.Sorted(maps.Keys(requirement)) {
			scopes, _ := requirement[scheme].([]any)
			for _, scope := range scopes {
				name, _ := scope.(string)
				if text := o.scopeText[scopeKey(scheme, name)]; text != "" {
					o.extra(text)
					took = true
				}
			}
		}
	}
	switch {
	case !own:
		o.inheritedWords = o.inheritedWords || took
	case o.t == nil || o.op["security"] == nil:
	case took:
		o.t.UseAs("operation.security", tally.ToExtra)
	default:
		o.t.IgnoreAs("operation.security", tally.ToHowToCall)
	}
}

// extra adds text to the tool's extra field once.
func (o *opReader) extra(text string) {
	if text = strings.TrimSpace(text); text != "" && !slices.Contains(o.parts, text) {
		o.parts = append(o.parts, text)
	}
}

// extraText joins the extra parts, cut to native.MaxTextBytes.
func (o *opReader) extraText() string {
	return o.cut(strings.Join(o.parts, " "), "extra", o.where)
}

// cut shortens text the importer composed or moved (extra, the product's
// description) to native.MaxTextBytes on a rune boundary, with a warning:
// Build refuses a longer field, and these are no tool's identity. A tool's
// own title or description over the limit is left for Build to refuse.
func (r *reader) cut(s, field, where string) string {
	if len(s) <= native.MaxTextBytes {
		return s
	}
	r.repair(field, fmt.Sprintf("%s: %d bytes; cut to %d", where, len(s), native.MaxTextBytes))
	cut := native.MaxTextBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// responses adds each response's description (in status order) to extra.
func (o *opReader) responses() {
	responses, ok := o.op["responses"].(map[string]any)
	if !ok {
		if o.op["responses"] != nil {
			o.warn("responses", fmt.Sprintf("want an object, got %s; dropped", typeName(o.op["responses"])))
		}
		return
	}
	for _, status := range slices.Sorted(maps.Keys(responses)) {
		if strings.HasPrefix(status, "x-") {
			continue
		}
		response, err := o.res.object(responses[status])
		if err != nil {
			o.warn("responses", fmt.Sprintf("response %q: %v", status, err))
			continue
		}
		o.extra(o.textOf(response, "description", "responses.description"))
	}
}

// extensions adds the text of the operation's x-* fields to extra (its
// strings, in key order; the effect extension is not text).
func (o *opReader) extensions() {
	for _, k := range slices.Sorted(maps.Keys(o.op)) {
		if strings.HasPrefix(k, "x-") && k != EffectExtension {
			budget := 256
			o.collectText(o.op[k], &budget)
		}
	}
}

// collectText adds the strings of v to extra, up to budget values.
func (o *opReader) collectText(v any, budget *int) {
	if *budget--; *budget < 0 {
		return
	}
	switch node := v.(type) {
	case string:
		o.extra(node)
	case []any:
		for _, item := range node {
			o.collectText(item, budget)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(node)) {
			o.collectText(node[k], budget)
		}
	}
}

// typeName names a decoded value's JSON type, for messages.
func typeName(v any) string { return jsonread.TypeName(v) }

// describe shows a small value in a message: a string quoted, else its type.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return typeName(v)
}

// slug makes a product ID of a title: letters and digits lowercased, every
// other run of characters one "_", at most 64 bytes ("GitHub v3 REST API"
// → "github_v3_rest_api"). The title stays the product's display name.
func slug(title string) string {
	var b strings.Builder
	gap := false
	for _, c := range title {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			if b.Len()+utf8.RuneLen(c) > 64 {
				break
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		gap = true
	}
	return b.String()
}
