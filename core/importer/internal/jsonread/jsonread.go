// Package jsonread reads typed values out of decoded JSON for the importers.
// Importers decode a document once into generic values (the values
// json.Decoder gives with UseNumber, so numbers keep their text) and then
// read each object as a list of typed assignments; the first type error is
// remembered and names the field, so that an importer can say which entry of
// which file is wrong.
package jsonread

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Decode decodes exactly one JSON value (numbers as json.Number) and refuses
// trailing data. The result is what encoding/json gives for an `any` with
// UseNumber (see decoder); its strings share one copy of data.
func Decode(data []byte) (any, error) { return decodeValue(data) }

// Fields reads typed values out of one decoded JSON object. A missing key or
// a JSON null reads as the zero value; a value of the wrong type records the
// first error in Err.
type Fields struct {
	Object map[string]any
	Err    error
}

// Fail records err unless an earlier error is recorded.
func (f *Fields) Fail(err error) {
	if f.Err == nil {
		f.Err = err
	}
}

func (f *Fields) wrongType(key, want string) {
	f.Fail(fmt.Errorf("field %q: want %s, got %s", key, want, TypeName(f.Object[key])))
}

// Has reports whether key is present and not null.
func (f *Fields) Has(key string) bool { return f.Object[key] != nil }

// Str reads a string.
func (f *Fields) Str(key string) string {
	v := f.Object[key]
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.wrongType(key, "a string")
	}
	return s
}

// Bool reads a boolean.
func (f *Fields) Bool(key string) bool {
	v := f.Object[key]
	if v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		f.wrongType(key, "a boolean")
	}
	return b
}

// OptBool reads a boolean that may be absent (nil).
func (f *Fields) OptBool(key string) *bool {
	if f.Object[key] == nil {
		return nil
	}
	b := f.Bool(key)
	return &b
}

// Strs reads an array of strings.
func (f *Fields) Strs(key string) []string {
	v := f.Object[key]
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		f.wrongType(key, "an array of strings")
		return nil
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			f.wrongType(key, "an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

// Raw re-encodes a value as compact JSON with object keys sorted and no HTML
// escaping (the form Inspect prints); nil when absent.
func (f *Fields) Raw(key string) catalog.RawJSON {
	v, ok := f.Object[key]
	if !ok {
		return nil
	}
	out, err := jsonw.AppendValue(nil, v, false)
	if err != nil {
		f.Fail(fmt.Errorf("field %q: %w", key, err))
	}
	return out
}

// Obj reads an object.
func (f *Fields) Obj(key string) map[string]any {
	v := f.Object[key]
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.wrongType(key, "an object")
	}
	return m
}

// Arr reads an array.
func (f *Fields) Arr(key string) []any {
	v := f.Object[key]
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		f.wrongType(key, "an array")
	}
	return list
}

// Only records an error for the first key (in byte order) that is not in
// allowed: strict formats refuse what they do not understand instead of
// silently dropping it.
func (f *Fields) Only(allowed ...string) {
	var unknown []string
	for key := range f.Object {
		known := false
		for _, a := range allowed {
			if key == a {
				known = true
				break
			}
		}
		if !known {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		f.Fail(fmt.Errorf("unknown field %q (known: %s)", unknown[0], strings.Join(allowed, ", ")))
	}
}

// TypeName names the JSON type of a decoded value, for error messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Label describes an array entry in an error message by its key field
// (` (name "create_issue")`), or "" when it has none.
func Label(entry any, key string) string {
	if object, ok := entry.(map[string]any); ok {
		if name, ok := object[key].(string); ok {
			return fmt.Sprintf(" (%s %q)", key, name)
		}
	}
	return ""
}
