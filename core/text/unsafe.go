package text

import (
	"unicode"
	"unicode/utf8"
)

// Unsafe classifies the first offending rune of a string (see [CheckUnsafe]).
type Unsafe int

const (
	// Safe means no rune of the string is refused.
	Safe Unsafe = iota
	// ControlChar is a C0 control other than \t (0x09) and \n (0x0A), or
	// DEL (0x7F). \r is refused too: requests use \n line endings only.
	ControlChar
	// DangerousUnicode is an invisible or direction-changing code point that
	// can make text display differently from what is matched:
	// U+200B..U+200D (zero-width space/joiners), U+FEFF (BOM / zero-width
	// no-break space), U+202A..U+202E (bidi embeddings and overrides),
	// U+2028..U+2029 (line/paragraph separators) and U+2066..U+2069 (bidi
	// isolates).
	DangerousUnicode
)

// String returns the constant's name, for logs and error messages. It does
// not allocate.
func (u Unsafe) String() string {
	switch u {
	case Safe:
		return "Safe"
	case ControlChar:
		return "ControlChar"
	case DangerousUnicode:
		return "DangerousUnicode"
	}
	return "Unsafe(?)"
}

// CheckUnsafe reports the class of the first offending rune of s, or Safe.
//
// Runes are scanned in order; for each rune the control test comes before the
// dangerous test, and the first offending rune decides. Invalid UTF-8 decodes
// to U+FFFD, which is safe. Cost: one pass over s, no allocation.
func CheckUnsafe(s string) Unsafe {
	for _, r := range s {
		if isControl(r) {
			return ControlChar
		}
		if isDangerous(r) {
			return DangerousUnicode
		}
	}
	return Safe
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7F
}

func isDangerous(r rune) bool {
	switch {
	case r < 0x200B:
		// Fast exit for everything below the first listed code point,
		// which covers ASCII, Latin, Greek and Cyrillic text.
		return false
	case r <= 0x200D, r == 0xFEFF:
		return true
	case r >= 0x2028 && r <= 0x202E:
		// U+2028..U+2029 and U+202A..U+202E are adjacent.
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// IsInvisible reports whether r is a code point that displays as nothing or
// changes how its neighbours display, so that two different strings can look
// the same: every default-ignorable code point, format character (Cf),
// bidirectional control, tag character (U+E0000..U+E007F) and C1 control
// (U+0080..U+009F). Names and IDs of a catalog may not hold one, nor may a
// query under a profile with StrictQueryUnicode. The set is a table generated
// from the Unicode data (gen_invisible.go).
func IsInvisible(r rune) bool {
	if r < 0x80 {
		return false // ASCII holds none: the common case costs one compare
	}
	return unicode.Is(invisible, r)
}

// CheckUnsafeStrict is CheckUnsafe that also refuses every [IsInvisible]
// rune: C1 controls as ControlChar, the others as DangerousUnicode. It is a
// superset of CheckUnsafe: whatever CheckUnsafe refuses, it refuses with the
// same class.
//
// Every generic query passes through it, so ASCII is checked a byte at a
// time without decoding (in the module a call per rune was 2.4% of a
// StableToolBench query's instructions on wazero); the first non-ASCII byte
// hands the rest to the rune loop.
func CheckUnsafeStrict(s string) Unsafe {
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		if c := s[i]; (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F {
			return ControlChar
		}
	}
	for _, r := range s[i:] {
		if isControl(r) || (r >= 0x80 && r <= 0x9F) {
			return ControlChar
		}
		if isDangerous(r) || IsInvisible(r) {
			return DangerousUnicode
		}
	}
	return Safe
}
