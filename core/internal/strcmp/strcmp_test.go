package strcmp

import (
	"strings"
	"testing"
)

// TestWordsAgreeWithTheLanguage: every pair of strings up to 20 bytes over a
// small alphabet, at every offset into a shared buffer (so the word loads
// are unaligned and the pointers sometimes equal), compares as == and
// strings.Compare do.
func TestWordsAgreeWithTheLanguage(t *testing.T) {
	buf := "abababbaabXbbbaaab" + strings.Repeat("ab", 20)
	var subs []string
	for start := range 12 {
		for n := 0; n <= 20 && start+n <= len(buf); n++ {
			subs = append(subs, buf[start:start+n])
		}
	}
	pairs := 0
	for _, a := range subs {
		for _, b := range subs {
			if got, want := equalWords(a, b), a == b; got != want {
				t.Fatalf("equalWords(%q, %q) = %v, want %v", a, b, got, want)
			}
			if got, want := compareWords(a, b), strings.Compare(a, b); got != want {
				t.Fatalf("compareWords(%q, %q) = %d, want %d", a, b, got, want)
			}
			pairs++
		}
	}
	if pairs < 10000 {
		t.Fatalf("only %d pairs", pairs)
	}
}

// TestDifferenceInEveryPosition: two 40-byte strings that differ in one
// byte, in each position and either direction, including bytes above 0x7f
// (compared unsigned, as Go does).
func TestDifferenceInEveryPosition(t *testing.T) {
	base := []byte(strings.Repeat("x", 40))
	for i := range base {
		for _, c := range []byte{'a', 'y', 0x80, 0xff, 0} {
			other := append([]byte(nil), base...)
			other[i] = c
			a, b := string(base), string(other)
			if equalWords(a, b) || equalWords(b, a) {
				t.Fatalf("position %d byte %#x: equal", i, c)
			}
			if compareWords(a, b) != strings.Compare(a, b) || compareWords(b, a) != strings.Compare(b, a) {
				t.Fatalf("position %d byte %#x: compareWords disagrees", i, c)
			}
		}
	}
}

func FuzzWordsAgreeWithTheLanguage(f *testing.F) {
	f.Add("dws.chat.send", "dws.chat.sent")
	f.Add("", "a")
	f.Add("available", "available")
	f.Fuzz(func(t *testing.T, a, b string) {
		if equalWords(a, b) != (a == b) {
			t.Fatalf("equalWords(%q, %q)", a, b)
		}
		if compareWords(a, b) != strings.Compare(a, b) {
			t.Fatalf("compareWords(%q, %q)", a, b)
		}
	})
}
