package engine

import (
	"strings"
	"testing"
)

func FuzzLowerMatchesStringsToLower(f *testing.F) {
	for _, seed := range []string{"", "群聊消息", "Chat 发送", "ΣΑΣ", "İ", "\xff\xfe", "already lower"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lower(s), strings.ToLower(s); got != want {
			t.Fatalf("lower(%q) = %q, want %q", s, got, want)
		}
	})
}
