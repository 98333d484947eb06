package engine

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
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
