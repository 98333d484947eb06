package wire

import (
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// decoder is the strict request decoder. It reproduces, without reflection,
// the acceptance rules of the decoder it replaced: encoding/json's Decoder
// with DisallowUnknownFields, followed by a refusal of anything but
// whitespace after the value. The engine runs as a WebAssembly module, where
// reflection-based decoding of one small request cost about 60 µs of a ~70 µs
// fixed per-call overhead; this one allocates only the decoded strings (and
// the slices that hold them).
// The differential tests and fuzz targets hold it to encoding/json: the same
// inputs are accepted, and they decode to the same struct.
//
// Those rules, for the flat request objects of this package:
//   - One JSON value surrounded by optional whitespace. A top-level null
//     decodes to the zero request; any other non-object value is refused.
//   - Member names match a field exactly or case-insensitively as
//     encoding/json folds them (see foldedEqual). Unknown names are refused;
//     of duplicate names the last wins.
//   - null leaves a string or an integer field as it was and resets a slice
//     field to nil.
//   - Strings are unescaped as encoding/json does, including its repairs:
//     each invalid UTF-8 byte and each unpaired surrogate escape becomes
//     U+FFFD.
//   - Integers must be JSON numbers without fraction or exponent that fit an
//     int.
//   - Arrays fill a slice the way encoding/json does (see readStrings).
//
// Any other problem, syntax or type, is an invalid_request_json error; since
// the old decoder refused all of them alike, the first one stops decoding.
// There is no recursion: the only nesting is a string array in the object
// and the search request's "scope" object of string arrays (scopeValue),
// and anything else nested is refused where it starts.
//
// Use:
//
//	d, err := newDecoder(data, SearchVersion)
//	for d.nextField() {
//		switch {
//		case d.fieldIs("query"):
//			d.stringValue(&r.Query)
//		default:
//			d.unknownField()
//		}
//	}
//	err = d.finish()
type decoder struct {
	data    []byte
	off     int
	what    string // the request kind, for messages
	state   decoderState
	key     []byte // the current member's name, unescaped
	keyOff  int    // where that name starts, for messages
	field   string // the field it matched, for messages
	scratch []byte // unescaped strings that could not be sliced from data
	err     *Error
}

type decoderState uint8

const (
	beforeValue decoderState = iota // nothing read yet
	afterMember                     // in the object: once the value is read, ',' or '}' is next
	afterValue                      // the top-level value is complete
)

// newDecoder refuses oversized requests before any parsing.
func newDecoder(data []byte, what string) (decoder, *Error) {
	if len(data) > MaxRequestBytes {
		return decoder{}, RequestTooLarge(what)
	}
	return decoder{data: data, what: what}, nil
}

// nextField advances to the next member of the top-level object, leaving
// d.key set and the value next. It reports false at the end of the object
// (or after a top-level null) and on any error.
func (d *decoder) nextField() bool {
	if d.err != nil {
		return false
	}
	d.skipSpace()
	switch d.state {
	case beforeValue:
		switch c := d.peek(); {
		case c == '{':
			d.off++
			d.skipSpace()
			if d.peek() == '}' {
				d.off++
				d.state = afterValue
				return false
			}
		case c == 'n':
			// encoding/json decodes a top-level null into a struct as "no
			// change": the zero request.
			d.literal("null")
			d.state = afterValue
			return false
		case beginsValue(c):
			d.fail(d.off, "the request must be a JSON object")
			return false
		default:
			d.syntaxError("looking for the beginning of the request")
			return false
		}
	case afterMember:
		switch d.peek() {
		case ',':
			d.off++
			d.skipSpace()
		case '}':
			d.off++
			d.state = afterValue
			return false
		default:
			d.syntaxError("after an object member")
			return false
		}
	default:
		return false
	}
	if d.peek() != '"' {
		d.syntaxError("looking for a member name")
		return false
	}
	d.keyOff = d.off
	key, ok := d.readStringBytes()
	if !ok {
		return false
	}
	d.key, d.field = key, ""
	d.skipSpace()
	if d.peek() != ':' {
		d.syntaxError("after a member name")
		return false
	}
	d.off++
	d.skipSpace()
	d.state = afterMember
	return true
}

// finish reports the first error, or refuses anything but whitespace after
// the value (encoding/json's second Decode would find a value or garbage).
func (d *decoder) finish() *Error {
	if d.err != nil {
		return d.err
	}
	d.skipSpace()
	if d.off < len(d.data) {
		d.fail(d.off, "data after the request object")
	}
	return d.err
}

// fieldIs reports whether the current member's name selects the field whose
// JSON name is name (lower-case ASCII).
func (d *decoder) fieldIs(name string) bool {
	if foldedEqual(d.key, name) {
		d.field = name
		return true
	}
	return false
}

// unknownField refuses the current member, as DisallowUnknownFields does.
func (d *decoder) unknownField() {
	d.fail(d.keyOff, "unknown field %q", d.key)
}

// foldedEqual reports whether key selects the field named name (lower-case
// ASCII) the way encoding/json matches names: an exact match, or equality
// after folding every rune to the smallest rune of its Unicode simple-fold
// class (with ASCII letters folded to upper case). Only two non-ASCII runes
// fold onto ASCII letters, U+017F (ſ, to S) and U+212A (Kelvin sign, to K);
// every other non-ASCII rune can never match an ASCII name. The fold test
// checks this against encoding/json over all runes.
func foldedEqual(key []byte, name string) bool {
	j := 0
	for i := 0; i < len(key); j++ {
		if j == len(name) {
			return false
		}
		c := key[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			i++
		} else {
			r, size := utf8.DecodeRune(key[i:])
			switch r {
			case '\u017f':
				c = 's'
			case '\u212a':
				c = 'k'
			default:
				return false
			}
			i += size
		}
		if c != name[j] {
			return false
		}
	}
	return j == len(name)
}

// stringValue reads a string into dst. null leaves dst unchanged, as
// encoding/json does for a string.
func (d *decoder) stringValue(dst *string) {
	switch d.peek() {
	case '"':
		if s, ok := d.readStringBytes(); ok {
			*dst = string(s)
		}
	case 'n':
		d.literal("null")
	default:
		d.wrongType("a string")
	}
}

// versionValue is stringValue for a version field: the expected version,
// the one almost every request names, is kept without a copy of the
// request's bytes.
func (d *decoder) versionValue(dst *string, expected string) {
	if d.peek() == '"' {
		if s, ok := d.readStringBytes(); ok {
			if string(s) == expected {
				*dst = expected
			} else {
				*dst = string(s)
			}
		}
		return
	}
	d.stringValue(dst)
}

// intValue reads an integer into dst. null leaves dst unchanged, as
// encoding/json does for an int.
func (d *decoder) intValue(dst *int) {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
		if n, ok := d.readInt(); ok {
			*dst = n
		}
	case c == 'n':
		d.literal("null")
	default:
		d.wrongType("an integer")
	}
}

