package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// GenericV2 is the tokenizer of the generic-v2 ranking profile, registered
// as "generic-v2". It is built for catalogs written by many hands: English
// (or Chinese) prose, and identifiers in every naming style.
//
// For a text it emits, scanning NFKC(text) rune by rune:
//
//  1. each maximal run of letters and digits that is not Han or kana,
//     split at case changes (camelCase: a break before an upper-case letter
//     that follows a lower-case one or a digit; an acronym keeps its last
//     capital for the next word, "HTTPServer" → "http", "server"),
//     lower-cased; English stop words are dropped, and a word of ASCII
//     letters is replaced by its Porter2 stem (StemEnglish);
//  2. each maximal run of Han or kana characters c0..cn-1 as c0, c0c1, c1,
//     c1c2, …, cn-1 (unigrams interleaved with bigrams), as dws-v1 does
//     for Han: neither script separates words.
//
// After each word but the first of a stretch of words (stop words are not
// counted, Han runs end a stretch), the tokenizer also emits the word pair
// "previous word" + PairSeparator + "word": a term for two words that stand
// together, which BM25F weighs at the profile's PairWeight. Pairs tell
// "stock price" from a tool that says "stock" in one place and "price" in
// another.
//
// Everything else — white space, punctuation, "_", ".", "-" and "/" —
// separates, so snake_case, dotted and kebab-case names split into their
// words. Duplicates are kept. Its output must never change.
//
// Why these rules: on the six public tool-retrieval sets together (see
// docs/QUALITY.md) splitting names into words, stemming and dropping stop
// words each raised nDCG@10 over the dws-v1 tokenizer, which keeps whole
// identifiers and does neither.
var GenericV2 Tokenizer = genericV2{}

type genericV2 struct {
	// memo, when not nil, remembers each word's token (see Memoized). A
	// pointer keeps the type comparable, as tokenizers are compared.
	memo *wordMemo
	// hanStops drops the single-character tokens of Chinese function
	// words (GenericV3).
	hanStops bool
}

// GenericV3 is the tokenizer of the generic-v3 ranking profile, registered
// as "generic-v3": GenericV2's tokens, except that a Han character that is
// a Chinese function word (HanStopWords: 我, 请, 的, 了, 吗, …) is not
// emitted as a unigram. Its bigrams stay ("我的" is still a term, and so is
// "的文"), so a phrase keeps its place; only the lone character, which
// nearly every Chinese query and description holds, no longer matches.
// Why: on ACEBench zh and the DWS catalog's use_when sentences the
// unigrams of these characters matched tools on words that say nothing
// about them (docs/QUALITY.md, generic-v3). Its output must never change.
var GenericV3 Tokenizer = genericV2{hanStops: true}

type wordMemo struct {
	tokens map[string]string
	pairs  stringArena
	// limit, when not 0, is the most words tokens holds; such a memo also
	// copies the tokens it keeps (see MemoizedUpTo).
	limit int
}

// stringArena hands out strings carved from large append-only blocks: a
// build forms a word pair for nearly every pair of adjacent words (132,000
// for 3,608 MCP tools), and one allocation per pair was a fifth of the
// build's allocations. A block is never written below its length again, so
// the strings that view it never change; any one of them keeps its whole
// block alive, so an engine built from text keeps at most the text of all
// its word pairs.
type stringArena struct{ block []byte }

// arenaBlock is the size of an arena block: large enough that blocks are
// rare, small enough that the last one's unused tail does not matter.
const arenaBlock = 64 << 10

// join returns x + sep + y as a string in the arena.
func (a *stringArena) join(x, sep, y string) string {
	n := len(x) + len(sep) + len(y)
	if n == 0 {
		return ""
	}
	if cap(a.block)-len(a.block) < n {
		a.block = make([]byte, 0, max(arenaBlock, n))
	}
	start := len(a.block)
	a.block = append(append(append(a.block, x...), sep...), y...)
	return unsafe.String(&a.block[start], n)
}

