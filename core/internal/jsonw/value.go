package jsonw

import (
	"errors"
	"slices"
	"strconv"
)

// Number is a JSON number literal kept as text, like encoding/json.Number.
// Keeping the text means numbers pass through decode/encode untouched
// (no float64 rounding of large integers, no change of notation).
//
// AppendValue writes a Number verbatim once it has checked that the text
// is a valid JSON number; the empty Number is written as 0, as
// encoding/json does for its zero Number.
type Number string

// numberLike is the method set of encoding/json.Number. Matching on it lets
// AppendValue accept json.Number values (what json.Decoder.UseNumber
// produces) without importing encoding/json or using reflect to look at the
// type's kind. Any other type with these three methods is treated as a
// number too; its String() text is validated before being written, so the
// output is still valid JSON.
type numberLike interface {
	String() string
	Float64() (float64, error)
	Int64() (int64, error)
}

// maxDepth bounds how deeply arrays and objects may nest. It equals the
// nesting limit of encoding/json's decoder, so every tree a json.Decoder
// can produce is accepted, while a cyclic value (a []any that contains
// itself) ends in an error instead of overflowing the stack.
const maxDepth = 10000

var (
	errUnsupportedType = errors.New("jsonw: unsupported value type")
	errTooDeep         = errors.New("jsonw: value nested more than 10000 levels deep (is it cyclic?)")
	errNumberPanicked  = errors.New("jsonw: String method of a number value panicked")
)

// AppendValue appends the JSON encoding of v, a generic value of the kinds a
// json.Decoder with UseNumber produces:
//
//	nil, bool, string, Number, json.Number, float64, int, int64,
//	[]any, []string, map[string]any, map[string]string
//
// (any nesting of those). The output is exactly what encoding/json writes:
// escapeHTML=true matches json.Marshal, false matches a json.Encoder with
// SetEscapeHTML(false) without the trailing newline. In particular, map keys
// are sorted by byte order of the raw (unescaped) key, nil slices and maps
// are null while empty ones are [] and {}, and floats follow AppendFloat.
//
// Only these exact types are understood; defined types such as
// `type Name string` are rejected because recognising them would take
// reflection. AppendValue returns an error, and never panics, for
// unsupported types, NaN or ±Inf, invalid Number text, and nesting deeper
// than 10000 levels (which is how cycles show up). On error it returns dst
// with its original length; bytes past that length may have been
// overwritten.
//
// json.Number is recognised by its method set (String, Float64, Int64),
// since naming it would mean importing encoding/json.
//
// Cost: linear in the size of the output, plus sorting each object's keys.
// The keys of objects with up to 16 entries are sorted in a stack buffer,
// so for such values the call allocates nothing when dst has enough
// capacity; each larger object costs one slice allocation.
func AppendValue(dst []byte, v any, escapeHTML bool) ([]byte, error) {
	out, err := appendValue(dst, v, escapeHTML, 0)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// appendValue does the work of AppendValue; depth is the number of arrays
// and objects enclosing v.
func appendValue(dst []byte, v any, escapeHTML bool, depth int) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return AppendString(dst, v, escapeHTML), nil
	case Number:
		return appendNumber(dst, string(v))
	case float64:
		out, ok := AppendFloat(dst, v)
		if !ok {
			return dst, errors.New("jsonw: unsupported float value " + strconv.FormatFloat(v, 'g', -1, 64))
		}
		return out, nil
	case int:
		return AppendInt(dst, int64(v)), nil
	case int64:
		return AppendInt(dst, v), nil
	case []any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		if depth >= maxDepth {
			return dst, errTooDeep
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, escapeHTML, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e, escapeHTML)
		}
		return append(dst, ']'), nil
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		if depth >= maxDepth {
			return dst, errTooDeep
		}
		return appendObject(dst, v, escapeHTML, depth)
	case map[string]string:
		if v == nil {
			return append(dst, "null"...), nil
		}
		return appendStringObject(dst, v, escapeHTML), nil
	case numberLike:
		s, err := numberText(v)
		if err != nil {
			return dst, err
		}
		return appendNumber(dst, s)
	}
	return dst, errUnsupportedType
}

// appendObject writes m as a JSON object. It is separate from appendValue
// so that the key buffer only takes stack space in frames that encode an
// object.
func appendObject(dst []byte, m map[string]any, escapeHTML bool, depth int) ([]byte, error) {
	var buf [16]string
	dst = append(dst, '{')
	for i, k := range sortedKeys(buf[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k, escapeHTML)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, m[k], escapeHTML, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendStringObject writes m as a JSON object; it cannot fail.
func appendStringObject(dst []byte, m map[string]string, escapeHTML bool) []byte {
	var buf [16]string
	dst = append(dst, '{')
	for i, k := range sortedKeys(buf[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k, escapeHTML)
		dst = append(dst, ':')
		dst = AppendString(dst, m[k], escapeHTML)
	}
	return append(dst, '}')
}

// sortedKeys appends the keys of m to keys and sorts them in byte order,
// the order encoding/json uses (it compares the raw keys, before escaping).
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// numberText returns n.String(). It turns a panic into an error because a
// foreign type can match numberLike; the obvious case is a nil
// *json.Number, whose value-receiver String method panics.
func numberText(n numberLike) (s string, err error) {
	defer func() {
		if recover() != nil {
			err = errNumberPanicked
		}
	}()
	return n.String(), nil
}

// appendNumber writes the JSON number literal s verbatim after validating it.
func appendNumber(dst []byte, s string) ([]byte, error) {
	if s == "" {
		// encoding/json writes its zero Number as 0 (a Go 1.5 compatibility
		// rule), so the empty text is accepted here too.
		s = "0"
	}
	if !isNumber(s) {
		return dst, errors.New("jsonw: invalid number literal " + strconv.Quote(s))
	}
	return append(dst, s...), nil
}

// isNumber reports whether s matches the JSON number grammar of RFC 8259:
//
//	[ "-" ] ( "0" | [1-9] [0-9]* ) [ "." [0-9]+ ] [ ( "e" | "E" ) [ "+" | "-" ] [0-9]+ ]
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	// Integer part: a lone zero, or digits without a leading zero.
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i+1)
	default:
		return false
	}
	// Fraction: a dot needs at least one digit after it.
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	// Exponent: e or E, an optional sign, and at least one digit.
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// skipDigits returns the index of the first non-digit in s at or after i.
func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
