package lint

import (
	"slices"
	"testing"
)

// TestActionListSizes keeps the sizes docs/CATALOGS.md gives for the
// no_action_word lists ("Action words") true, and the lists free of
// repeats; `go test ./core/lint -run TestActionListSizes -v` prints them.
func TestActionListSizes(t *testing.T) {
	chinese := slices.Clone(chineseActions)
	slices.Sort(chinese)
	if n := len(slices.Compact(chinese)); n != len(chineseActions) {
		t.Errorf("chineseActions repeats %d words", len(chineseActions)-n)
	}
	t.Logf("englishActions: %d words, chineseActions: %d words", len(englishActions), len(chineseActions))
	if len(englishActions) != 290 || len(chineseActions) != 195 {
		t.Errorf("docs/CATALOGS.md says 290 English and 195 Chinese action words; the lists hold %d and %d", len(englishActions), len(chineseActions))
	}
}
