package engine

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/text"
)

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Send a message. Then wait.":     "Send a message.",
		"  Version 1.2 of the API! Next": "Version 1.2 of the API!",
		"发送消息。然后等待。":                     "发送消息。",
		"first line\nsecond line":        "first line",
		"no end":                         "no end",
		"ends here.":                     "ends here.",
		"":                               "",
	} {
		require.Equal(t, want, firstSentence(in), in)
	}
}

// TestTruncateRunes: the same strings as converting the whole text to runes,
// invalid bytes included.
func TestTruncateRunes(t *testing.T) {
	old := func(s string, limit int) string {
		if utf8.RuneCountInString(s) <= limit {
			return s
		}
		return string([]rune(s)[:limit])
	}
	for _, s := range []string{"", "abc", "给群里发文件并确认消息已读", "a\xffb", "群\xe4\xb8聊天", "\xff\xfe", "ok 群 ok"} {
		for limit := 0; limit <= 15; limit++ {
			require.Equal(t, old(s, limit), truncateRunes(s, limit), "%q %d", s, limit)
		}
	}
}

// slowProductNameKey is productNameKey without its fast path.
func slowProductNameKey(value string) string {
	if value = strings.TrimSpace(value); value == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range text.NFKC(value) {
		switch {
		case unicode.IsSpace(r) || r == '\u3000':
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var productNameKeySeeds = []string{
	"钉钉表格", "需要回答「我属于哪个考勤组/打卡范围」等问题时", "AI 表格", "ai表格", "钉钉\u3000文档", "钉钉\u00a0文档",
	"doc\u2003x", "a\u0085b", "\xff群", "群\xe4\xb8", "ｃｈａｔ", "Ｃｈａｔ表格", "\u3001\u3002", "tab\there", "",
	"\ufffd", "ﬁle", "ⅣⅤ",
}

// TestProductNameKeyFastPath: the same keys as the rune-by-rune fold, for
// texts that take the fast path and texts that do not.
func TestProductNameKeyFastPath(t *testing.T) {
	for _, s := range productNameKeySeeds {
		require.Equal(t, slowProductNameKey(s), productNameKey(s), "%q", s)
	}
}

func FuzzProductNameKey(f *testing.F) {
	for _, s := range productNameKeySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := slowProductNameKey(s), productNameKey(s); want != got {
			t.Fatalf("productNameKey(%q) = %q, want %q", s, got, want)
		}
	})
}
