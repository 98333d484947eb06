package catalog

import (
	"testing"
	"unicode"

	"github.com/toolsift/toolsift/core/text"
)

func TestLookalikeKey(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"read_file", "Read_File", true},
		{"read_file", "READ_FILE", true},
		{"read_file", "ｒｅａｄ_file", true},           // fullwidth: NFKC
		{"kill", "\u212aill", true},                // Kelvin sign
		{"read_file", "read\u200e_file", true},     // left-to-right mark
		{"read_file", "read_file\U000E0041", true}, // tag character
		{"read_file", "read\u00ad_file", true},     // soft hyphen
		{"straße", "STRASSE", false},               // simple folding keeps ß apart from ss
		{"σ", "ς", true},                           // final sigma folds with sigma
		{"read_file", "read-file", false},          // different punctuation is a different name
		{"read_file", "reаd_file", false},          // Cyrillic а: a confusable, not a fold
		{"tools.read_file", "tools.read_file", true},
	} {
		if got := LookalikeKey(c.a) == LookalikeKey(c.b); got != c.same {
			t.Errorf("LookalikeKey(%q) == LookalikeKey(%q): %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestLookalikeKeyOverTheBMP: a key holds no invisible rune, and a rune
// and the next rune of its case orbit have one key, at every code point of
// the Basic Multilingual Plane.
func TestLookalikeKeyOverTheBMP(t *testing.T) {
	for r := rune(0); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		key := LookalikeKey(string(r))
		for _, k := range key {
			if text.IsInvisible(k) {
				t.Fatalf("U+%04X: key %q holds invisible U+%04X", r, key, k)
			}
		}
		if other := unicode.SimpleFold(r); LookalikeKey(string(other)) != key {
			t.Errorf("U+%04X and U+%04X (one case orbit) have keys %q and %q", r, other, key, LookalikeKey(string(other)))
		}
	}
}
