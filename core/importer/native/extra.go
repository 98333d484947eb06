package native

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NotLanguage reports whether s is a value no one searches for by its
// words, so that an importer may leave it out of a tool's catch-all text:
//
//   - no letter at all ("17", "4.5", "2024-01-01", "#/")
//   - a URL or URI ("https://…", "mailto:…", "urn:…") or a JSON pointer or
//     local reference ("#/components/schemas/Pet")
//   - a UUID, or a run of 16 or more hex digits (a hash, a key, an id)
//   - one token of 24 or more characters that is base64 (padded, or with
//     '+'), or mixes letters and three or more digits with no separator
//     between words (a token, a key, encoded data)
//
// Everything else is kept, short labels and identifiers included: "v2",
// "get_user_by_id" and "OAuth2" are words a query may hold.
func NotLanguage(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	letters, digits, spaces := 0, 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case '0' <= r && r <= '9':
			digits++
		case unicode.IsSpace(r):
			spaces++
		}
	}
	switch {
	case letters == 0:
		return true
	case spaces > 0:
		return false // prose, or a list of words
	case strings.HasPrefix(s, "#/") || isURL(s):
		return true
	case isUUID(s) || hexRun(s) >= 16:
		return true
	}
	if len(s) < 24 || !isBase64ish(s) {
		return false
	}
	// A long token: base64 (padded, or with '+'), or letters and digits
	// mixed with no separators between words ("sk4f9a8b7c…"); a long
	// identifier of words ("listAllRepositories", "get_v2_user") stays.
	return strings.HasSuffix(s, "=") || strings.Contains(s, "+") || digits >= 3 && !strings.ContainsAny(s, "_-./")
}

// isURL: a scheme of letters followed by "://", or one of the schemes
// written without slashes.
func isURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || len(scheme) > 10 {
		return false
	}
	for _, r := range scheme {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '+' || r == '.' || r == '-') {
			return false
		}
	}
	if strings.HasPrefix(rest, "//") {
		return true
	}
	switch strings.ToLower(scheme) {
	case "mailto", "urn", "data", "tel":
		return rest != ""
	}
	return false
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	return true
}

