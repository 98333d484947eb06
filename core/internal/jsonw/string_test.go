package jsonw

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// trickyStrings are the inputs most likely to expose a difference from
// encoding/json. Every byte below 0x20 is added separately in
// TestAppendStringMatchesEncodingJSON.
var trickyStrings = []struct{ name, s string }{
	{"empty", ""},
	{"plain", "hello world"},
	{"quote", `say "hi"`},
	{"backslash", `C:\path\to`},
	{"only quote", `"`},
	{"only backslash", `\`},
	{"escaped quote text", `\"`},
	{"DEL", "a\x7fb"},
	{"html", "<script>a && b</script>"},
	{"html only", "<>&"},
	{"other punctuation", "'`=+/;:?#%@!~^|{}[]()$*"},
	{"line separator", "a\u2028b"},
	{"paragraph separator", "a\u2029b"},
	{"both separators", "\u2028\u2029"},
	{"neighbours of separators", "\u2027\u202a\u202f"},
	{"literal replacement char", "a\ufffdb"},
	{"max rune", "\U0010ffff"},
	{"emoji", "ok 👍🏽 done 🎉"},
	{"emoji only", "😀"},
	{"chinese", "将会话加入一个或多个自定义会话分组"},
	{"mixed chinese ascii", "搜索 tool_search <查询> & \"引号\"\n"},
	{"latin-1 supplement", "café naïve ©®"},
	{"c1 control U+0085", "a\u0085b"},
	{"bom", "\ufeffx"},
	{"nul", "\x00"},
	{"all short escapes", "\b\f\n\r\t"},
	{"invalid byte ff", "a\xffb"},
	{"invalid byte fe", "\xfe"},
	{"invalid byte c0", "\xc0\xaf"},            // overlong '/'
	{"overlong nul", "\xc0\x80"},               // overlong NUL
	{"overlong 3-byte", "\xe0\x80\xaf"},        // overlong '/'
	{"lone continuation", "a\x80b"},            // continuation byte alone
	{"many continuations", "\x80\xbf\x80\xbf"}, // several of them
	{"truncated 2-byte", "a\xc3"},
	{"truncated 3-byte", "a\xe4\xb8"},
	{"truncated 3-byte mid", "\xe4\xb8x"},
	{"truncated 4-byte", "\xf0\x9f\x98"},
	{"truncated 4-byte then ascii", "\xf0\x9f\x98a"},
	{"surrogate half high", "\xed\xa0\x80"},
	{"surrogate half low", "\xed\xbf\xbf"},
	{"surrogate pair as cesu-8", "\xed\xa0\xbd\xed\xb8\x80"},
	{"above max rune", "\xf4\x90\x80\x80"},
	{"5-byte form", "\xf8\x88\x80\x80\x80"},
	{"invalid then separator", "\xff\u2028\xff"},
	{"invalid then html", "\xff<\xff"},
	{"long ascii", strings.Repeat("abcdefghij", 100)},
	{"long with escapes", strings.Repeat("a\"b\\c\nd<", 50)},
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := trickyStrings
	for b := 0; b < 0x20; b++ {
		s := string(rune(b))
		cases = append(cases,
			struct{ name, s string }{"control alone " + s, s},
			struct{ name, s string }{"control inside " + s, "x" + s + "y"},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, escapeHTML := range []bool{true, false} {
				want := oracle(t, tc.s, escapeHTML)
				got := AppendString(nil, tc.s, escapeHTML)
				require.Equal(t, string(want), string(got), "escapeHTML=%v input %q", escapeHTML, tc.s)
			}
		})
	}
}

// TestAppendStringEveryByte checks each of the 256 byte values on its own
// and between ASCII letters, so every row of the escaping rules is hit.
func TestAppendStringEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		for _, s := range []string{string([]byte{byte(b)}), "a" + string([]byte{byte(b)}) + "z"} {
			for _, escapeHTML := range []bool{true, false} {
				require.Equal(t, string(oracle(t, s, escapeHTML)), string(AppendString(nil, s, escapeHTML)),
					"byte %#02x escapeHTML=%v", b, escapeHTML)
			}
		}
	}
}

// TestAppendStringExactBytes pins down the encoding/json behaviour this
// package was written against, so a change in a future Go release is
// reported as a clear difference rather than only as a fuzz failure.
// TestAppendStringEveryByteInWord puts each byte value at each position of
// the eight-byte words the ASCII fast path scans.
func TestAppendStringEveryByteInWord(t *testing.T) {
	for b := 0; b < 256; b++ {
		for pos := 0; pos < 9; pos++ {
			s := "x" + strings.Repeat("y", pos) + string([]byte{byte(b)}) + strings.Repeat("z", 16)
			for _, escapeHTML := range []bool{true, false} {
				require.Equal(t, string(oracle(t, s, escapeHTML)), string(AppendString(nil, s, escapeHTML)),
					"byte %#02x at %d escapeHTML=%v", b, pos, escapeHTML)
			}
		}
	}
}

