package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Bounds of $ref resolution. Only local references ("#/components/…",
// "#/definitions/…", any JSON pointer into the same document) are followed:
// the importer reads no file and no network. A schema is expanded inline
// (so that Inspect shows it whole and its properties become parameters),
// with three bounds that keep one operation's schema small whatever the
// document holds:
//
//   - a reference to a schema already being expanded (a cycle: a tree
//     node whose children are tree nodes) becomes a stub, {"title": name}
//     with the target's type, and is not expanded again;
//   - so does a reference more than maxRefDepth references deep;
//   - once an operation's schema has maxSchemaNodes values, every further
//     reference becomes a stub (the import report warns once per tool).
const (
	maxRefDepth    = 16
	maxSchemaNodes = 8192
	maxRefChain    = 32 // a $ref to a $ref to …: parameters, bodies, responses
)

// resolver follows local references into the document root.
type resolver struct {
	root any
}

// lookup returns the value a local reference points to, or an error that
// says why it cannot be followed.
func (r *resolver) lookup(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("%q is not a local reference (only #/… references are followed)", ref)
	}
	pointer := unescapeURI(ref[1:])
	if pointer == "" {
		return r.root, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", ref)
	}
	v := r.root
	for _, token := range strings.Split(pointer[1:], "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[token]
			if !ok {
				return nil, fmt.Errorf("%q: no %q", ref, token)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(node) {
				return nil, fmt.Errorf("%q: no element %q", ref, token)
			}
			v = node[i]
		default:
			return nil, fmt.Errorf("%q: no %q", ref, token)
		}
	}
	return v, nil
}

// object follows a chain of references ({"$ref": …} objects) from v to the
// object at its end: a parameter, request body or response may be a
// reference to one. A reference that cannot be followed is an error.
func (r *resolver) object(v any) (map[string]any, error) {
	for range maxRefChain {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want an object, got %s", typeName(v))
		}
		ref, isRef := m["$ref"].(string)
		if !isRef {
			return m, nil
		}
		next, err := r.lookup(ref)
		if err != nil {
			return nil, err
		}
		v = next
	}
	return nil, fmt.Errorf("more than %d references in a chain", maxRefChain)
}

// expansion is one operation's inline expansion of schemas: its node
// budget and the references being expanded.
type expansion struct {
	r       *resolver
	nodes   int
	stack   []string
	cut     bool   // the budget ran out: some reference became a stub
	missing string // the first reference that could not be followed
}

// schema returns v with every local reference expanded inline, within the
// bounds above. v is not changed; maps are copied as they are expanded.
func (e *expansion) schema(v any, depth int) any {
	e.nodes++
	switch node := v.(type) {
	case map[string]any:
		if ref, ok := node["$ref"].(string); ok {
			return e.ref(ref, node, depth)
		}
		out := make(map[string]any, len(node))
		// Keys in order: where the budget runs out must not depend on
		// the order a map gives.
		for _, k := range slices.Sorted(maps.Keys(node)) {
			child := node[k]
			switch {
			case k == "example" || k == "examples" || k == "xml" || k == "externalDocs":
				// Sample values and serialisation hints: not input, and
				// the bulk of some documents' schemas.
				continue
			case e.nodes >= maxSchemaNodes || depth >= maxSchemaDepth:
				if isSchemaValued(k) {
					e.cut = true
					continue
				}
			}
			out[k] = e.schema(child, depth+1)
		}
		return out
	case []any:
		out := make([]any, 0, len(node))
		for _, child := range node {
			out = append(out, e.schema(child, depth+1))
		}
		return out
	}
	return v
}

// maxSchemaDepth bounds the nesting of one expanded schema.
const maxSchemaDepth = 64

// isSchemaValued reports whether a schema keyword holds further schemas:
// what is left out once the budget is spent.
func isSchemaValued(k string) bool {
	switch k {
	case "properties", "items", "allOf", "anyOf", "oneOf", "not", "additionalProperties",
		"patternProperties", "prefixItems", "$defs", "definitions", "dependentSchemas", "if", "then", "else":
		return true
	}
	return false
}

func (e *expansion) ref(ref string, node map[string]any, depth int) any {
	target, err := e.r.lookup(ref)
	if err != nil {
		if e.missing == "" {
			e.missing = err.Error()
		}
		return map[string]any{"description": "unresolved reference " + ref}
	}
	cycle := false
	for _, s := range e.stack {
		cycle = cycle || s == ref
	}
	if cycle || len(e.stack) >= maxRefDepth || e.nodes >= maxSchemaNodes || depth >= maxSchemaDepth {
		if !cycle {
			e.cut = true
		}
		return stub(ref, target)
	}
	e.stack = append(e.stack, ref)
	out := e.schema(target, depth)
	e.stack = e.stack[:len(e.stack)-1]
	// Keywords beside $ref (3.1 allows "description" there) refine it.
	if m, ok := out.(map[string]any); ok && len(node) > 1 {
		merged := make(map[string]any, len(m)+len(node))
		for k, v := range m {
			merged[k] = v
		}
		for _, k := range slices.Sorted(maps.Keys(node)) {
			if k != "$ref" {
				merged[k] = e.schema(node[k], depth+1)
			}
		}
		out = merged
	}
	return out
}

// stub stands for a schema that is not expanded: its name (the last token
// of the reference) as the title, and its type when it states one.
func stub(ref string, target any) map[string]any {
	out := map[string]any{"title": ref[strings.LastIndex(ref, "/")+1:]}
	if m, ok := target.(map[string]any); ok {
		if t, ok := m["type"].(string); ok {
			out["type"] = t
		}
		if d, ok := m["description"].(string); ok {
			out["description"] = d
		}
	}
	return out
}

// unescapeURI undoes the percent-encoding of a URI fragment ("%7B" → "{"),
// leaving a malformed escape as it is.
func unescapeURI(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
