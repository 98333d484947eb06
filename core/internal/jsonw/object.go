package jsonw

// Object writes one JSON object member by member, in the order the caller
// adds them (byte order of the keys, for the canonical forms this project
// writes). Buf is the output so far; a nested value is written by appending
// to Buf after Key (for example with another Object started on Buf).
type Object struct {
	Buf        []byte
	escapeHTML bool
	first      bool
}

// StartObject appends '{' to dst and returns the writer of that object.
func StartObject(dst []byte, escapeHTML bool) Object {
	return Object{Buf: append(dst, '{'), escapeHTML: escapeHTML, first: true}
}

// Key writes the separator (if needed) and the key of the next member.
func (o *Object) Key(k string) {
	if !o.first {
		o.Buf = append(o.Buf, ',')
	}
	o.first = false
	o.Buf = AppendString(o.Buf, k, o.escapeHTML)
	o.Buf = append(o.Buf, ':')
}

// String writes a string member.
func (o *Object) String(k, v string) {
	o.Key(k)
	o.Buf = AppendString(o.Buf, v, o.escapeHTML)
}

// Strings writes an array-of-strings member.
func (o *Object) Strings(k string, values []string) {
	o.Key(k)
	o.Buf = AppendStrings(o.Buf, values, o.escapeHTML)
}

// Raw writes a member whose value is already encoded JSON, unless v is
// empty (an absent value).
func (o *Object) Raw(k string, v []byte) {
	if len(v) > 0 {
		o.Key(k)
		o.Buf = append(o.Buf, v...)
	}
}

// Bool writes a boolean member.
func (o *Object) Bool(k string, v bool) {
	o.Key(k)
	if v {
		o.Buf = append(o.Buf, "true"...)
	} else {
		o.Buf = append(o.Buf, "false"...)
	}
}

// Int writes an integer member.
func (o *Object) Int(k string, v int64) {
	o.Key(k)
	o.Buf = AppendInt(o.Buf, v)
}

// End appends '}' and returns the output.
func (o *Object) End() []byte { return append(o.Buf, '}') }