// TestWordSafe checks the word-at-a-time test against the byte table for
// every pair of byte values at every pair of positions, which covers the
// borrow interactions between neighbouring bytes.
func TestWordSafe(t *testing.T) {
	byteSafe := func(b byte, m int) bool { return b < utf8.RuneSelf && asciiSafe[m][b] }
	for m, escapeHTML := range []bool{false, true} {
		for b1 := 0; b1 < 256; b1++ {
			for b2 := 0; b2 < 256; b2++ {
				want := byteSafe(byte(b1), m) && byteSafe(byte(b2), m)
				for p1 := 0; p1 < 8; p1++ {
					for p2 := p1 + 1; p2 < 8; p2++ {
						w := []byte("aaaaaaaa")
						w[p1], w[p2] = byte(b1), byte(b2)
						if got := wordSafe(load64(string(w), 0), escapeHTML); got != want {
							t.Fatalf("word %q escapeHTML=%v: got %v want %v", w, escapeHTML, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSkipPlainASCII: from every start, SkipPlainASCII stops at the first
// byte the byte-at-a-time definition stops at, for each byte value at each
// position of the words it reads.
func TestSkipPlainASCII(t *testing.T) {
	plain := func(b byte) bool { return b < utf8.RuneSelf && asciiSafe[0][b] }
	for b := 0; b < 256; b++ {
		for pos := 0; pos < 20; pos++ {
			s := strings.Repeat("y", pos) + string([]byte{byte(b)}) + strings.Repeat("z", pos%11)
			for start := 0; start <= len(s); start++ {
				want := start
				for want < len(s) && plain(s[want]) {
					want++
				}
				require.Equal(t, want, SkipPlainASCII(s, start), "byte %#02x at %d, from %d", b, pos, start)
			}
		}
	}
}

// TestPlainThreeByte checks the three-byte shortcut against the UTF-8
// decoder for every lead byte from 0xe0 to 0xef and all continuations.
func TestPlainThreeByte(t *testing.T) {
	for b0 := 0xe0; b0 <= 0xef; b0++ {
		for b1 := 0; b1 < 256; b1++ {
			for b2 := 0; b2 < 256; b2++ {
				s := string([]byte{byte(b0), byte(b1), byte(b2)})
				r, size := utf8.DecodeRuneInString(s)
				verbatim := size == 3 && r != '\u2028' && r != '\u2029'
				got := plainThreeByte(s, 0)
				if got && !verbatim {
					t.Fatalf("% x: shortcut accepts a sequence that must be escaped", s)
				}
				// Lead bytes E0 and ED are deliberately left to the decoder.
				if !got && verbatim && b0 != 0xe0 && b0 != 0xed {
					t.Fatalf("% x: shortcut misses a plain sequence", s)
				}
				if plainThreeByte(s[:2], 0) {
					t.Fatalf("% x: shortcut reads past the end", s[:2])
				}
			}
		}
	}
}

func TestAppendStringExactBytes(t *testing.T) {
	cases := []struct {
		in          string
		html, plain string
	}{
		{"\b\f\n\r\t", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`, `"\u0000\u0001\u001f"`},
		{"\x0b", `"\u000b"`, `"\u000b"`}, // vertical tab has no short form
		{"\x7f", "\"\x7f\"", "\"\x7f\""},
		{`"\`, `"\"\\"`, `"\"\\"`},
		{"<>&", `"\u003c\u003e\u0026"`, `"<>&"`},
		{"\u2028\u2029", `"\u2028\u2029"`, `"\u2028\u2029"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`, `"\ufffd\ufffd\ufffd"`},
		{"\xe4\xb8", `"\ufffd\ufffd"`, `"\ufffd\ufffd"`},
		{"\ufffd", "\"\ufffd\"", "\"\ufffd\""},
		{"/", `"/"`, `"/"`}, // the solidus is never escaped
	}
	for _, tc := range cases {
		require.Equal(t, tc.html, string(AppendString(nil, tc.in, true)), "%q", tc.in)
		require.Equal(t, tc.plain, string(AppendString(nil, tc.in, false)), "%q", tc.in)
		require.Equal(t, tc.html, string(oracle(t, tc.in, true)), "encoding/json changed for %q", tc.in)
		require.Equal(t, tc.plain, string(oracle(t, tc.in, false)), "encoding/json changed for %q", tc.in)
	}
}

func TestAppendStringAppends(t *testing.T) {
	dst := []byte("prefix:")
	got := AppendString(dst, "a<b", true)
	require.Equal(t, `prefix:"a\u003cb"`, string(got))
}

func TestAppendStringZeroAllocs(t *testing.T) {
	inputs := []string{
		strings.Repeat("plain ascii ", 20),
		strings.Repeat("将会话加入分组", 20),
		"<tab>\t\"quoted\"\\ \xff \u2028",
	}
	for _, s := range inputs {
		dst := make([]byte, 0, 6*len(s)+2)
		for _, escapeHTML := range []bool{true, false} {
			allocs := testing.AllocsPerRun(100, func() {
				dst = AppendString(dst[:0], s, escapeHTML)
			})
			require.Zero(t, allocs, "%q", s)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, tc := range trickyStrings {
		f.Add(tc.s)
	}
	for b := 0; b < 0x20; b++ {
		f.Add("x" + string(rune(b)) + "y")
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, escapeHTML := range []bool{true, false} {
			want := oracle(t, s, escapeHTML)
			got := AppendString(nil, s, escapeHTML)
			if string(got) != string(want) {
				t.Fatalf("escapeHTML=%v input %q:\n got %s\nwant %s", escapeHTML, s, got, want)
			}
			// Appending to a non-empty dst must leave the prefix alone.
			got = AppendString([]byte("[]"), s, escapeHTML)
			if string(got[:2]) != "[]" || string(got[2:]) != string(want) {
				t.Fatalf("escapeHTML=%v input %q: bad append result %q", escapeHTML, s, got)
			}
			// The output is always valid UTF-8, whatever the input.
			if !utf8.Valid(got) {
				t.Fatalf("escapeHTML=%v input %q: invalid UTF-8 output %q", escapeHTML, s, got)
			}
		}
	})
}
