package gateway

import (
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/hostapi"
)

// Every string a downstream server writes and the gateway shows an agent
// (tool titles and descriptions, schema text, error messages) passes
// through cleanText first. A hostile server can otherwise use terminal
// escapes to hide or rewrite what an operator watching the agent sees,
// and bidi or zero-width characters to make text read differently from
// what the model is given. The text is data, so stripping these changes
// no meaning a reader could see.

// cleanText strips from s: ANSI escape sequences (ESC and C1 introduced:
// CSI, OSC, DCS and the two-byte ones), C0 controls other than \t and \n,
// DEL, C1 controls, and every character hostapi.IsInvisible names (bidi
// controls, zero-width characters, tags, other default-ignorables).
// Invalid UTF-8 becomes U+FFFD. A clean string comes back as is, without
// allocating.
func cleanText(s string) string {
	if isClean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1B: // ESC: skip the whole sequence it starts
			i += escapeLength(s[i:])
			continue
		case r == 0x9B || r == 0x9D || r == 0x90: // C1 CSI, OSC, DCS
			i += size + sequenceBody(s[i+size:], r)
			continue
		case dropRune(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean is the fast path: most text holds nothing to strip.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			for j := i; j < len(s); {
				r, size := utf8.DecodeRuneInString(s[j:])
				if (r == utf8.RuneError && size == 1) || dropRune(r) {
					return false // invalid UTF-8, or a character to strip
				}
				j += size
			}
			return true
		} else if c == 0x1B || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F {
			return false
		}
	}
	return true
}

// dropRune is a single character cleanText removes.
func dropRune(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r == 0x7F, r >= 0x80 && r <= 0x9F:
		return true
	case r == '\u2028' || r == '\u2029':
		return true // line and paragraph separators: some renderers break lines, others do not
	}
	return hostapi.IsInvisible(r)
}

// escapeLength is the length of the escape sequence at the start of s
// (s[0] is ESC): ESC [ … final byte (CSI), ESC ] … BEL or ST (OSC), ESC P,
// X, ^ or _ … ST (string commands), ESC, intermediates and a final byte
// (nF), or ESC and one more character.
func escapeLength(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + sequenceBody(s[2:], 0x9B)
	case ']':
		return 2 + sequenceBody(s[2:], 0x9D)
	case 'P', 'X', '^', '_':
		return 2 + sequenceBody(s[2:], 0x90)
	}
	if s[1] >= 0x20 && s[1] <= 0x2F {
		// nF: intermediate bytes, then one final byte (ESC ( B selects
		// a character set).
		i := 1
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2F {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7E {
			i++
		}
		return i
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return 1 + size
}

// sequenceBody is the length of a CSI's parameters and final byte (kind
// 0x9B), or of a string command up to and including its terminator (BEL,
// ESC \ or ST), of s. An unterminated sequence runs to the end of s, so
// that its payload is never shown.
func sequenceBody(s string, kind rune) int {
	if kind == 0x9B {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7E {
				return i + 1
			} else if c < 0x20 || c >= 0x7F {
				return i // not a CSI byte: the sequence ends here
			}
		}
		return len(s)
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1B && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009C"):
			return i + len("\u009C")
		}
	}
	return len(s)
}

// cleanTool cleans the text of a tool as listed by a server: its title,
// description, annotation title, and every string value of its schemas
// (descriptions, titles, enum values: all are shown by inspect_tool).
// Names are left alone: the importer refuses a name with such characters,
// so that a tool is never renamed behind its server's back.
func cleanTool(t *mcp.Tool) {
	t.Title = cleanText(t.Title)
	t.Description = cleanText(t.Description)
	if t.Annotations != nil {
		t.Annotations.Title = cleanText(t.Annotations.Title)
	}
	t.InputSchema = cleanValue(t.InputSchema)
	t.OutputSchema = cleanValue(t.OutputSchema)
}

// cleanValue cleans the strings of a decoded JSON value in place.
func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return cleanText(v)
	case map[string]any:
		for k, x := range v {
			v[k] = cleanValue(x)
		}
	case []any:
		for i, x := range v {
			v[i] = cleanValue(x)
		}
	}
	return v
}

// cleanResult cleans the text of an error result (isError): the server's
// words about a failure are shown to the agent like a description is. A
// successful result is the tool's output and comes back unchanged.
func cleanResult(r *mcp.CallToolResult) {
	if r == nil || !r.IsError {
		return
	}
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = cleanText(tc.Text)
		}
	}
}
