package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Each hostile string a downstream server can put in a description, title
// or error text, and what the agent is shown instead.
func TestCleanText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Read a file", "Read a file"},
		{"line one\n\tline two", "line one\n\tline two"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"\x1b[2K\x1b[1Ahidden", "hidden"},                                 // erase line, cursor up
		{"\x1b]0;window title\x07after", "after"},                          // OSC ended by BEL
		{"\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},            // OSC 8 hyperlink ended by ST
		{"a\x1bPpayload\x1b\\b", "ab"},                                     // DCS
		{"\u009b31mred", "red"},                                            // C1 CSI
		{"safe\u202Eexe.txt", "safeexe.txt"},                               // right-to-left override
		{"ig\u200Bnore\u200D\uFEFF all", "ignore all"},                     // zero-width
		{"\u2066isolate\u2069", "isolate"},                                 // bidi isolates
		{"tag\U000E0041\U000E0042s", "tags"},                               // tag characters
		{"bell\a back\bspace\rcr\x00nul\x7fdel", "bell backspacecrnuldel"}, // C0 and DEL
		{"sep\u2028arator", "separator"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"unterminated \x1b]0;title", "unterminated "},
		{"ESC at end \x1b", "ESC at end "},
		{"\x1b(Bcharset \x1b#8x \x1bc reset \x1b[?25lcursor", "charset x  reset cursor"},
		{"Grüße, 日本語, émoji 🙂", "Grüße, 日本語, émoji 🙂"},
	} {
		require.Equal(t, c.want, cleanText(c.in), "%q", c.in)
	}
}

func TestCleanTextKeepsCleanStrings(t *testing.T) {
	s := "Read the complete contents of a file, as text.\n"
	require.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = cleanText(s) }))
}

// Every URL in a message is cut to its origin; the message around it stays.
func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		`Post "http://127.0.0.1:8931/tok-SECRET/mcp?api_key=SECRET": dial tcp: refused`:      `Post "http://127.0.0.1:8931": dial tcp: refused`,
		`redirected from https://a.test to another origin (https://b.test:8443/x?k=SECRET).`: `redirected from https://a.test to another origin (https://b.test:8443).`,
		`see https://user:SECRET@Example.COM/path, then retry`:                               `see https://example.com, then retry`,
		`no url here: 10:30`:     `no url here: 10:30`,
		`bad http://[::1/SECRET`: `bad http://…`,
	} {
		got := redactURLs(in)
		require.Equal(t, want, got)
		require.NotContains(t, got, "SECRET")
	}
}
