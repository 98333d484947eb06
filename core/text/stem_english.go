package text

// This file implements the Snowball English ("Porter2") stemmer as described
// at https://snowballstem.org/algorithms/english/stemmer.html, in the version
// of Snowball 3.1 (the special R1 prefixes past, univers, later, emerg, organ
// and inter, -ogist, the -eed and -ing exceptions handled inside step 1b, and
// no undoubling after exactly a, e or o). The vocabulary test in
// stem_english_test.go pins that version.
//
// The word is copied into a fixed stack buffer and edited only at its end, so
// R1 and R2 stay valid absolute offsets for the whole run. The letter Y in the
// buffer is the algorithm's marked consonant y; inputs never contain it
// because upper-case letters make StemEnglish return the word unchanged.

// maxStemInput is the longest word StemEnglish stems; longer ones are no
// English words (hashes, run-together identifiers) and are returned as they
// are, which also bounds the stack buffer.
const maxStemInput = 64

// StemEnglish returns the Porter2 (Snowball English) stem of word, which must already be lower-case.
// Words that are not entirely ASCII letters (a-z) plus apostrophes are returned unchanged.
//
// Words shorter than 3 bytes are returned unchanged, as Porter2 does. Words
// longer than 64 bytes are returned unchanged too: a guard that keeps the
// working buffer on the stack, not part of the algorithm.
//
// The function is pure and safe for concurrent use. It does not allocate when
// the stem is the word itself or a substring of it (the usual case: stemming
// mostly removes suffixes); the result then shares memory with word. Otherwise
// it allocates the result string once.
func StemEnglish(word string) string {
	n := len(word)
	if n < 3 || n > maxStemInput {
		return word
	}
	// Prelude: a leading apostrophe is dropped, then an initial y and every
	// y after a vowel become the consonant Y. One pass copies, checks the
	// bytes and marks. A y after a marked Y stays a vowel: Y is not a vowel.
	var buf [maxStemInput]byte
	off := 0
	if word[0] == '\'' {
		off = 1
	}
	w := buf[:n-off]
	prevVowel := false
	for i := range w {
		c := word[off+i]
		if (c < 'a' || c > 'z') && c != '\'' {
			return word
		}
		if c == 'y' && (i == 0 || prevVowel) {
			c = 'Y'
		}
		w[i] = c
		prevVowel = isStemVowel(c)
	}
	if n <= 6 { // the longest exceptional form has 6 letters
		if s, ok := englishException(word); ok {
			return s
		}
	}

	st := porter2{w: w}
	st.markRegions()

	st.step1a()
	st.step1b()
	st.step1c()
	st.step2()
	st.step3()
	st.step4()
	st.step5()

	w = st.w
	for i, c := range w {
		if c == 'Y' {
			w[i] = 'y'
		}
	}
	if len(w) <= n-off && string(w) == word[off:off+len(w)] {
		return word[off : off+len(w)]
	}
	return string(w)
}

// englishException maps the words Porter2 stems by a fixed list before any
// other rule (exception1 in the Snowball source).
func englishException(word string) (string, bool) {
	switch word {
	case "skis":
		return "ski", true
	case "skies":
		return "sky", true
	case "idly":
		return "idl", true
	case "gently":
		return "gentl", true
	case "ugly":
		return "ugli", true
	case "early":
		return "earli", true
	case "only":
		return "onli", true
	case "singly":
		return "singl", true
	case "sky", "news", "howe", "atlas", "cosmos", "bias", "andes":
		return word, true
	}
	return "", false
}

// porter2 is the working state of one StemEnglish call: the word being
// edited and the start offsets of the regions R1 and R2 (len of the original
// word when the region is empty).
type porter2 struct {
	w      []byte
	p1, p2 int
}

// stemLetters is a set of the letters a-z as a bit mask (bit 0 is a).
type stemLetters uint32

// has reports whether c is in the set; bytes outside a-z (', Y) never are.
func (m stemLetters) has(c byte) bool {
	d := c - 'a' // wraps for bytes below 'a'
	return d < 26 && m>>d&1 != 0
}

const (
	stemVowels    = stemLetters(1<<('a'-'a') | 1<<('e'-'a') | 1<<('i'-'a') | 1<<('o'-'a') | 1<<('u'-'a') | 1<<('y'-'a'))
	stemDoubles   = stemLetters(1<<('b'-'a') | 1<<('d'-'a') | 1<<('f'-'a') | 1<<('g'-'a') | 1<<('m'-'a') | 1<<('n'-'a') | 1<<('p'-'a') | 1<<('r'-'a') | 1<<('t'-'a'))
	stemLiEndings = stemLetters(1<<('c'-'a') | 1<<('d'-'a') | 1<<('e'-'a') | 1<<('g'-'a') | 1<<('h'-'a') | 1<<('k'-'a') | 1<<('m'-'a') | 1<<('n'-'a') | 1<<('r'-'a') | 1<<('t'-'a'))
)