// PairSeparator joins the two words of a word pair. Words never contain it
// (a space separates words), so a term is a pair exactly when it does.
const PairSeparator = " "

// IsWordPair reports whether term is a word pair of the generic-v2 tokenizer.
func IsWordPair(term string) bool { return strings.Contains(term, PairSeparator) }

func (t genericV2) Name() string {
	if t.hanStops {
		return "generic-v3"
	}
	return "generic-v2"
}

func (t genericV2) AppendTokens(dst []string, text string) []string {
	s := NFKC(text)
	out := genericOutput{t: t, dst: dst}
	open := runeSep
	start := 0
	prev := caseNone // case of rune i-1 within the open word run
	for i := 0; i < len(s); {
		// ASCII from a table, other runes decoded and classified.
		r, size := rune(s[i]), 1
		var class, c int
		if r < utf8.RuneSelf {
			class, c = int(asciiGeneric[r]>>2), int(asciiGeneric[r]&3)
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			class, c = genericClassify(r)
		}
		if (r == '\'' || r == '’') && open == runeWord && i+size < len(s) && isASCIILower(s[i+size]) {
			// An apostrophe between letters stays in the word ("today's",
			// "don't"): the stemmer knows English possessives, and split
			// they would leave a lone "s" or "t" behind.
			class, c = runeWord, prev
		}
		if class == runeWord && open == runeWord {
			switch {
			case c == caseUpper && (prev == caseLower || prev == caseDigit):
				out.flush(open, s[start:i]) // camelCase, v2Beta
				start = i
			case c == caseLower && prev == caseUpper && i > start+1 && upperBefore(s, start, i) && lowerFollows(s, i):
				// "HTTPServer": the capital before this lower-case
				// letter starts the next word. Not where the lower-case
				// letter stands alone: "PDFs" and "IDs" are plurals,
				// "IPv6" one word.
				_, n := utf8.DecodeLastRuneInString(s[:i])
				out.flush(open, s[start:i-n])
				start = i - n
			}
		}
		if class != open {
			out.flush(open, s[start:i])
			open, start = class, i
		}
		prev = c
		i += size
	}
	out.flush(open, s[start:])
	return out.dst
}

// genericOutput collects AppendTokens' tokens. Its state is kept out of the
// scanning loop's locals: a closure over them (the way before) kept every
// one in memory, which in WebAssembly made each rune's step a few loads and
// stores more. With that and the ASCII table, tokenizing a StableToolBench
// query in the module on wazero took 113,000 instructions instead of
// 162,000 (callgrind).
type genericOutput struct {
	t    genericV2
	dst  []string
	last string // the word emitted last, while no Han run followed it
}

// flush emits the run text of the given class: a word's token and its pair
// with the word before, or a Han run's tokens.
func (o *genericOutput) flush(class int, text string) {
	switch class {
	case runeWord:
		n := len(o.dst)
		o.dst = o.t.appendWord(o.dst, text)
		if len(o.dst) > n {
			word := o.dst[n]
			if o.last != "" {
				o.dst = append(o.dst, o.t.pair(o.last, word))
			}
			o.last = word
		}
	case runeHan:
		if o.t.hanStops {
			o.dst = appendHanWithoutStops(o.dst, text)
		} else {
			o.dst = appendHan(o.dst, text)
		}
		o.last = ""
	}
}

// asciiGeneric[b] is genericClassify(b) for an ASCII byte, class<<2 | case.
var asciiGeneric = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		class, c := genericClassify(rune(b))
		t[b] = uint8(class<<2 | c)
	}
	return t
}()

func isASCIILower(c byte) bool { return 'a' <= c && c <= 'z' }

// lowerFollows reports whether the letter at s[i] is followed by another
// lower-case letter.
func lowerFollows(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	next, _ := utf8.DecodeRuneInString(s[i+n:])
	return unicode.IsLower(next)
}

