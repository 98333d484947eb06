package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DWSV1 is the tokenizer of the reference engine, registered as "dws-v1".
//
// For a text it emits, in this order:
//
//  1. every dotted/underscored/hyphenated ASCII identifier of NFKC(text)
//     (matches of [A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+), lower-cased;
//  2. scanning NFKC(text) rune by rune, with a word break before an
//     upper-case letter that follows a lower-case letter or a digit
//     (camelCase): each maximal run of Han characters c0..cn-1 as
//     c0, c0c1, c1, c1c2, …, cn-1 (unigrams interleaved with bigrams), and
//     each maximal run of other letters/digits as one word lower-cased rune
//     by rune (unicode.ToLower). Everything else separates.
//
// Duplicates are kept. Its output must never change.
//
// Cost: one NFKC pass (no allocation if the text is already NFKC) and one
// scan. Han unigrams/bigrams and words that are already lower-case are
// substrings of the normalised text and cost nothing; each word that needs
// lower-casing and each identifier with an upper-case letter costs one
// allocation; appending to dst may grow it. Tokens may therefore share
// memory with text (or its normalised copy) and keep it alive.
var DWSV1 Tokenizer = dwsV1{}

type dwsV1 struct{}

func (dwsV1) Name() string { return "dws-v1" }

func (dwsV1) AppendTokens(dst []string, text string) []string {
	s := NFKC(text)
	dst = appendIdentifiers(dst, s)

	// At any time at most one run is open: a Han rune closes a word run and
	// a letter/digit closes a Han run. Both runs are therefore contiguous
	// byte ranges s[start:i] of the normalised text, which lets the tokens
	// be substrings of s instead of strings built from rune buffers.
	open := runeSep
	start := 0
	needLower := false        // the open word run has a rune that ToLower changes
	prevLowerOrDigit := false // rune i-1 is lower-case or a digit (camel rule)

	flush := func(end int) {
		switch open {
		case runeWord:
			dst = appendWord(dst, s[start:end], needLower)
		case runeHan:
			dst = appendHan(dst, s[start:end])
		}
		open = runeSep
		needLower = false
	}

	for i, r := range s {
		class, upper, lowerOrDigit := classify(r)
		// The camel split inserts a space here; a space only separates,
		// so closing the open run is equivalent.
		if prevLowerOrDigit && upper {
			flush(i)
		}
		prevLowerOrDigit = lowerOrDigit

		if class != open {
			flush(i)
			if class != runeSep {
				open, start = class, i
			}
		}
		if class == runeWord && !needLower && (upper || r >= utf8.RuneSelf) && unicode.ToLower(r) != r {
			needLower = true
		}
	}
	flush(len(s))
	return dst
}

// Rune classes of the dws-v1 scan.
const (
	runeSep  = iota // anything else, including U+FFFD from invalid UTF-8
	runeWord        // unicode.IsLetter || unicode.IsDigit, not Han
	runeHan         // unicode.Is(unicode.Han, r)
)

// hanMin is the smallest Han code point; anything below skips the Han table.
var hanMin = rune(unicode.Han.R16[0].Lo)

// classify returns the dws-v1 class of r together with the two camel-split
// predicates, upper = unicode.IsUpper(r) and lowerOrDigit =
// unicode.IsLower(r) || unicode.IsDigit(r). It answers ASCII without table
// lookups and skips the case tables for Han, whose runes are never upper,
// lower or digits. TestClassifyAllRunes checks every code point against
// the plain definitions.
func classify(r rune) (class int, upper, lowerOrDigit bool) {
	switch {
	case r < utf8.RuneSelf:
		upper = 'A' <= r && r <= 'Z'
		lowerOrDigit = 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
		if upper || lowerOrDigit {
			class = runeWord
		}
	case r >= 0x4E00 && r <= 0x9FFF: // CJK Unified Ideographs: all Han, no table search
		class = runeHan
	case r >= hanMin && unicode.Is(unicode.Han, r):
		class = runeHan
	default:
		upper = unicode.IsUpper(r)
		lowerOrDigit = unicode.IsLower(r) || unicode.IsDigit(r)
		// Upper- and lower-case letters are letters; only uncased ones
		// (Lo, Lm, Lt) need the letter table.
		if upper || lowerOrDigit || unicode.IsLetter(r) {
			class = runeWord
		}
	}
	return class, upper, lowerOrDigit
}

// appendWord appends w lower-cased rune by rune. When no rune changes (all
// lower-case ASCII, digits, kana, …) w itself is appended, without copying.
func appendWord(dst []string, w string, needLower bool) []string {
	if !needLower {
		return append(dst, w)
	}
	var b strings.Builder
	b.Grow(len(w))
	for _, r := range w {
		b.WriteRune(unicode.ToLower(r))
	}
	return append(dst, b.String())
}

// appendHan appends the unigrams and bigrams of the Han run h in the order
// c0, c0c1, c1, c1c2, …, cn-1, all as substrings of h.
func appendHan(dst []string, h string) []string {
	for i := 0; i < len(h); {
		_, n := utf8.DecodeRuneInString(h[i:])
		j := i + n
		dst = append(dst, h[i:j])
		if j < len(h) {
			_, m := utf8.DecodeRuneInString(h[j:])
			dst = append(dst, h[i:j+m])
		}
		i = j
	}
	return dst
}
