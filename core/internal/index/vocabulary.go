package index

import (
	"fmt"
	"sort"

	"github.com/toolsift/toolsift/core/profile"
)

// vocabulary finds a query term in every field at once: the sorted distinct
// terms of all fields, each with its position in each field's Terms, and an
// open-addressing hash table over them. A snapshot stores all three
// prebuilt, so opening one builds no map.
type vocabulary struct {
	terms []string   // sorted, distinct
	refs  []termRefs // per term: its position in each field's Terms, or -1
	table []uint32   // power-of-two slots: term index + 1, or 0 for empty
}

// termRefs is a term's position in each field's Terms (-1 where absent).
type termRefs [profile.NumFields]int32

var missingTerm = func() (r termRefs) {
	for f := range r {
		r[f] = -1
	}
	return r
}()

func buildVocabulary(fields *[profile.NumFields]Field) vocabulary {
	var all []string
	for f := range fields {
		all = append(all, fields[f].Terms...)
	}
	sort.Strings(all)
	v := vocabulary{terms: all[:0]}
	for i, term := range all {
		if i == 0 || term != all[i-1] {
			v.terms = append(v.terms, term)
		}
	}
	v.refs = make([]termRefs, len(v.terms))
	for i := range v.refs {
		v.refs[i] = missingTerm
	}
	for f := range fields {
		// Both lists are sorted: walk them together.
		i := 0
		for t, term := range fields[f].Terms {
			for v.terms[i] != term {
				i++
			}
			v.refs[i][f] = int32(t)
		}
	}
	size := 1
	for size < 2*len(v.terms)+1 {
		size <<= 1
	}
	v.table = make([]uint32, size)
	mask := uint32(size - 1)
	for i, term := range v.terms {
		h := fnv32(term) & mask
		for v.table[h] != 0 {
			h = (h + 1) & mask
		}
		v.table[h] = uint32(i + 1)
	}
	return v
}

// index returns the term's index in the vocabulary, and false when no
// field has it.
func (v *vocabulary) index(term string) (uint32, bool) {
	mask := uint32(len(v.table) - 1)
	for h := fnv32(term) & mask; ; h = (h + 1) & mask {
		slot := v.table[h]
		if slot == 0 {
			return 0, false
		}
		if v.terms[slot-1] == term {
			return slot - 1, true
		}
	}
}

// fnv32 is FNV-1a: simple, fast in WebAssembly, and fixed forever (a stored
// table depends on it).
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// validate checks what find and scoring rely on: one position row per term,
// and in each field the positions 0, 1, 2, … in the order of the vocabulary
// (both lists are sorted, so a vocabulary built from the fields places every
// field term exactly once, in order); and a table of in-range entries with
// at least one free slot, without which find would never stop on an unknown
// term. (That a position names the very same string is left to the
// snapshot's checksum: a wrong one only misranks, and comparing every term
// would double the cost of opening.)
func (v *vocabulary) validate(fields *[profile.NumFields]Field) error {
	if len(v.refs) != len(v.terms) {
		return fmt.Errorf("vocabulary: %d terms but %d position rows", len(v.terms), len(v.refs))
	}
	if len(v.table) == 0 || len(v.table)&(len(v.table)-1) != 0 || len(v.table) <= len(v.terms) {
		return fmt.Errorf("vocabulary: a table of %d slots cannot hold %d terms", len(v.table), len(v.terms))
	}
	var next termRefs // per field: the position the next placed term must have
	for i := range v.refs {
		for f, pos := range v.refs[i] {
			if pos == -1 {
				continue
			}
			if pos != next[f] {
				return fmt.Errorf("vocabulary: term %d has a wrong position in field %s", i, profile.Field(f))
			}
			next[f]++
		}
	}
	for f := range fields {
		if int(next[f]) != len(fields[f].Terms) {
			return fmt.Errorf("vocabulary: a term of field %s is missing", profile.Field(f))
		}
	}
	terms, free := uint32(len(v.terms)), false
	for _, slot := range v.table {
		if slot > terms {
			return fmt.Errorf("vocabulary: hash table entry out of range")
		}
		free = free || slot == 0
	}
	if !free {
		return fmt.Errorf("vocabulary: hash table has no free slot")
	}
	return nil
}
