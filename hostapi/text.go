package hostapi

import (
	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/text"
)

// The catalog's rules for text that names things, for hosts that name
// things the catalog will hold (the gateway's server names become product
// IDs) or show its text to people: a host that applied rules of its own
// could accept a name the import then refuses, or let two names through
// that the catalog holds to be one.

// UnsafeName reports whether name holds a character a catalog refuses in a
// name or an ID: a control character (tab and newline included), or one
// that is invisible or changes how its neighbours display (IsInvisible, the
// zero-width characters, bidi embeddings, overrides and isolates, line and
// paragraph separators). Such a name could look like another, or hide text.
// The import's own rule (native.UnsafeName). Cost: one pass over name, no
// allocation.
func UnsafeName(name string) bool { return native.UnsafeName(name) }

// IsInvisible reports whether r displays as nothing or changes how its
// neighbours display: a default-ignorable code point, a format character,
// a bidi control, a tag character or a C1 control (the set generated from
// the Unicode data that the catalog's name checks and LookalikeKey use).
func IsInvisible(r rune) bool { return text.IsInvisible(r) }

// LookalikeKey is what a name looks like to a reader: its invisible
// characters removed, then NFKC, then simple case folding. Two names with
// the same key display alike ("Read_File", "read_file", "ｒｅａｄ_file"), and
// a catalog import refuses the second of two tools whose canonical paths
// share a key.
func LookalikeKey(name string) string { return catalog.LookalikeKey(name) }
