package jsonread

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds how deeply a catalog's arrays and objects may nest;
// deeper input is refused before the decoder recurses further. encoding/json
// accepts 10,000 levels, but in WebAssembly every level is frames on the
// engine's own stack, and wasmtime's (Python's host) overflows near 4,000,
// which killed the call where other hosts refused the catalog. No tool
// definition needs more than a few dozen.
const MaxDepth = 512

// decoder builds the same values as encoding/json decoding into an `any`
// with UseNumber (map[string]any, []any, string, json.Number, bool, nil),
// at a fraction of the cost: encoding/json's reflection, its map growth and
// its per-string allocations are most of an import in WebAssembly, where a
// catalog of 3,600 tools took seconds to decode.
//
//   - Every string without escapes or invalid UTF-8, object keys and number
//     texts included, is a view into one copy of the input (text), not an
//     allocation of its own.
//   - An object's members and an array's elements are collected on scratch
//     stacks shared by every level and then moved into a map or slice of the
//     exact size, which never grows.
type decoder struct {
	data  []byte
	text  string // one copy of data; decoded strings are views into it
	i     int
	depth int
	keys  []string // scratch: the keys of the objects being read
	items []any    // scratch: the values of the objects and arrays being read
}

// syntaxError describes where and why the input is not JSON.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.offset) }

func decodeValue(data []byte) (any, error) {
	d := decoder{data: data, text: string(data)}
	d.skipSpace()
	value, err := d.value()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	d.skipSpace()
	if d.i < len(d.data) {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return value, nil
}

func (d *decoder) fail(msg string) error { return &syntaxError{offset: d.i, msg: msg} }

func (d *decoder) unexpected() error {
	if d.i >= len(d.data) {
		return d.fail("unexpected end of input")
	}
	return d.fail(fmt.Sprintf("invalid character %q", d.data[d.i]))
}

func (d *decoder) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value reads one value; d.i is at its first byte (spaces skipped).
func (d *decoder) value() (any, error) {
	if d.i >= len(d.data) {
		return nil, d.unexpected()
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.string()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.unexpected()
}

func (d *decoder) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if d.i >= len(d.data) || d.data[d.i] != word[k] {
			return d.unexpected()
		}
		d.i++
	}
	return nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > MaxDepth {
		return d.fail(fmt.Sprintf("arrays and objects nested more than %d levels deep", MaxDepth))
	}
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++ // {
	keyBase, itemBase := len(d.keys), len(d.items)
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		d.depth--
		return map[string]any{}, nil
	}
	for {
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, d.unexpected()
		}
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, d.unexpected()
		}
		d.i++
		d.skipSpace()
		value, err := d.value()
		if err != nil {
			return nil, err
		}
		d.keys = append(d.keys, key)
		d.items = append(d.items, value)
		d.skipSpace()
		if d.i < len(d.data) && d.data[d.i] == ',' {
			d.i++
			d.skipSpace()
			continue
		}
		if d.i < len(d.data) && d.data[d.i] == '}' {
			d.i++
			break
		}
		return nil, d.unexpected()
	}
	keys, items := d.keys[keyBase:], d.items[itemBase:]
	object := make(map[string]any, len(keys))
	for k, key := range keys {
		object[key] = items[k] // a repeated key: the last one wins, as in encoding/json
	}
	clear(keys) // the scratch must not keep the input or values alive
	clear(items)
	d.keys, d.items = d.keys[:keyBase], d.items[:itemBase]
	d.depth--
	return object, nil
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++ // [
	base := len(d.items)
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		d.depth--
		return []any{}, nil
	}
	for {
		value, err := d.value()
		if err != nil {
			return nil, err
		}
		d.items = append(d.items, value)
		d.skipSpace()
		if d.i < len(d.data) && d.data[d.i] == ',' {
			d.i++
			d.skipSpace()
			continue
		}
		if d.i < len(d.data) && d.data[d.i] == ']' {
			d.i++
			break
		}
		return nil, d.unexpected()
	}
	list := make([]any, len(d.items)-base)
	copy(list, d.items[base:])
	clear(d.items[base:])
	d.items = d.items[:base]
	d.depth--
	return list, nil
}

// string reads a string; d.i is at its opening quote. Without escapes or
// invalid UTF-8 it is a view into d.text.
func (d *decoder) string() (string, error) {
	start := d.i + 1
	ascii := true
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			s := d.text[start:i]
			if !ascii && !utf8.ValidString(s) {
				return d.unquote(start)
			}
			d.i = i + 1
			return s, nil
		case c == '\\':
			return d.unquote(start)
		case c < 0x20:
			d.i = i
			return "", d.fail("invalid character in string literal")
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.i = len(d.data)
	return "", d.unexpected()
}

// unquote decodes the string starting at start as encoding/json does: the
// usual escapes, \uXXXX with surrogate pairs, U+FFFD for a lone surrogate and
// for each invalid UTF-8 byte.
func (d *decoder) unquote(start int) (string, error) {
	out := make([]byte, 0, 2*16)
	i := start
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.i = i + 1
			return string(out), nil
		case c < 0x20:
			d.i = i
			return "", d.fail("invalid character in string literal")
		case c < utf8.RuneSelf && c != '\\':
			out = append(out, c)
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d.data[i:])
			out = utf8.AppendRune(out, r) // an invalid byte becomes U+FFFD
			i += size
		default: // a backslash
			if i+1 >= len(d.data) {
				d.i = len(d.data)
				return "", d.unexpected()
			}
			e := d.data[i+1]
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.data, i+2)
				if !ok {
					d.i = min(i+2, len(d.data))
					return "", d.fail("invalid \\u escape in string literal")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair decodes to one rune; anything else is U+FFFD
					// and the second escape is read on its own.
					if i+1 < len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						if r2, ok := hex4(d.data, i+2); ok {
							if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
								out = utf8.AppendRune(out, pair)
								i += 6
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				d.i = i + 1
				return "", d.fail("invalid escape in string literal")
			}
			i += 2
		}
	}
	d.i = len(d.data)
	return "", d.unexpected()
}

// hex4 reads the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number as its text: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (d *decoder) number() (any, error) {
	start := d.i
	if d.data[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.data) && d.data[d.i] == '0':
		d.i++
	case d.i < len(d.data) && '1' <= d.data[d.i] && d.data[d.i] <= '9':
		d.digits()
	default:
		return nil, d.unexpected()
	}
	if d.i < len(d.data) && d.data[d.i] == '.' {
		d.i++
		if !d.digits() {
			return nil, d.unexpected()
		}
	}
	if d.i < len(d.data) && (d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		d.i++
		if d.i < len(d.data) && (d.data[d.i] == '+' || d.data[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, d.unexpected()
		}
	}
	return json.Number(d.text[start:d.i]), nil
}

// digits skips one or more decimal digits; false when there is none.
func (d *decoder) digits() bool {
	start := d.i
	for d.i < len(d.data) && '0' <= d.data[d.i] && d.data[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}