// stringsValue reads an array of strings into dst. null resets dst to nil,
// as encoding/json does for a slice.
func (d *decoder) stringsValue(dst *[]string) {
	switch d.peek() {
	case '[':
		d.readStrings(dst)
	case 'n':
		if d.literal("null") {
			*dst = nil
		}
	default:
		d.wrongType("an array of strings")
	}
}

// readStrings reads the array at d.off into *dst the way encoding/json fills
// a slice, which shows when a duplicate name meets a slice that is already
// set: element i goes into the slice's slot i when it is within the length,
// else the length grows into spare capacity (exposing what an earlier, longer
// array left there), else the slice grows by one as append would (and as
// reflect.Value.Grow does, with the same capacities). A string overwrites
// its slot, a null leaves it as it is, so a null element is "" only in a new
// slot. The result is truncated to the array's length, and an empty array
// is a new empty, non-nil slice.
func (d *decoder) readStrings(dst *[]string) {
	d.off++ // [
	d.skipSpace()
	if d.peek() == ']' {
		d.off++
		*dst = []string{}
		return
	}
	s := *dst
	for i := 0; ; i++ {
		d.skipSpace()
		switch {
		case i < len(s):
		case i < cap(s):
			s = s[:i+1]
		default:
			s = append(s, "")
		}
		switch d.peek() {
		case '"':
			v, ok := d.readStringBytes()
			if !ok {
				return
			}
			s[i] = string(v)
		case 'n':
			if !d.literal("null") {
				return
			}
		default:
			d.wrongType("an array of strings")
			return
		}
		d.skipSpace()
		switch d.peek() {
		case ',':
			d.off++
		case ']':
			d.off++
			*dst = s[:i+1]
			return
		default:
			d.syntaxError("after an array element")
			return
		}
	}
}

