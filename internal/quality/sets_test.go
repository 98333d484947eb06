package quality_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/quality"
)

func TestFitQueryCutsAtARuneBoundary(t *testing.T) {
	got, cut := quality.FitQuery("abc", 5, 100)
	require.Equal(t, "abc", got)
	require.False(t, cut)

	got, cut = quality.FitQuery("abcdef", 4, 100)
	require.Equal(t, "abcd", got)
	require.True(t, cut)

	// 给 is three bytes: a budget of 4 bytes keeps one of them, never half.
	got, cut = quality.FitQuery("给群发", 10, 4)
	require.Equal(t, "给", got)
	require.True(t, cut)

	require.True(t, quality.WithinBudget("给群", 2, 6))
	require.False(t, quality.WithinBudget("给群", 1, 6))
	require.False(t, quality.WithinBudget("给群", 2, 5))
}

func TestRelevantCountsPositiveGrades(t *testing.T) {
	require.Equal(t, 2, quality.Relevant(map[string]int{"a": 1, "b": 3, "c": 0, "d": -1}))
	require.Equal(t, 0, quality.Relevant(nil))
}

func TestProxySets(t *testing.T) {
	tools := []quality.ProxyTool{
		{CanonicalPath: "z.send", Description: "send a file to the group", UseWhen: []string{"send a file", "", "b" + strings.Repeat("x", 20)}, AvoidWhen: []string{"read receipts"}},
		{CanonicalPath: "a.read", Description: "read status", UseWhen: []string{"who read it", "check status"}, AvoidWhen: []string{"", strings.Repeat("y", 30)}},
	}
	intents, forbidden, intentsOver, forbiddenOver := quality.ProxySets(tools, 16, 64)
	require.Equal(t, []quality.ProxyCase{
		{Query: "check status", Tool: "a.read", Description: "read status"},
		{Query: "who read it", Tool: "a.read", Description: "read status"},
		{Query: "send a file", Tool: "z.send", Description: "send a file to the group"},
	}, intents)
	require.Equal(t, []quality.ProxyCase{{Query: "read receipts", Tool: "z.send", Description: "send a file to the group"}}, forbidden)
	require.Equal(t, 1, intentsOver)
	require.Equal(t, 1, forbiddenOver)

	require.Equal(t, "in_description", quality.CopiedSlice("send a file", "send a file to the group"))
	require.Equal(t, "not_in_description", quality.CopiedSlice("who read it", "read status"))
}

func TestReadRun(t *testing.T) {
	run, err := quality.ReadRun(strings.NewReader("q1\t2\tb\nq1\t1\ta\r\n\nq2\t1\tc\nq1\t2\tb2\n"))
	require.NoError(t, err)
	require.Equal(t, map[string][]string{"q1": {"a", "b", "b2"}, "q2": {"c"}}, run)

	_, err = quality.ReadRun(strings.NewReader("q1\t1\n"))
	require.ErrorContains(t, err, "run line 1: want 3 tab-separated fields")
	_, err = quality.ReadRun(strings.NewReader("q1\t1\ta\nq1\t0\tb\n"))
	require.ErrorContains(t, err, `run line 2: rank "0" is not a positive integer`)
}

// The rune cap and the byte cap, whichever comes first.
func TestFitQueryBudgets(t *testing.T) {
	short, cut := quality.FitQuery("发送消息", 256, 2048)
	require.False(t, cut)
	require.Equal(t, "发送消息", short)
	long, cut := quality.FitQuery(strings.Repeat("发", 300), 256, 2048)
	require.True(t, cut)
	require.Equal(t, strings.Repeat("发", 256), long)
	// 2048 bytes: 682 three-byte runes would be 2046 bytes, but the rune cap
	// comes first; four-byte runes hit the byte cap at 512 runes > 256.
	wide, cut := quality.FitQuery(strings.Repeat("a", 2000)+strings.Repeat("发", 30), 256, 2048)
	require.True(t, cut)
	require.Equal(t, strings.Repeat("a", 256), wide)
	// A larger budget cuts later, and the byte cap still holds: of 600
	// four-byte runes, 512 fit in 2 KiB.
	larger, cut := quality.FitQuery(strings.Repeat("a", 2000), 512, 2048)
	require.True(t, cut)
	require.Equal(t, strings.Repeat("a", 512), larger)
	clef, cut := quality.FitQuery(strings.Repeat("𝄞", 600), 1024, 2048)
	require.True(t, cut)
	require.Equal(t, strings.Repeat("𝄞", 512), clef)
}
