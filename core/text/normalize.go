package text

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NFKC returns the NFKC normal form of s (golang.org/x/text/unicode/norm).
//
// Cost: when s is already NFKC — the common case for catalog text and most
// queries — it returns s itself after one quick scan, without allocating.
// Otherwise it allocates the normalised copy (the already-normal prefix is
// copied, only the rest goes through the normaliser). Invalid UTF-8 bytes are
// passed through unchanged.
func NFKC(s string) string {
	if out, ok := simpleNFKC(s); ok {
		return out
	}
	n := norm.NFKC.QuickSpanString(s)
	if n == len(s) {
		return s
	}
	// Append keeps out normalised across the seam: it re-examines the
	// boundary between the copied prefix and the appended rest.
	out := make([]byte, n, len(s)+len(s)/4)
	copy(out, s[:n])
	return string(norm.NFKC.AppendString(out, s[n:]))
}

// simpleNFKC normalises s without the x/text tables when every rune of s is
// one whose NFKC form is known here (see simpleForm): ASCII, CJK
// ideographs, common CJK punctuation and fullwidth ASCII, which is what
// Chinese and English queries are made of. Each such rune, and its form,
// starts a normalisation segment (nothing on its left composes with it), and
// the form is normal, so a string of them normalises to the forms of its
// runes, one after the other. ok is false for any other rune, and then the caller
// normalises the general way. The table lookups of x/text cost about 5% of a
// query in WebAssembly; this loop costs a fraction of that.
// TestSimpleNFKCRunes checks every rune it accepts against x/text.
func simpleNFKC(s string) (out string, ok bool) {
	mapped := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		// Lead bytes E4–E9 with two continuation bytes are U+4000–U+9FFF,
		// CJK ideographs: kept, and decoded without a call.
		if c >= 0xE4 && c <= 0xE9 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		form, kept := simpleForm(r)
		if form == 0 {
			return "", false
		}
		mapped = mapped || !kept
		i += size
	}
	if !mapped {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
			continue
		}
		form, _ := simpleForm(r)
		b = utf8.AppendRune(b, form)
	}
	return string(b), true
}

// simpleForm returns the NFKC form of a non-ASCII rune that normalises on
// its own into one rune, and whether that is the rune itself; form 0 means
// the rune is not one of these.
func simpleForm(r rune) (form rune, kept bool) {
	switch {
	case r >= 0x4000 && r <= 0x9FFF: // CJK ideographs (and the Yijing hexagrams)
		return r, true
	case r >= 0xFF01 && r <= 0xFF5E: // fullwidth ASCII: ，；（）：
		return r - 0xFEE0, false
	case r == 0x3000: // ideographic space
		return ' ', false
	case r == 0x3001, r == 0x3002, // 、。
		r >= 0x300A && r <= 0x3011,                         // 《》「」『』【】
		r == 0x2014,                                        // —
		r == 0x2018, r == 0x2019, r == 0x201C, r == 0x201D: // ‘’“”
		return r, true
	}
	return 0, false
}
