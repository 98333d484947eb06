package profile

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRankedQueryKeepsTheUserTurnsOfATranscript(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		// ACEBench's shape: the user asks, the agent asks back, the user answers.
		{"user: I want insights into nanomaterials in solar tech.\nsystem: Which region?\nuser: Please focus on Europe.",
			" I want insights into nanomaterials in solar tech.\n Please focus on Europe."},
		// Labels in any case, spaced, full turns over several lines, other roles.
		{"User : find flights\nto Paris\nAssistant: From where?\n  HUMAN:from Rome", " find flights\nto Paris\nfrom Rome"},
		{"human: a\nai: b\nbot: c\nagent: d\nmodel: e\nuser: f", " a\n f"},
		// A preamble before the first label is the caller's, kept.
		{"Context: travel\nuser: book a hotel\nassistant: which city?", "Context: travel\n book a hotel\n"},
	} {
		require.Equal(t, c.want, GenericV2.RankedQuery(c.query), c.query)
	}
}

func TestRankedQueryLeavesOtherQueriesAlone(t *testing.T) {
	for _, query := range []string{
		"send a file to the group chat",
		"User: find my unread mail",                    // one role only: not a transcript
		"user: a\nuser: b",                             // still one role
		"assistant: summarise this",                    // no user turn
		"Note: the user said system: reboot",           // labels only count at the start of a line
		"deadline: friday\nowner: me",                  // colons that are not speaker labels
		"assistantship applications: system: overload", // a label longer than any role
		"",
	} {
		require.Equal(t, query, GenericV2.RankedQuery(query), query)
	}
	// Profiles without the rule read every query as it is.
	transcript := "user: a\nsystem: b"
	require.Equal(t, transcript, GenericV1.RankedQuery(transcript))
	require.Equal(t, transcript, DWSV1.RankedQuery(transcript))
}

func TestRankedQueryAllocatesOnlyForATranscript(t *testing.T) {
	for _, plain := range []string{
		"Analyze Apple's stock for the past year and summarize it in a PPT: /root/ppt/apple.pptx",
		"User: find my unread mail\nUSER: and star them",
	} {
		require.Zero(t, testing.AllocsPerRun(100, func() { _ = GenericV2.RankedQuery(plain) }), plain)
	}
}
