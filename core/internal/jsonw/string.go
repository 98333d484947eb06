package jsonw

import "unicode/utf8"

// AppendString appends s as a JSON string literal, quotes included.
//
// escapeHTML=true gives exactly json.Marshal's bytes; false gives exactly the
// bytes of a json.Encoder with SetEscapeHTML(false). In both modes:
//   - '"' and '\\' are backslash-escaped;
//   - \b, \f, \n, \r and \t use their short escapes, every other byte below
//     0x20 is written as \u00xx with lower-case hex;
//   - U+2028 and U+2029 are written as \u2028 and \u2029 (they are legal in
//     JSON but end a line in JavaScript);
//   - each byte that is not part of a valid UTF-8 sequence becomes \ufffd;
//   - everything else, including DEL (0x7f), '/' and all other valid
//     non-ASCII text, is copied unchanged.
//
// With escapeHTML, '<', '>' and '&' are additionally written as \u003c,
// \u003e and \u0026.
//
// Cost: one pass over s. Runs that need no escaping are found eight ASCII
// bytes at a time (or up to four three-byte UTF-8 sequences at a time, which cover
// most CJK text) and copied with a single append per run; other runes cost
// one UTF-8 decode each. It allocates nothing when dst has room for the
// result, which is at most 6*len(s)+2 bytes.
func AppendString(dst []byte, s string, escapeHTML bool) []byte {
	if n := len(s); n >= 8 {
		// Most strings are plain ASCII: checked a word at a time, the
		// last word overlapping the one before, and copied in one
		// append (a loop iteration per byte of the tail, and a second
		// append, cost more in WebAssembly than reading a word twice:
		// on wazero, AppendString's share of a StableToolBench search
		// went from 74,000 to 37,500 instructions, callgrind).
		// (This loop is written out here, in the loop below and in
		// SkipPlainASCII: as a function it does not inline, and a call
		// per run costs more than the loop in WebAssembly.)
		i := 0
		for i+8 <= n && wordSafe(load64(s, i), escapeHTML) {
			i += 8
		}
		if i+8 > n && wordSafe(load64(s, n-8), escapeHTML) {
			dst = append(dst, '"')
			dst = append(dst, s...)
			return append(dst, '"')
		}
	}
	safe := &asciiSafe[0]
	if escapeHTML {
		safe = &asciiSafe[1]
	}
	dst = append(dst, '"')
	start := 0 // s[start:i] is verbatim output not yet appended
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				for i+8 <= len(s) && wordSafe(load64(s, i), escapeHTML) {
					i += 8
				}
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // other control bytes, and <, >, & in HTML mode
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		if plainThreeByte(s, i) {
			// CJK text comes in runs: take up to four plain runes per
			// iteration (in WebAssembly a loop iteration is a trip through
			// the function's dispatch table, dearer than the checks).
			i += 3
			for i+12 <= len(s) && plainThreeByte(s, i) && plainThreeByte(s, i+3) && plainThreeByte(s, i+6) && plainThreeByte(s, i+9) {
				i += 12
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// An invalid byte. (A literal U+FFFD decodes with size 3 and
			// is kept.) Each bad byte is replaced on its own, so a
			// truncated 3-byte sequence yields two replacements and a
			// UTF-8-encoded surrogate half yields three.
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// hexDigits are the lower-case digits encoding/json uses in \u escapes.
const hexDigits = "0123456789abcdef"

// asciiSafe[m][b] reports whether ASCII byte b can be copied into a JSON
// string literal verbatim; m is 1 when HTML escaping is on and 0 when off.
// Everything from 0x20 to 0x7f is safe (DEL included: JSON does not require
// escaping it) except the quote and the backslash, plus <, > and & when
// escaping for HTML.
var asciiSafe = func() (t [2][utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[0][b] = b != '"' && b != '\\'
		t[1][b] = t[0][b] && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// The word-at-a-time ASCII scan below is what makes long plain strings
// cheap. It matters most for the WebAssembly build: measured under Node
// (GOOS=js, the same wasm code generator as wasip1) it is about three times
// faster than a byte-table loop; on amd64 it is about 30% faster.

const (
	lowBits  = 0x0101010101010101 // 0x01 in every byte
	highBits = 0x8080808080808080 // 0x80 in every byte
)

// load64 returns s[i:i+8] as a little-endian word. The compiler turns
// this pattern into a single load on amd64 and arm64. (In WebAssembly it
// stays eight loads; one unaligned load instead changed nothing measurable:
// AppendString's instructions on wazero moved by 0.3%, callgrind.)
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// SkipPlainASCII returns the first index from i on where s holds a byte a
// JSON string cannot carry verbatim, or may not: a control character, '"',
// '\\' or a byte of a multi-byte rune (len(s) if none). It reads eight
// bytes at a time.
func SkipPlainASCII(s string, i int) int {
	for i+8 <= len(s) && wordSafe(load64(s, i), false) {
		i += 8
	}
	for ; i < len(s); i++ {
		if b := s[i]; b >= utf8.RuneSelf || !asciiSafe[0][b] {
			return i
		}
	}
	return i
}

// zeroByteBits has a high bit set in some byte iff some byte of x is 0.
// (Only whether the result is zero is exact; which bytes are flagged is
// not, because of borrows.)
func zeroByteBits(x uint64) uint64 {
	return (x - lowBits) & ^x & highBits
}

// wordSafe reports whether all eight bytes packed in x are ASCII bytes
// that asciiSafe allows in the given mode.
func wordSafe(x uint64, escapeHTML bool) bool {
	// x itself flags bytes >= 0x80. When there are none, subtracting 0x20
	// from every byte sets a high bit iff some byte is below 0x20: bytes
	// in 0x20..0x7f neither borrow nor reach 0x80, so only a byte below
	// 0x20 can wrap (and whatever it borrows from is then irrelevant).
	bad := x | (x - 0x20*lowBits) |
		zeroByteBits(x^('"'*lowBits)) | zeroByteBits(x^('\\'*lowBits))
	if escapeHTML {
		// '<' (0x3c) and '>' (0x3e) differ only in bit 1, so clearing
		// that bit after the XOR catches both with one test.
		bad |= zeroByteBits((x^('<'*lowBits))&^(2*lowBits)) | zeroByteBits(x^('&'*lowBits))
	}
	return bad&highBits == 0
}

// plainThreeByte reports whether s[i:] starts with a three-byte UTF-8
// sequence that is valid and copied verbatim. It is a shortcut around
// utf8.DecodeRuneInString for CJK text, so it only accepts the easy cases:
// lead bytes E1..EC, EE and EF, where any two continuation bytes form a
// valid rune, minus U+2028/U+2029 (E2 80 A8/A9), which are escaped. Lead
// bytes E0 (overlong forms) and ED (surrogates) restrict the second byte
// and are left to the decoder.
func plainThreeByte(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	b0, b1, b2 := s[i], s[i+1], s[i+2]
	return b0 >= 0xe1 && b0 <= 0xef && b0 != 0xed &&
		b1&0xc0 == 0x80 && b2&0xc0 == 0x80 &&
		!(b0 == 0xe2 && b1 == 0x80 && b2&^1 == 0xa8)
}
