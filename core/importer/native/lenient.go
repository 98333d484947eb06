package native

import (
	"fmt"
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
	// Tool names the tool in the examples of the report ("tool \"x\"").
	Tool string
	// Extra gathers the tool's text that no field has a role for.
	Extra Extra
}

// Fix is tally.Repair under field, the example prefixed with the tool.
func (r *Reader) Fix(field string, err error) error {
	if r == nil {
		return err
	}
	if r.Tool != "" && r.T.Lenient() {
		err = fmt.Errorf("%s: %w", r.Tool, err)
	}
	return r.T.Repair(field, err)
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
	err := fmt.Errorf("field %q: want a string, got %s", key, jsonread.TypeName(v))
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
