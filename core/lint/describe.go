package lint

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
)

// describe runs the checks of a tool's own text: empty, short, only the
// name again, no action word; parameters without a description; enum
// values nothing explains.
func (l *linter) describe() {
	for doc, tool := range l.e.Tools() {
		path := l.paths[doc]
		description := strings.TrimSpace(tool.Description)
		summary := strings.TrimSpace(tool.Selection.AgentSummary)
		switch {
		case description == "" && summary == "" && strings.TrimSpace(tool.Title) == "":
			l.add(Finding{Level: Error, Check: CheckDescriptionEmpty, Tool: path,
				Message: "no description, summary or title: only its name says what it does"})
		case description == "":
			l.add(Finding{Level: Warning, Check: CheckDescriptionEmpty, Tool: path,
				Message: "no description (only a summary or title)"})
		default:
			l.describeText(path, tool, description)
		}
		l.parameters(path, tool)
	}
}

func (l *linter) describeText(path string, tool *catalog.Tool, description string) {
	if units := TextUnits(description); units < MinDescriptionUnits {
		l.add(Finding{Level: Warning, Check: CheckDescriptionShort, Tool: path,
			Message: fmt.Sprintf("the description is %s (%d units; %d wanted: a word, or two Han, kana or Hangul characters, is one unit)",
				quoteShort(description), units, MinDescriptionUnits)})
	}
	if RepeatsName(description, tool.Identity.Name, tool.Title) {
		l.add(Finding{Level: Warning, Check: CheckDescriptionRepeatsName, Tool: path,
			Message: fmt.Sprintf("the description %s only repeats the tool's name or title", quoteShort(description))})
	}
	if checked, found := HasActionWord(description, NameWords(tool.Identity.Name)); checked != "" && !found {
		l.add(Finding{Level: Info, Check: CheckNoActionWord, Tool: path,
			Message: fmt.Sprintf("the description %s has no action word (checked against the %s list; see docs/CATALOGS.md): say what the tool does",
				quoteShort(description), checked)})
	}
}

func (l *linter) parameters(path string, tool *catalog.Tool) {
	var undocumented, enums []string
	for _, p := range tool.Params() {
		description := strings.TrimSpace(p.Description + " " + p.InterfaceDescription)
		if description == "" {
			undocumented = append(undocumented, p.Name)
		}
		var opaque []string
		for _, v := range p.Enum {
			if opaqueValue(v) && !mentions(description, v) {
				opaque = append(opaque, v)
			}
		}
		if len(opaque) > 0 {
			enums = append(enums, p.Name+": "+strings.Join(opaque, ", "))
		}
	}
	if len(undocumented) > 0 {
		l.add(Finding{Level: Info, Check: CheckParametersUndocumented, Tool: path, Items: undocumented,
			Message: fmt.Sprintf("%d parameter(s) without a description: %s", len(undocumented), strings.Join(undocumented, ", "))})
	}
	if len(enums) > 0 {
		l.add(Finding{Level: Info, Check: CheckEnumUnexplained, Tool: path, Items: enums,
			Message: "enum values that are numbers or one or two characters, which the parameter's description does not mention: " + strings.Join(enums, "; ")})
	}
}

// TextUnits measures text for description_short: each run of letters or
// digits of a space-separated script is one unit, and each two Han, kana or
// Hangul characters are one (rounded up).
func TextUnits(s string) int {
	words, cjk, inWord := 0, 0, false
	for _, r := range s {
		switch {
		case isCJK(r):
			cjk++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return words + (cjk+1)/2
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// fillerWords carry no meaning of their own for description_repeats_name.
var fillerWords = map[string]bool{ // lookup only
	"a": true, "an": true, "the": true, "this": true, "tool": true, "function": true, "api": true, "endpoint": true,
	"to": true, "for": true, "of": true, "in": true, "on": true, "with": true, "and": true, "or": true, "by": true, "from": true,
}

// RepeatsName reports whether a description says nothing but the tool's
// name or title: its letters and digits (case and punctuation aside) are
// the title's or the name's, or each of its words is a word of the name or
// title or a filler word (a, the, tool, …).
func RepeatsName(description, name, title string) bool {
	folded := foldText(description)
	if folded == "" {
		return false
	}
	if folded == foldText(title) || folded == foldText(name) || folded == strings.Join(NameWords(name), "") {
		return true
	}
	known := map[string]bool{} // lookup only
	for _, w := range NameWords(name) {
		known[w] = true
	}
	for _, w := range NameWords(title) {
		known[w] = true
	}
	words := NameWords(description)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !known[w] && !fillerWords[w] && !known[strings.TrimSuffix(w, "s")] {
			return false
		}
		for _, r := range w {
			if isCJK(r) {
				return false // a CJK run is one "word" here: compared whole above
			}
		}
	}
	return true
}

// foldText keeps letters and digits, lower-cased.
func foldText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// opaqueValue: an enum value that cannot explain itself: digits only (with
// a sign), at most two characters, or no letter at all.
func opaqueValue(v string) bool {
	v = strings.TrimSpace(v)
	if len([]rune(v)) <= 2 {
		return true
	}
	for _, r := range v {
		if unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// mentions reports whether value stands in text as a word of its own.
func mentions(text, value string) bool {
	value = strings.TrimSpace(value)
	if value == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], value)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(value)
		if !wordRuneBefore(text, start) && !wordRuneAfter(text, end) {
			return true
		}
		from = start + 1
	}
}

func wordRuneBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	// Only the last rune matters: decoding it alone keeps a text with many
	// matches linear (converting the whole prefix each time was quadratic).
	last, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(last) || unicode.IsDigit(last)
}

func wordRuneAfter(s string, i int) bool {
	for _, r := range s[i:] {
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return false
}

// quoteShort quotes s, cut to 60 characters.
func quoteShort(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > 60 {
		return fmt.Sprintf("%q…", string(r[:60]))
	}
	return fmt.Sprintf("%q", string(r))
}
