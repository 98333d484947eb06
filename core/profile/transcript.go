package profile

import "strings"

// An agent often searches with the conversation so far: "user: …\n
// assistant: Which region?\nuser: Europe." The assistant's turns are the
// agent's own words (questions about parameters, restatements, politeness);
// the need a tool must meet is in what the user said. So a query that is a
// transcript, with at least one user turn and one turn of another role, is
// ranked by its user turns alone (their text, without the labels). Anything
// else, a plain sentence that happens to start with "User:" included, is
// ranked as it is. Measured on the two sets whose queries are transcripts
// (ACEBench en and zh, "user:" and "system:" turns): nDCG@10 +1.4 and +1.9
// points; the other four sets have no transcript and are unchanged
// (docs/QUALITY.md).

// transcriptRoles are the speaker labels recognised at the start of a line,
// before a colon, in any case (NFKC has already turned a full-width colon
// into ':'); user marks the user's side.
var transcriptRoles = []struct {
	label string
	user  bool
}{
	{"user", true}, {"human", true},
	{"assistant", false}, {"system", false}, {"ai", false}, {"bot", false}, {"agent", false}, {"model", false},
}

// longestRole bounds the label search: a colon further into a line is not a
// speaker label.
const longestRole = len("assistant")

// RankedQuery is the text of query that ranking reads: with QueryUserTurns,
// a transcript's user turns (see above); otherwise query itself. It
// allocates only for a transcript.
func (p *Profile) RankedQuery(query string) string {
	if !p.QueryUserTurns || strings.IndexByte(query, ':') < 0 {
		return query
	}
	if turns, ok := userTurns(query); ok {
		return turns
	}
	return query
}

// userTurns returns the text of the user turns of a transcript, one line
// per line kept, and whether query is a transcript at all. Lines before the
// first label count as the user's (a preamble the caller wrote). The first
// pass only looks, so a query that is no transcript costs no allocation.
func userTurns(query string) (string, bool) {
	var users, others int
	for line := range strings.Lines(query) {
		if role, _, ok := speaker(line); ok && role {
			users++
		} else if ok {
			others++
		}
	}
	if users == 0 || others == 0 {
		return "", false
	}
	user := true
	var b strings.Builder
	b.Grow(len(query))
	for line := range strings.Lines(query) {
		if role, text, ok := speaker(line); ok {
			user, line = role, text
		}
		if user {
			b.WriteString(line)
		}
	}
	return b.String(), true
}

// speaker reports whether line starts with a speaker label ("user:", "
// Assistant :"), which side it is, and the rest of the line.
func speaker(line string) (user bool, rest string, ok bool) {
	trimmed := strings.TrimLeft(line, " \t")
	colon := strings.IndexByte(trimmed, ':')
	if colon <= 0 || colon > longestRole+1 {
		return false, "", false
	}
	label := strings.TrimRight(trimmed[:colon], " \t")
	for _, r := range transcriptRoles {
		if strings.EqualFold(label, r.label) {
			return r.user, trimmed[colon+1:], true
		}
	}
	return false, "", false
}