func isStemVowel(c byte) bool { return stemVowels.has(c) }

func hasStemVowel(b []byte) bool {
	for _, c := range b {
		if isStemVowel(c) {
			return true
		}
	}
	return false
}

// afterVowelConsonant returns the offset just past the first non-vowel that
// follows a vowel at or after from, or -1 if there is none.
func afterVowelConsonant(w []byte, from int) int {
	i := from
	for i < len(w) && !isStemVowel(w[i]) {
		i++
	}
	i++
	for i < len(w) && isStemVowel(w[i]) {
		i++
	}
	if i >= len(w) {
		return -1
	}
	return i + 1
}

// r1Prefix returns the special word beginning after which R1 starts
// directly, so that e.g. general and generate, or universe and university,
// keep apart; "" if the word has none. The first letters differ, so one
// switch picks the only candidate.
func r1Prefix(w []byte) string {
	var p string
	switch w[0] {
	case 'g':
		p = "gener"
	case 'c':
		p = "commun"
	case 'a':
		p = "arsen"
	case 'p':
		p = "past"
	case 'u':
		p = "univers"
	case 'l':
		p = "later"
	case 'e':
		p = "emerg"
	case 'o':
		p = "organ"
	case 'i':
		p = "inter"
	default:
		return ""
	}
	if len(w) < len(p) {
		return ""
	}
	for i := 1; i < len(p); i++ {
		if w[i] != p[i] {
			return ""
		}
	}
	return p
}

func (s *porter2) markRegions() {
	w := s.w
	s.p1, s.p2 = len(w), len(w)
	if len(w) == 0 {
		return
	}
	p1 := len(r1Prefix(w))
	if p1 == 0 {
		if p1 = afterVowelConsonant(w, 0); p1 < 0 {
			return
		}
	}
	s.p1 = p1
	if p2 := afterVowelConsonant(w, p1); p2 >= 0 {
		s.p2 = p2
	}
}

// ends reports whether the word ends with suffix. It compares from the last
// byte, where most candidates already differ.
func (s *porter2) ends(suffix string) bool {
	d := len(s.w) - len(suffix)
	if d < 0 {
		return false
	}
	for i := len(suffix) - 1; i >= 0; i-- {
		if s.w[d+i] != suffix[i] {
			return false
		}
	}
	return true
}

// replace swaps the last k bytes for rep. No rule makes the word longer than
// the input, so the reslice stays inside the stack buffer. It is not an
// append because escape analysis would then move the buffer to the heap, and
// the byte loop avoids a runtime call for replacements of at most 4 bytes,
// which matters in WebAssembly where calls are dear.
func (s *porter2) replace(k int, rep string) {
	n := len(s.w) - k
	s.w = s.w[:n+len(rep)]
	for i := 0; i < len(rep); i++ {
		s.w[n+i] = rep[i]
	}
}

// shortSyllableAt reports whether w[:end] ends in a short syllable: a
// non-vowel, a vowel, then a non-vowel other than w, x or Y; or a whole
// two-letter vowel+non-vowel; or "past".
func (s *porter2) shortSyllableAt(end int) bool {
	w := s.w
	if end >= 3 && !isStemVowel(w[end-3]) && isStemVowel(w[end-2]) {
		switch c := w[end-1]; {
		case isStemVowel(c), c == 'w', c == 'x', c == 'Y':
		default:
			return true
		}
	}
	if end == 2 && isStemVowel(w[0]) && !isStemVowel(w[1]) {
		return true
	}
	return end >= 4 && w[end-4] == 'p' && w[end-3] == 'a' && w[end-2] == 's' && w[end-1] == 't'
}

// step1a is Porter2's step 0 (possessive apostrophes) followed by step 1a
// (plural s).
func (s *porter2) step1a() {
	if c := s.last(); c != 's' && c != '\'' && c != 'd' {
		return // no suffix of steps 0 and 1a ends otherwise
	}
	switch {
	case s.ends("'s'"):
		s.replace(3, "")
	case s.ends("'s"):
		s.replace(2, "")
	case s.ends("'"):
		s.replace(1, "")
	}
	n := len(s.w)
	switch {
	case s.ends("sses"):
		s.replace(2, "")
	case s.ends("ied"), s.ends("ies"):
		if n-3 >= 2 {
			s.replace(3, "i")
		} else {
			s.replace(3, "ie")
		}
	case s.ends("us"), s.ends("ss"):
	case s.ends("s"):
		// The vowel must come before the letter preceding the s: gas and
		// this keep it, gaps and kiwis lose it.
		if n >= 2 && hasStemVowel(s.w[:n-2]) {
			s.replace(1, "")
		}
	}
}

