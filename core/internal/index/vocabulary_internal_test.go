package index

import (
	"hash/fnv"
	"testing"

	"github.com/toolsift/toolsift/core/profile"
)

// TestVocabularyValidation: a vocabulary that does not match its fields, or
// whose table has no free slot (find would never stop), is refused.
func TestVocabularyValidation(t *testing.T) {
	build := func() *Index {
		var docs [][profile.NumFields][]string
		for _, words := range [][]string{{"群", "消息"}, {"消息", "chat"}, {"file", "群", "状态"}} {
			var doc [profile.NumFields][]string
			doc[profile.Field(0)] = words
			doc[profile.Field(1)] = words[:1]
			docs = append(docs, doc)
		}
		return Build(docs)
	}
	if err := build().Validate(); err != nil {
		t.Fatalf("a built index is refused: %v", err)
	}
	for name, damage := range map[string]func(ix *Index){
		"table without a free slot": func(ix *Index) {
			for i := range ix.vocab.table {
				ix.vocab.table[i] = 1
			}
		},
		"table entry out of range": func(ix *Index) { ix.vocab.table[0] = uint32(len(ix.vocab.terms) + 1) },
		"positions swapped": func(ix *Index) {
			ix.vocab.refs[0][0], ix.vocab.refs[1][0] = ix.vocab.refs[1][0], ix.vocab.refs[0][0]
		},
		"a term placed twice": func(ix *Index) { ix.vocab.refs[1][0] = ix.vocab.refs[0][0] },
		"a term missing":      func(ix *Index) { ix.vocab.refs[len(ix.vocab.refs)-1][0] = -1 },
		"position out of range": func(ix *Index) {
			ix.vocab.refs[len(ix.vocab.refs)-1][0] = int32(len(ix.Fields[0].Terms))
		},
	} {
		ix := build()
		damage(ix)
		if err := ix.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestFNV32 pins the hash that stored vocabulary tables depend on: FNV-1a,
// as hash/fnv computes it, for every length around the unrolled loop's step.
func TestFNV32(t *testing.T) {
	text := "给群里发文件并确认消息已读 chat.send"
	for n := 0; n <= len(text); n++ {
		ref := fnv.New32a()
		ref.Write([]byte(text[:n]))
		if got, want := fnv32(text[:n]), ref.Sum32(); got != want {
			t.Fatalf("fnv32(%q) = %#x, want %#x", text[:n], got, want)
		}
	}
}
