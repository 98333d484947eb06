package engine

import (
	"strings"
	"testing"
	"unicode"
)

func FuzzLowerMatchesStringsToLower(f *testing.F) {
	for _, seed := range []string{"", "群聊消息", "Chat 发送", "ΣΑΣ", "İ", "\xff\xfe", "already lower", "群聊 API 消息", "发送 ÀB \xe9\x80", "\xe3\x80\x80X", "Ｘ群"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Fatalf("lower(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestCJKRangeHasNoCase backs lower's shortcut: no rune in U+3000..U+9FFF
// changes under unicode.ToLower.
func TestCJKRangeHasNoCase(t *testing.T) {
	for r := rune(0x3000); r < 0xA000; r++ {
		if unicode.ToLower(r) != r {
			t.Fatalf("U+%04X has a lower case", r)
		}
	}
}