// step1b removes -eed, -ed and -ing and their -ly forms.
func (s *porter2) step1b() {
	if c := s.last(); c != 'y' && c != 'd' && c != 'g' {
		return // no suffix of step 1b ends otherwise
	}
	n := len(s.w)
	switch {
	case s.ends("eedly"):
		s.eed(5)
	case s.ends("ingly"):
		s.edIng(5)
	case s.ends("edly"):
		s.edIng(4)
	case s.ends("eed"):
		s.eed(3)
	case s.ends("ing"):
		pre := s.w[:n-3]
		switch string(pre) {
		case "inn", "out", "cann", "herr", "earr", "even":
			return
		}
		// dying, lying, tying, vying: a non-vowel then y, nothing else.
		if len(pre) == 2 && pre[1] == 'y' && !isStemVowel(pre[0]) {
			s.replace(4, "ie")
			return
		}
		s.edIng(3)
	case s.ends("ed"):
		s.edIng(2)
	}
}

// eed handles -eed and -eedly (k bytes): replaced by ee when in R1, except
// in proceed, exceed and succeed.
func (s *porter2) eed(k int) {
	start := len(s.w) - k
	if start < s.p1 {
		return
	}
	switch string(s.w[:start]) {
	case "proc", "exc", "succ":
		return
	}
	s.replace(k, "ee")
}

// edIng deletes a k-byte -ed/-edly/-ing/-ingly when a vowel precedes it, then
// repairs the end: at/bl/iz get an e back, a final double is undoubled unless
// the word is exactly a/e/o plus the double (add, egg, off), and a short word
// gets an e (hop → hope).
func (s *porter2) edIng(k int) {
	n := len(s.w)
	if !hasStemVowel(s.w[:n-k]) {
		return
	}
	s.w = s.w[:n-k]
	n -= k
	switch {
	case s.ends("at"), s.ends("bl"), s.ends("iz"):
		s.replace(0, "e")
	case n >= 2 && s.w[n-1] == s.w[n-2] && isDoubleLetter(s.w[n-1]):
		if n == 3 {
			switch s.w[0] {
			case 'a', 'e', 'o':
				return
			}
		}
		s.w = s.w[:n-1]
	case s.p1 == n && s.shortSyllableAt(n):
		s.replace(0, "e")
	}
}

func isDoubleLetter(c byte) bool { return stemDoubles.has(c) }

// step1c turns a final y or Y into i after a non-vowel that is not the
// first letter (cry → cri; by, say unchanged).
func (s *porter2) step1c() {
	n := len(s.w)
	if n >= 3 && (s.w[n-1] == 'y' || s.w[n-1] == 'Y') && !isStemVowel(s.w[n-2]) {
		s.w[n-1] = 'i'
	}
}

// stemRule is one "suffix → replacement" line of steps 2 to 4.
type stemRule struct {
	suffix, rep string
	cond        byte // 0: none; 'l': preceded by l; 'L': valid li-ending; 'R': in R2; 'T': preceded by s or t
}