// readInt reads a JSON number that must be an integer fitting an int, as
// encoding/json's strconv.ParseInt and OverflowInt require.
func (d *decoder) readInt() (int, bool) {
	start := d.off
	negative := d.peek() == '-'
	if negative {
		d.off++
	}
	digits := d.off
	// The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
	switch c := d.peek(); {
	case c == '0':
		d.off++
	case '1' <= c && c <= '9':
		d.skipDigits()
	default:
		d.syntaxError("in a number")
		return 0, false
	}
	end := d.off
	integer := true
	if d.peek() == '.' {
		d.off++
		if !d.skipDigits() {
			d.syntaxError("after a decimal point")
			return 0, false
		}
		integer = false
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.off++
		if c := d.peek(); c == '+' || c == '-' {
			d.off++
		}
		if !d.skipDigits() {
			d.syntaxError("in an exponent")
			return 0, false
		}
		integer = false
	}
	if !integer {
		d.fail(start, "%q must be an integer, not %s", d.field, d.data[start:d.off])
		return 0, false
	}
	// Accumulate the magnitude in a uint64, refusing what exceeds the int
	// range: MaxInt, or one more for a negative number.
	limit := uint64(math.MaxInt)
	if negative {
		limit++
	}
	var n uint64
	for _, c := range d.data[digits:end] {
		digit := uint64(c - '0')
		if n > (limit-digit)/10 {
			d.fail(start, "%q is out of range: %s", d.field, d.data[start:end])
			return 0, false
		}
		n = n*10 + digit
	}
	if negative {
		return int(-n), true // -0 is 0; MinInt's magnitude wraps onto itself
	}
	return int(n), true
}

// skipDigits skips ASCII digits and reports whether there was any.
func (d *decoder) skipDigits() bool {
	start := d.off
	for d.off < len(d.data) && '0' <= d.data[d.off] && d.data[d.off] <= '9' {
		d.off++
	}
	return d.off > start
}