// hexRun is the length of the longest run of hex digits holding a digit
// (so that "deadbeefcafe" alone, an English-looking run, does not count).
func hexRun(s string) int {
	best, run, digit := 0, 0, false
	for i := 0; i < len(s); i++ {
		if isHex(s[i]) {
			run++
			digit = digit || s[i] <= '9'
			if digit {
				best = max(best, run)
			}
		} else {
			run, digit = 0, false
		}
	}
	return best
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isBase64ish: only the characters of base64 and base64url (padding
// included).
func isBase64ish(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// MarkedDeprecated reports whether a tool's title, summary or description
// says the tool is deprecated, by the marks catalogs use: "DEPRECATED" in
// capitals anywhere, a leading "Deprecated" label ("Deprecated: use …",
// "[Deprecated] …", "(deprecated) …"), a text ending in "(Deprecated)", or
// a parenthetical that opens with the word ("(deprecated → use x)").
// A sentence that only mentions the word ("replaces the deprecated v1
// endpoint") is no mark.
func MarkedDeprecated(text string) bool {
	// Most texts hold neither spelling: one search for the common stem
	// before anything else.
	i := strings.Index(text, "eprecated")
	j := strings.Index(text, "EPRECATED")
	if i < 1 && j < 1 {
		return false
	}
	if j >= 1 && text[j-1] == 'D' {
		return true
	}
	t := strings.TrimSpace(text)
	lead := strings.TrimLeft(t, "[(*_ ")
	if len(lead) >= 10 && strings.EqualFold(lead[:10], "deprecated") {
		rest := strings.TrimLeft(lead[10:], "*_ ")
		if rest == "" || strings.IndexByte(":]).-—", rest[0]) >= 0 || strings.HasPrefix(rest, "—") {
			return true
		}
	}
	trail := strings.TrimRight(t, ". ")
	if len(trail) >= 12 && strings.EqualFold(trail[len(trail)-12:], "(deprecated)") {
		return true
	}
	// A parenthetical that opens with the word: "(deprecated → use x)",
	// "[deprecated, see y]".
	for k := i; k >= 2; {
		if (text[k-1] == 'd' || text[k-1] == 'D') && (text[k-2] == '(' || text[k-2] == '[') {
			if after := k + len("eprecated"); after == len(text) || !isLetterByte(text[after]) {
				return true
			}
		}
		next := strings.Index(text[k+1:], "eprecated")
		if next < 0 {
			break
		}
		k += 1 + next
	}
	return false
}

// DeprecatedValue reads a "deprecated" field or annotation: a boolean, a
// string boolean, or a note ("use get_v2 instead", which is also text to
// index: note). ok is false for any other type.
func DeprecatedValue(v any) (deprecated bool, note string, ok bool) {
	switch d := v.(type) {
	case nil:
		return false, "", true
	case bool:
		return d, "", true
	case string:
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "", "false", "no", "0":
			return false, "", true
		case "true", "yes", "1":
			return true, "", true
		}
		return true, d, true
	}
	return false, "", false
}

// Extra gathers a tool's text that no field has a role for, in the order
// added: each string once, values that are NotLanguage left out. Its String
// is catalog.Tool.Extra.
type Extra struct {
	parts []string
	size  int
}

// Add adds s (trimmed) unless it is empty, not language, or already there;
// it reports whether s is text to index (added now or before).
func (e *Extra) Add(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || NotLanguage(s) {
		return false
	}
	// A tool has a few extra texts: a scan, not a set. "Result" after
	// "result" is nothing new either.
	if !slices.ContainsFunc(e.parts, func(p string) bool { return len(p) == len(s) && strings.EqualFold(p, s) }) {
		e.parts = append(e.parts, s)
		e.size += len(s) + 1
	}
	return true
}

// Walk adds every string in a decoded JSON value: object values in key
// order, and the keys themselves where they are names (see nameKeys);
// numbers and booleans carry no words. It reports whether anything was
// text to index.
func (e *Extra) Walk(value any) bool {
	switch v := value.(type) {
	case string:
		return e.Add(v)
	case []any:
		any := false
		for _, item := range v {
			any = e.Walk(item) || any
		}
		return any
	case map[string]any:
		any := false
		var buf [8]string // most objects are small: their keys sorted on the stack
		keys := buf[:0]
		for key := range v {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			if !structuralKey(key) {
				any = e.Add(key) || any
			}
			if key == "$ref" || key == "pattern" || key == "$schema" || key == "$id" || key == "format" || key == "type" {
				continue // references, regular expressions, schema plumbing
			}
			any = e.Walk(v[key]) || any
		}
		return any
	}
	return false
}

// structuralKey reports whether an object key is JSON Schema, OpenAPI or
// MCP plumbing rather than a name: the keys of a schema's "properties", of
// a map of return values or of metadata are names ("city", "temperature")
// and are added; "type", "description" or "items" say nothing of the tool.
func structuralKey(key string) bool {
	_, found := slices.BinarySearch(structuralKeys, key)
	return found
}

// structuralKeys, sorted.
var structuralKeys = []string{
	"$comment", "$defs", "$id", "$ref", "$schema",
	"additionalProperties", "allOf", "annotations", "anyOf", "const", "content", "default", "definitions",
	"deprecated", "description", "enum", "example", "examples", "exclusiveMaximum", "exclusiveMinimum",
	"format", "in", "items", "maxItems", "maxLength", "maximum", "minItems", "minLength", "minimum", "multipleOf",
	"name", "not", "nullable", "oneOf", "pattern", "patternProperties", "properties", "readOnly", "required",
	"schema", "summary", "title", "type", "uniqueItems", "value", "writeOnly",
}

// String is the gathered text, space-joined, cut to MaxTextBytes at a rune
// boundary; cut reports whether it was.
func (e *Extra) String() (text string, cut bool) {
	if len(e.parts) == 0 {
		return "", false
	}
	var b strings.Builder
	b.Grow(e.size)
	for i, p := range e.parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	s := b.String()
	if len(s) <= MaxTextBytes {
		return s, false
	}
	end := MaxTextBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], true
}

// Len is the number of texts gathered.
func (e *Extra) Len() int { return len(e.parts) }

func isLetterByte(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