// upperBefore reports whether the word s[start:i] ends with at least two
// upper-case letters, so that its last one begins a new word.
func upperBefore(s string, start, i int) bool {
	last, n := utf8.DecodeLastRuneInString(s[:i])
	if !unicode.IsUpper(last) || i-n <= start {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i-n])
	return unicode.IsUpper(before)
}

// Letter cases for the camel split.
const (
	caseNone = iota
	caseUpper
	caseLower
	caseDigit
)

// genericClassify returns the scan class of r (kana counts as Han: both are
// written without spaces) and its case.
func genericClassify(r rune) (class, c int) {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z':
			return runeWord, caseLower
		case 'A' <= r && r <= 'Z':
			return runeWord, caseUpper
		case '0' <= r && r <= '9':
			return runeWord, caseDigit
		}
		return runeSep, caseNone
	case r >= 0x4E00 && r <= 0x9FFF:
		return runeHan, caseNone
	case r >= 0x3040 && r <= 0x30FF && r != 0x30A0 && r != 0x30FB, // Hiragana, Katakana (not its two punctuation marks)
		r >= 0x31F0 && r <= 0x31FF: // Katakana Phonetic Extensions
		return runeHan, caseNone
	case r >= hanMin && unicode.Is(unicode.Han, r):
		return runeHan, caseNone
	case unicode.IsUpper(r):
		return runeWord, caseUpper
	case unicode.IsLower(r):
		return runeWord, caseLower
	case unicode.IsDigit(r):
		return runeWord, caseDigit
	case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		// Uncased letters, and the combining marks that Indic and other
		// scripts write inside words.
		return runeWord, caseNone
	}
	return runeSep, caseNone
}

// pair is the term for the word pair (first, second), from the memo's arena
// when there is one.
func (t genericV2) pair(first, second string) string {
	if t.memo == nil {
		return first + PairSeparator + second
	}
	return t.memo.pairs.join(first, PairSeparator, second)
}

// appendWord is appendGenericWord through the memo of a Memoized tokenizer:
// the token depends on the word's text alone, so a remembered one is the
// one the functions would compute. "" stands for a stop word.
func (t genericV2) appendWord(dst []string, w string) []string {
	if t.memo == nil {
		return appendGenericWord(dst, w)
	}
	token, ok := t.memo.tokens[w]
	if !ok {
		n := len(dst)
		if dst = appendGenericWord(dst, w); len(dst) > n {
			token = dst[n]
			dst = dst[:n]
		}
		// A copy: the key must not keep the whole text it was cut from.
		switch {
		case t.memo.limit == 0:
			t.memo.tokens[strings.Clone(w)] = token
		case len(t.memo.tokens) < t.memo.limit:
			t.memo.tokens[strings.Clone(w)] = strings.Clone(token)
		}
	}
	if token == "" {
		return dst
	}
	return append(dst, token)
}

// appendGenericWord appends w lower-cased and stemmed, unless it is a stop
// word.
func appendGenericWord(dst []string, w string) []string {
	w = lowerWord(acronymSingular(w))
	if strings.Contains(w, "’") {
		w = strings.ReplaceAll(w, "’", "'")
	}
	if isStopWord(w) {
		return dst
	}
	return append(dst, StemEnglish(w))
}

// acronymSingular drops the "s" of a plural acronym ("PDFs", "IDs",
// "URLs"): two or more capitals and a final lower-case s. The stemmer
// cannot, as it leaves words without a vowel alone.
func acronymSingular(w string) string {
	n := len(w)
	if n < 3 || w[n-1] != 's' {
		return w
	}
	for i := 0; i < n-1; i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return w
		}
	}
	return w[:n-1]
}

// lowerWord lower-cases w rune by rune, returning w itself when nothing
// changes.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.Map(unicode.ToLower, w)
		}
	}
	return w
}