// readStringBytes reads the string literal at d.off and returns its unescaped
// content: a slice of data when it needs no change (no allocation), else
// d.scratch, valid until the next call.
func (d *decoder) readStringBytes() ([]byte, bool) {
	start := d.off + 1
	i := start
	// Plain ASCII eight bytes at a time: a query is mostly that (on wazero,
	// decoding a StableToolBench query's text took 25,400 instructions a
	// byte at a time, 8,000 so; callgrind).
	text := unsafe.String(unsafe.SliceData(d.data), len(d.data)) // read only
	for i < len(d.data) {
		if i = jsonw.SkipPlainASCII(text, i); i == len(d.data) {
			break
		}
		c := d.data[i]
		if c == '"' {
			d.off = i + 1
			return d.data[start:i], true
		}
		if c == '\\' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(d.data[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return d.unescape(start, i)
}

// unescape finishes a string literal whose content starts at start and needs
// unescaping or repair from i on, exactly as encoding/json's unquote does.
func (d *decoder) unescape(start, i int) ([]byte, bool) {
	b := append(d.scratch[:0], d.data[start:i]...)
	for i < len(d.data) {
		switch c := d.data[i]; {
		case c == '"':
			d.off = i + 1
			d.scratch = b[:0] // keep the grown buffer for the next string
			return b, true
		case c < ' ':
			d.fail(i, "control character %#02x in a string", c)
			return nil, false
		case c == '\\':
			if i+1 == len(d.data) {
				i++ // a backslash at the very end: the string is unterminated
				continue
			}
			switch e := d.data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(d.data[i:])
				if r < 0 {
					d.fail(i, "invalid \\u escape in a string")
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair combines; anything else makes this half U+FFFD
					// and leaves what follows to be read on its own.
					if pair := utf16.DecodeRune(r, hex4(d.data[i:])); pair != utf8.RuneError {
						r = pair
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				d.fail(i, "invalid escape %q in a string", d.data[i:i+2])
				return nil, false
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			// Each byte of an invalid UTF-8 sequence becomes U+FFFD on its
			// own, as utf8.DecodeRune reads it.
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[i:i+size]...)
			}
			i += size
		}
	}
	d.off = len(d.data)
	d.fail(start-1, "unterminated string")
	return nil, false
}

// hex4 decodes \uXXXX at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// literal reads word (null) at d.off.
func (d *decoder) literal(word string) bool {
	end := min(d.off+len(word), len(d.data))
	if string(d.data[d.off:end]) != word {
		d.fail(d.off, "invalid literal, expected %s", word)
		return false
	}
	d.off = end
	return true
}

func (d *decoder) peek() byte {
	if d.off < len(d.data) {
		return d.data[d.off]
	}
	return 0
}

// skipSpace skips JSON whitespace, which is only these four bytes.
func (d *decoder) skipSpace() {
	for d.off < len(d.data) {
		switch d.data[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// beginsValue reports whether c can start a JSON value, so that a value of
// the wrong kind is told apart from a syntax error in messages.
func beginsValue(c byte) bool {
	switch c {
	case '{', '[', '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// wrongType refuses the value at d.off for the current field.
func (d *decoder) wrongType(want string) {
	if d.off >= len(d.data) || !beginsValue(d.data[d.off]) {
		d.syntaxError("looking for a value")
		return
	}
	d.fail(d.off, "%q must be %s", d.field, want)
}

// syntaxError refuses the byte at d.off, or the end of the input.
func (d *decoder) syntaxError(context string) {
	if d.off >= len(d.data) {
		d.fail(d.off, "unexpected end of input")
		return
	}
	d.fail(d.off, "invalid character %q %s", d.data[d.off], context)
}

// fail records the first error; offsets count bytes from the start.
func (d *decoder) fail(at int, format string, args ...any) {
	if d.err == nil {
		d.err = Validation("invalid_request_json",
			fmt.Sprintf("cannot decode %s request: %s at offset %d", d.what, fmt.Sprintf(format, args...), at))
	}
}

// scopeValue reads the "scope" object into *dst, the one nested object a
// request has. As encoding/json does for a pointer to a struct: null sets
// *dst to nil; an object fills the struct *dst points to (a new one when
// nil), so a duplicate "scope" member adds to the first; its member names
// fold as the top level's, and an unknown one is refused.
func (d *decoder) scopeValue(dst **SearchScope) {
	switch d.peek() {
	case '{':
	case 'n':
		if d.literal("null") {
			*dst = nil
		}
		return
	default:
		d.wrongType("an object")
		return
	}
	if *dst == nil {
		*dst = new(SearchScope)
	}
	s := *dst
	d.off++ // {
	d.skipSpace()
	if d.peek() == '}' {
		d.off++
		return
	}
	for {
		d.skipSpace()
		if d.peek() != '"' {
			d.syntaxError("looking for a member name")
			return
		}
		d.keyOff = d.off
		key, ok := d.readStringBytes()
		if !ok {
			return
		}
		d.key, d.field = key, ""
		d.skipSpace()
		if d.peek() != ':' {
			d.syntaxError("after a member name")
			return
		}
		d.off++
		d.skipSpace()
		switch {
		case d.fieldIs("product_ids"):
			d.stringsValue(&s.ProductIDs)
		case d.fieldIs("effects"):
			d.stringsValue(&s.Effects)
		case d.fieldIs("exclude_canonical"):
			d.stringsValue(&s.ExcludeCanonical)
		default:
			d.unknownField()
		}
		if d.err != nil {
			return
		}
		d.skipSpace()
		switch d.peek() {
		case ',':
			d.off++
		case '}':
			d.off++
			return
		default:
			d.syntaxError("after an object member")
			return
		}
	}
}
