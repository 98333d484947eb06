package native

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
	"github.com/toolsift/toolsift/core/importer/internal/tally"
)

// Reader reads one tool's definition leniently for the foreign importers:
// a malformed value that does not touch the tool's identity is coerced or
// dropped, counted in the tally (tally.Repair, which refuses it instead
// when the tally is strict or nil), and whatever text it held goes to
// Extra, so that the tool stays and no word is lost.
type Reader struct {
	T *tally.Tally
	// Tool names the tool in the examples of the report (`tool "x"`);
	// Name, when Tool is "", is the tool's name to say that with.
	Tool string
	Name string
	// Prefix is the report's prefix of the definition's fields
	// ("function." for a Chat Completions tool).
	Prefix string
	// Extra gathers the tool's text that no field has a role for.
	Extra Extra
}

// Fix is tally.Repair under field, the example prefixed with the tool.
func (r *Reader) Fix(field string, err error) error {
	if r == nil {
		return err
	}
	if r.T.Lenient() {
		// Built here, not per tool: most tools need no repair.
		switch {
		case r.Tool != "":
			err = fmt.Errorf("%s: %w", r.Tool, err)
		case r.Name != "":
			err = fmt.Errorf("tool %q: %w", r.Name, err)
		}
	}
	return r.T.Repair(field, err)
}

// fixAs is Fix that refuses with strictErr (the error a strict read has
// always given) and records strictErr with what the repair did.
func (r *Reader) fixAs(field string, strictErr error, repair string) error {
	if !r.T.Lenient() {
		return strictErr
	}
	return r.Fix(field, fmt.Errorf("%w; %s", strictErr, repair))
}

// Role says what a known field of a definition becomes (a catalog field:
// "name", "description", "parameters", …); To "" is a field that says how
// to call or load the tool (tally.ToHowToCall).
type Role struct{ Key, To string }

// Route counts every key of object under prefix ("doc." say) in the tally
// by where it goes: a key in known to its role; any other key's words to
// Extra ("extra"), or, when it holds none, dropped (tally.ToNowhere for
// strings that are not language, tally.ToNoneOfThem for numbers and
// booleans). Null values and empty strings count as absent: they say
// nothing to lose.
func (r *Reader) Route(prefix string, object map[string]any, known ...Role) {
	for _, key := range sortedKeys(object) {
		v := object[key]
		if v == nil || v == "" {
			continue
		}
		if i := slices.IndexFunc(known, func(k Role) bool { return k.Key == key }); i >= 0 {
			if known[i].To != "" {
				r.T.UseAs(prefix+key, known[i].To)
			} else {
				r.T.IgnoreAs(prefix+key, tally.ToHowToCall)
			}
			continue
		}
		switch {
		case r.Extra.Walk(v):
			r.T.UseAs(prefix+key, tally.ToExtra)
		case hasString(v):
			r.T.IgnoreAs(prefix+key, tally.ToNowhere)
		default:
			r.T.IgnoreAs(prefix+key, tally.ToNoneOfThem)
		}
	}
}

// hasString reports whether a decoded JSON value holds a non-empty string.
func hasString(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case []any:
		return slices.ContainsFunc(x, hasString)
	case map[string]any:
		for _, item := range x {
			if hasString(item) {
				return true
			}
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, max(len(m), 8))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Bool reads an optional boolean field of f (nil when absent): leniently
// also a string boolean, and any other value is dropped (a repair).
func (r *Reader) Bool(f *jsonread.Fields, key, field string) *bool {
	switch v := f.Object[key].(type) {
	case nil:
		return nil
	case bool:
		return &v
	case string:
		if b, ok := stringBool(v); ok && r.T.Lenient() {
			if err := r.Fix(field, fmt.Errorf("field %q: %q read as %t", key, v, b)); err != nil {
				f.Fail(err)
			}
			return &b
		}
	}
	if !r.T.Lenient() {
		return f.OptBool(key)
	}
	_ = r.Fix(field, fmt.Errorf("field %q: want a boolean, got %s; dropped", key, jsonread.TypeName(f.Object[key])))
	return nil
}

// Text reads the text field key of f: a string as it is; a list of
// strings joined by newlines (a repair); any other value's strings go to
// Extra (a repair) and the field reads "". In a strict read a wrong type
// fails f as jsonread.Fields.Str does.
func (r *Reader) Text(f *jsonread.Fields, key, field string) string {
	v := f.Object[key]
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	}
	err := fmt.Errorf("field %q: want a string, got %s", field, jsonread.TypeName(v))
	if fixErr := r.Fix(field, err); fixErr != nil {
		f.Fail(fixErr)
		return ""
	}
	if list, ok := v.([]any); ok {
		var lines []string
		for _, item := range list {
			if s, ok := item.(string); ok {
				lines = append(lines, s)
			} else {
				r.Extra.Walk(item)
			}
		}
		return strings.Join(lines, "\n")
	}
	r.Extra.Walk(v)
	return ""
}

// Deprecated reads a "deprecated" field or annotation into tool: a
// boolean, a string boolean, or a note (kept as extra text). Any other
// type is a repair.
func (r *Reader) Deprecated(tool *Tool, v any, field string) error {
	deprecated, note, ok := DeprecatedValue(v)
	if !ok {
		if err := r.Fix(field, fmt.Errorf("field %q: want a boolean or a note, got %s", field, jsonread.TypeName(v))); err != nil {
			return err
		}
		r.Extra.Walk(v)
		return nil
	}
	tool.Deprecated = tool.Deprecated || deprecated
	r.Extra.Add(note)
	return nil
}

// Finish sets tool.Extra from what was gathered (cut to MaxTextBytes, a
// repair).
func (r *Reader) Finish(tool *Tool) error {
	text, cut := r.Extra.String()
	if cut {
		if err := r.Fix("extra", fmt.Errorf("the tool's extra text is over %d bytes; cut", MaxTextBytes)); err != nil {
			return err
		}
	}
	tool.Extra = text
	return nil
}
