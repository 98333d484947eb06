package text

import (
	"bufio"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// vocabularyFile holds the Snowball project's English vocabulary test
// (english/voc.txt beside english/output.txt, one "word<TAB>stem" line each);
// see testdata/porter2/README.md for its origin.
const vocabularyFile = "testdata/porter2/vocabulary.txt.gz"

// vocabularyLines is the number of pairs in that file; checking it catches a
// truncated or swapped file.
const vocabularyLines = 42649

type stemPair struct{ word, stem string }

func loadVocabulary(tb testing.TB) []stemPair {
	tb.Helper()
	f, err := os.Open(vocabularyFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var pairs []stemPair
	sc := bufio.NewScanner(zr)
	for line := 1; sc.Scan(); line++ {
		word, stem, ok := strings.Cut(sc.Text(), "\t")
		if !ok || strings.Contains(stem, "\t") {
			tb.Fatalf("%s:%d: want word<TAB>stem, got %q", vocabularyFile, line, sc.Text())
		}
		pairs = append(pairs, stemPair{word, stem})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if err := zr.Close(); err != nil {
		tb.Fatal(err)
	}
	return pairs
}

// stemmable reports whether StemEnglish runs the algorithm on word rather
// than returning it through one of its guards (other than the < 3 rule,
// which is Porter2's own).
func stemmable(word string) bool {
	if len(word) > maxStemInput {
		return false
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; (c < 'a' || c > 'z') && c != '\'' {
			return false
		}
	}
	return true
}

// TestStemEnglishVocabulary requires every pair of the published vocabulary
// to match. No line is skipped: every word of the file is made of a-z and
// apostrophes and is at most 64 bytes long, so none is caught by the guards
// (the test checks this too, so the statement cannot silently become false
// if the file is replaced). Words of one or two bytes (', ”, 'a, ...) are in
// the file and go through StemEnglish like the others.
func TestStemEnglishVocabulary(t *testing.T) {
	pairs := loadVocabulary(t)
	if len(pairs) != vocabularyLines {
		t.Fatalf("%s: %d pairs, want %d", vocabularyFile, len(pairs), vocabularyLines)
	}
	const show = 25
	bad := 0
	for i, p := range pairs {
		if !stemmable(p.word) {
			t.Errorf("line %d: word %q is outside the stemmer's guard; the test would not exercise it", i+1, p.word)
			continue
		}
		if got := StemEnglish(p.word); got != p.stem {
			if bad < show {
				t.Errorf("line %d: StemEnglish(%q) = %q, want %q", i+1, p.word, got, p.stem)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d vocabulary pairs differ (first %d shown)", bad, len(pairs), min(bad, show))
	}
}

// TestStemEnglishGuards checks the inputs StemEnglish must return untouched
// although the algorithm would change them, and the edges of the guards.
func TestStemEnglishGuards(t *testing.T) {
	long64 := strings.Repeat("ab", 30) + "ings" // 64 bytes: stemmed
	long65 := strings.Repeat("ab", 30) + "aings"
	tests := []struct {
		word, want string
	}{
		{"", ""},
		{"a", "a"},
		{"is", "is"},
		{"as", "as"},
		{"Running", "Running"},   // upper case is not a-z
		{"runnings", "run"},      // the same word lower-case is stemmed
		{"naïve", "naïve"},       // non-ASCII
		{"running1", "running1"}, // digit
		{"running-", "running-"},
		{"run ning", "run ning"},
		{"happinessY", "happinessY"}, // Y is the algorithm's marker, never input
		{long64, strings.Repeat("ab", 30)},
		{long65, long65},
	}
	for _, tt := range tests {
		if got := StemEnglish(tt.word); got != tt.want {
			t.Errorf("StemEnglish(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if len(long64) != maxStemInput || len(long65) != maxStemInput+1 {
		t.Fatalf("guard fixtures have lengths %d and %d", len(long64), len(long65))
	}
}

// TestStemEnglishAllocs pins the allocation promise of the doc comment: none
// when the stem is the word or a prefix of it, one otherwise.
func TestStemEnglishAllocs(t *testing.T) {
	tests := []struct {
		word, stem string
		allocs     float64
	}{
		{"run", "run", 0},     // unchanged
		{"running", "run", 0}, // prefix of the word
		{"'cats'", "cat", 0},  // substring after the leading apostrophe
		{"happiness", "happi", 0},
		{"happy", "happi", 1}, // y → i: a new string
		{"generalization", "general", 0},
		{"hoped", "hope", 0},
		{"hoping", "hope", 1},     // e added back
		{"Running", "Running", 0}, // guard
	}
	for _, tt := range tests {
		var got string
		allocs := testing.AllocsPerRun(100, func() { got = StemEnglish(tt.word) })
		if got != tt.stem {
			t.Errorf("StemEnglish(%q) = %q, want %q", tt.word, got, tt.stem)
		}
		if allocs != tt.allocs {
			t.Errorf("StemEnglish(%q): %v allocations, want %v", tt.word, allocs, tt.allocs)
		}
	}
}

// FuzzStemEnglish checks that StemEnglish never panics, never lengthens a
// word, leaves guarded inputs alone and only emits what a stem can contain.
// Porter2 is not idempotent, so stem(stem(w)) is not compared.
func FuzzStemEnglish(f *testing.F) {
	for _, s := range []string{
		"", "'", "''", "'s'", "y", "yy", "'yying", "dying", "eyed", "skies", "proceedingly",
		"generalizations", "pasted", "interestingly", "herrings", "succeeded", "ies",
		"naïve", "Running", "a'b'c's'", strings.Repeat("y", 64), strings.Repeat("'", 70),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StemEnglish(s)
		if len(got) > len(s) {
			t.Fatalf("StemEnglish(%q) = %q: longer than the input", s, got)
		}
		if !stemmable(s) && got != s {
			t.Fatalf("StemEnglish(%q) = %q: guarded input changed", s, got)
		}
		if stemmable(s) {
			for i := 0; i < len(got); i++ {
				if c := got[i]; (c < 'a' || c > 'z') && c != '\'' {
					t.Fatalf("StemEnglish(%q) = %q: byte %q outside a-z and '", s, got, c)
				}
			}
		}
		if again := StemEnglish(s); again != got {
			t.Fatalf("StemEnglish(%q) not deterministic: %q then %q", s, got, again)
		}
	})
}

// BenchmarkStemEnglish stems every 8th vocabulary word in turn; ns/op is the
// cost of one word.
func BenchmarkStemEnglish(b *testing.B) {
	pairs := loadVocabulary(b)
	var sample []string
	for i := 0; i < len(pairs); i += 8 {
		sample = append(sample, pairs[i].word)
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		StemEnglish(sample[i])
		if i++; i == len(sample) {
			i = 0
		}
	}
}
