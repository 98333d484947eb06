package text

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// invisibleDefinition is the set the table must hold, stated from Go's
// Unicode property tables: default-ignorable code points (their derivation,
// Other_Default_Ignorable_Code_Point + Cf + Variation_Selector minus white
// space and a few Cf, is covered because Cf is taken whole and no Cf or
// other default-ignorable is white space), format characters, bidi
// controls, the tag block and the C1 controls.
func invisibleDefinitionForTest(r rune) bool {
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Bidi_Control, r) ||
		(r >= 0xE0000 && r <= 0xE007F) ||
		(r >= 0x80 && r <= 0x9F)
}

// TestInvisibleTableMatchesUnicode compares the generated table with the
// definition at every code point. A failure after a toolchain upgrade means
// its Unicode data moved: run `go run gen_invisible.go` in core/text.
func TestInvisibleTableMatchesUnicode(t *testing.T) {
	if invisibleUnicodeVersion != unicode.Version {
		t.Errorf("table from Unicode %s, toolchain has %s: regenerate with go run gen_invisible.go", invisibleUnicodeVersion, unicode.Version)
	}
	differ := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := IsInvisible(r), invisibleDefinitionForTest(r); got != want {
			if differ++; differ <= 10 {
				t.Errorf("U+%04X: table %v, definition %v", r, got, want)
			}
		}
		if IsInvisible(r) && unicode.Is(unicode.White_Space, r) && r != 0x85 {
			// U+0085 (NEL) is both a C1 control and white space.
			t.Errorf("U+%04X is white space: names trim it, queries split on it", r)
		}
	}
	if differ > 0 {
		t.Errorf("%d code points differ", differ)
	}
}

func TestInvisibleNamedCases(t *testing.T) {
	// The characters issue 17 found accepted in names and queries, and
	// characters that must stay allowed.
	for _, r := range []rune{0x200E, 0x200F, 0x061C, 0x2060, 0xE0020, 0xE0041, 0xE0001, 0xE007F, 0x0085, 0x009B, 0x00AD, 0x034F, 0xFE0F, 0x3164, 0x180E, 0x200B, 0x202E, 0x2066, 0xFEFF} {
		if !IsInvisible(r) {
			t.Errorf("U+%04X must be invisible", r)
		}
		if CheckUnsafeStrict("a"+string(r)+"b") == Safe {
			t.Errorf("CheckUnsafeStrict accepts U+%04X", r)
		}
	}
	for _, r := range []rune{'a', 'Z', ' ', '\t', '\n', '_', 0xE9, 0x4E2D, 0x3000, 0x00A0, 0x0301, 0x1F600, 0xFFFD} {
		if IsInvisible(r) {
			t.Errorf("U+%04X must not be invisible", r)
		}
	}
}

func TestCheckUnsafeStrictIsASuperset(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		s := "x" + string(r)
		loose, strict := CheckUnsafe(s), CheckUnsafeStrict(s)
		if loose != Safe && strict != loose {
			t.Fatalf("U+%04X: CheckUnsafe %v, CheckUnsafeStrict %v", r, loose, strict)
		}
		want := Safe
		switch {
		case loose != Safe:
			want = loose
		case r >= 0x80 && r <= 0x9F:
			want = ControlChar
		case IsInvisible(r):
			want = DangerousUnicode
		}
		if strict != want {
			t.Fatalf("U+%04X: CheckUnsafeStrict %v, want %v", r, strict, want)
		}
	}
}

// CheckUnsafeStrict reads ASCII a byte at a time and the rest rune by rune:
// on any bytes at all (ASCII, controls, invalid UTF-8, invisible runes, in
// any order) it answers as the rune-by-rune definition does.
func TestCheckUnsafeStrictMatchesRuneByRune(t *testing.T) {
	byRune := func(s string) Unsafe {
		for _, r := range s {
			if isControl(r) || (r >= 0x80 && r <= 0x9F) {
				return ControlChar
			}
			if isDangerous(r) || IsInvisible(r) {
				return DangerousUnicode
			}
		}
		return Safe
	}
	pieces := []string{"a", "Z", " ", "\t", "\n", "\r", "\x00", "\x7f", "\x1b", "é", "\u0085", "\u200b", "\u202e", "\ufeff", "中", "\xff", "\xe4\xb8", "\u00ad"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := CheckUnsafeStrict(s), byRune(s); got != want {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
}
