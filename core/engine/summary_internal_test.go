package engine

import (
	"testing"

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
