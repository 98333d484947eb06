package text

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The oracle is a deliberately literal transcription of the dws-v1
// specification: regexp for the identifier pass, a materialised camel-split
// string and rune buffers. It shares no code with the production tokenizer
// (not even NFKC), so the two can only agree by both being right.

var oracleIdentRE = regexp.MustCompile(`[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+`)

func oracleDWSV1(text string) []string {
	s := norm.NFKC.String(text)
	var out []string

	for _, m := range oracleIdentRE.FindAllString(s, -1) {
		out = append(out, strings.ToLower(m))
	}

	rs := []rune(s)
	var split []rune
	for i, r := range rs {
		if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])) && unicode.IsUpper(r) {
			split = append(split, ' ')
		}
		split = append(split, r)
	}

	var word, han []rune
	flushWord := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	flushHan := func() {
		for i := range han {
			out = append(out, string(han[i]))
			if i+1 < len(han) {
				out = append(out, string(han[i:i+2]))
			}
		}
		han = han[:0]
	}
	for _, r := range split {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			han = append(han, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushHan()
			word = append(word, unicode.ToLower(r))
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return out
}

// oracleCheckUnsafe is the naive per-rune form of CheckUnsafe.
func oracleCheckUnsafe(s string) Unsafe {
	dangerous := map[rune]bool{
		0x200B: true, 0x200C: true, 0x200D: true, 0xFEFF: true,
		0x202A: true, 0x202B: true, 0x202C: true, 0x202D: true, 0x202E: true,
		0x2028: true, 0x2029: true,
		0x2066: true, 0x2067: true, 0x2068: true, 0x2069: true,
	}
	for _, r := range s {
		if (r <= 0x1F && r != 0x09 && r != 0x0A) || r == 0x7F {
			return ControlChar
		}
		if dangerous[r] {
			return DangerousUnicode
		}
	}
	return Safe
}