// The rule lists are keyed by the suffix's last letter and ordered longest
// first, so the first match is the longest, as Porter2 requires; a longest
// suffix that fails its region test blocks shorter ones.
var (
	step2L = [...]stemRule{{"ational", "ate", 0}, {"tional", "tion", 0}}
	step2I = [...]stemRule{
		{"biliti", "ble", 0}, {"lessli", "less", 0},
		{"aliti", "al", 0}, {"entli", "ent", 0}, {"fulli", "ful", 0}, {"ousli", "ous", 0}, {"iviti", "ive", 0},
		{"abli", "able", 0}, {"alli", "al", 0}, {"anci", "ance", 0}, {"enci", "ence", 0},
		{"bli", "ble", 0}, {"ogi", "og", 'l'},
		{"li", "", 'L'},
	}
	step2R = [...]stemRule{{"izer", "ize", 0}, {"ator", "ate", 0}}
	step2N = [...]stemRule{{"ization", "ize", 0}, {"ation", "ate", 0}}
	step2M = [...]stemRule{{"alism", "al", 0}}
	step2S = [...]stemRule{{"fulness", "ful", 0}, {"ousness", "ous", 0}, {"iveness", "ive", 0}}
	step2T = [...]stemRule{{"ogist", "og", 0}}

	step3L = [...]stemRule{{"ational", "ate", 0}, {"tional", "tion", 0}, {"ical", "ic", 0}, {"ful", "", 0}}
	step3E = [...]stemRule{{"alize", "al", 0}, {"icate", "ic", 0}, {"ative", "", 'R'}}
	step3I = [...]stemRule{{"iciti", "ic", 0}}
	step3S = [...]stemRule{{"ness", "", 0}}

	step4L = [...]stemRule{{"al", "", 0}}
	step4E = [...]stemRule{{"ance", "", 0}, {"ence", "", 0}, {"able", "", 0}, {"ible", "", 0}, {"ate", "", 0}, {"ive", "", 0}, {"ize", "", 0}}
	step4R = [...]stemRule{{"er", "", 0}}
	step4C = [...]stemRule{{"ic", "", 0}}
	step4T = [...]stemRule{{"ement", "", 0}, {"ment", "", 0}, {"ant", "", 0}, {"ent", "", 0}}
	step4M = [...]stemRule{{"ism", "", 0}}
	step4I = [...]stemRule{{"iti", "", 0}}
	step4S = [...]stemRule{{"ous", "", 0}}
	step4N = [...]stemRule{{"ion", "", 'T'}}
)

// apply finds the longest rule whose suffix ends the word and, if the suffix
// starts at or after region, applies it when its condition holds.
func (s *porter2) apply(rules []stemRule, region int) {
	for i := range rules {
		r := &rules[i]
		if !s.ends(r.suffix) {
			continue
		}
		start := len(s.w) - len(r.suffix)
		if start < region {
			return
		}
		switch r.cond {
		case 'l':
			if start == 0 || s.w[start-1] != 'l' {
				return
			}
		case 'L':
			if start == 0 || !isValidLiEnding(s.w[start-1]) {
				return
			}
		case 'R':
			if start < s.p2 {
				return
			}
		case 'T':
			if start == 0 || (s.w[start-1] != 's' && s.w[start-1] != 't') {
				return
			}
		}
		s.replace(len(r.suffix), r.rep)
		return
	}
}

func isValidLiEnding(c byte) bool { return stemLiEndings.has(c) }

func (s *porter2) last() byte {
	if len(s.w) == 0 {
		return 0
	}
	return s.w[len(s.w)-1]
}

// step2 maps double suffixes such as -ational and -iveness in R1.
func (s *porter2) step2() {
	switch s.last() {
	case 'l':
		s.apply(step2L[:], s.p1)
	case 'i':
		s.apply(step2I[:], s.p1)
	case 'r':
		s.apply(step2R[:], s.p1)
	case 'n':
		s.apply(step2N[:], s.p1)
	case 'm':
		s.apply(step2M[:], s.p1)
	case 's':
		s.apply(step2S[:], s.p1)
	case 't':
		s.apply(step2T[:], s.p1)
	}
}

// step3 maps -ical, -ful, -ness and the like in R1 (-ative in R2).
func (s *porter2) step3() {
	switch s.last() {
	case 'l':
		s.apply(step3L[:], s.p1)
	case 'e':
		s.apply(step3E[:], s.p1)
	case 'i':
		s.apply(step3I[:], s.p1)
	case 's':
		s.apply(step3S[:], s.p1)
	}
}

// step4 deletes single suffixes in R2.
func (s *porter2) step4() {
	switch s.last() {
	case 'l':
		s.apply(step4L[:], s.p2)
	case 'e':
		s.apply(step4E[:], s.p2)
	case 'r':
		s.apply(step4R[:], s.p2)
	case 'c':
		s.apply(step4C[:], s.p2)
	case 't':
		s.apply(step4T[:], s.p2)
	case 'm':
		s.apply(step4M[:], s.p2)
	case 'i':
		s.apply(step4I[:], s.p2)
	case 's':
		s.apply(step4S[:], s.p2)
	case 'n':
		s.apply(step4N[:], s.p2)
	}
}

// step5 deletes a final e (in R2, or in R1 after no short syllable) and
// undoubles a final ll in R2.
func (s *porter2) step5() {
	n := len(s.w)
	switch s.last() {
	case 'e':
		if n-1 >= s.p2 || (n-1 >= s.p1 && !s.shortSyllableAt(n-1)) {
			s.w = s.w[:n-1]
		}
	case 'l':
		if n-1 >= s.p2 && n >= 2 && s.w[n-2] == 'l' {
			s.w = s.w[:n-1]
		}
	}
}
