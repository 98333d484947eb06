package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/toolsift/toolsift/core/text"
)

// programName is the leading token a user may type before a CLI path
// ("dws chat message send"); identity lookups ignore it.
const programName = "dws"

// NormalizeCLIPath collapses whitespace and drops a leading program name:
// " dws  chat message " → "chat message".
func NormalizeCLIPath(path string) string {
	if isNormalCLIPath(path) {
		return path // the common case: nothing to collapse or drop
	}
	parts := strings.Fields(path)
	if len(parts) > 0 && parts[0] == programName {
		parts = parts[1:]
	}
	return strings.Join(parts, " ")
}

// isNormalCLIPath reports whether NormalizeCLIPath would return path
// unchanged: ASCII with single inner spaces, no leading or trailing space, no
// leading program name.
func isNormalCLIPath(path string) bool {
	if path == "" || path[0] == ' ' || path[len(path)-1] == ' ' || path == programName || strings.HasPrefix(path, programName+" ") {
		return path == ""
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c >= 0x80 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false // other whitespace, or non-ASCII (which may hold Unicode spaces)
		case c == ' ' && path[i+1] == ' ':
			return false
		}
	}
	return true
}

// NormalizeQueryCLIPath is the lenient form used for user queries: dots,
// slashes, spaces and tabs all separate tokens, so "dws chat.message.send" and
// "chat/message/send" both become "chat message send".
func NormalizeQueryCLIPath(path string) string {
	parts := SplitPathTokens(path)
	if len(parts) > 0 && parts[0] == programName {
		parts = parts[1:]
	}
	return strings.Join(parts, " ")
}

// SplitPathTokens splits on '.', '/', ' ' and '\t', dropping empty pieces.
func SplitPathTokens(path string) []string {
	fields := strings.FieldsFunc(strings.TrimSpace(path), func(r rune) bool {
		return r == '.' || r == '/' || r == ' ' || r == '\t'
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// IdentityIndex resolves exact tool identities to a tool position in a flat,
// canonical-sorted tool list. It is built once and never fuzzy: a name either
// belongs to exactly one tool or to none.
type IdentityIndex struct {
	// tables holds each kind of name sorted, with the tool it names
	// (identity_table.go): canonical paths, tool paths, normalized CLI
	// paths, and bare names (only after IndexBareNames).
	tables [numIdentityKinds]keyTable
	// nonASCII: some key holds a non-ASCII byte. When none does, a query
	// with a non-ASCII rune other than a space cannot match any of them
	// (the normalisations only drop separators and spaces), which answers
	// most natural-language queries without normalising them.
	nonASCII bool
	// maxAlnum: the most ASCII letters and digits in any key. Every
	// normalisation keeps a query's letters and digits (it drops spaces and
	// separators, and at most a leading program name), so a query with more
	// than maxAlnum plus the program name's cannot match: a sentence is
	// answered without splitting and joining it.
	maxAlnum int
}

// NewIdentityIndex indexes tools (canonical paths, tool paths, CLI paths,
// primary CLI paths and aliases). It refuses any name that would resolve to
// two tools, and a tool whose CLI path disagrees with its primary CLI path.
//
// It allocates nothing per tool (one scratch list serves every tool's
// paths) and notes non-ASCII keys as it adds them rather than walking the
// maps afterwards. A snapshot stores what it builds (Table), so that opening
// one does not run it again.
func NewIdentityIndex(tools []*Tool) (*IdentityIndex, error) {
	// The names are checked against maps while they are added; the index
	// keeps them as sorted tables.
	idx := &IdentityIndex{}
	canonicals, toolPaths, cliPaths := make(map[string]int, len(tools)), make(map[string]int), make(map[string]int, 2*len(tools))
	var paths []string // scratch: one tool's tool paths, then its CLI paths
	for pos, tool := range tools {
		id := &tool.Identity
		canonical := id.CanonicalPath
		if canonical == "" {
			return nil, fmt.Errorf("tool #%d has an empty canonical path", pos)
		}
		cliPath := NormalizeCLIPath(id.CLIPath)
		if cliPath != NormalizeCLIPath(id.PrimaryCLIPath) {
			return nil, fmt.Errorf("tool %s: cli_path %q differs from primary_cli_path %q", canonical, id.CLIPath, id.PrimaryCLIPath)
		}
		if _, dup := canonicals[canonical]; dup {
			return nil, fmt.Errorf("duplicate canonical path %q", canonical)
		}
		if other, clash := toolPaths[canonical]; clash {
			return nil, fmt.Errorf("canonical path %q is already the tool path of %s", canonical, tools[other].Identity.CanonicalPath)
		}
		canonicals[canonical] = pos
		idx.noteKey(canonical)

		paths = append(paths[:0], id.Path)
		if id.SourceProductID != "" && id.SourceProductID != id.ProductID {
			paths = append(paths, id.SourceProductID+"."+id.Name)
		}
		for _, path := range sortUnique(paths) {
			if path == canonical {
				continue
			}
			if other, clash := toolPaths[path]; clash && other != pos {
				return nil, fmt.Errorf("tool path %q names both %s and %s", path, tools[other].Identity.CanonicalPath, canonical)
			}
			if _, clash := canonicals[path]; clash {
				return nil, fmt.Errorf("tool path %q of %s is another tool's canonical path", path, canonical)
			}
			toolPaths[path] = pos
			idx.noteKey(path)
		}

		if len(id.Aliases) == 0 && id.CLIPath == id.PrimaryCLIPath && id.CLIPath != "" && strings.TrimSpace(id.CLIPath) == id.CLIPath {
			// The common case: one CLI path, already normalized above.
			if err := idx.addCLIPath(cliPaths, cliPath, pos, tools); err != nil {
				return nil, err
			}
			continue
		}
		paths = append(append(paths[:0], id.CLIPath, id.PrimaryCLIPath), id.Aliases...)
		for _, path := range sortUnique(paths) {
			if err := idx.addCLIPath(cliPaths, NormalizeCLIPath(path), pos, tools); err != nil {
				return nil, err
			}
		}
	}
	idx.tables[byCanonical] = newKeyTable(canonicals)
	idx.tables[byToolPath] = newKeyTable(toolPaths)
	idx.tables[byCLIPath] = newKeyTable(cliPaths)
	return idx, nil
}

// addCLIPath maps a normalized CLI path of the tool at pos.
func (x *IdentityIndex) addCLIPath(byCLIPath map[string]int, path string, pos int, tools []*Tool) error {
	if other, clash := byCLIPath[path]; clash && other != pos {
		return fmt.Errorf("CLI path %q names both %s and %s", path, tools[other].Identity.CanonicalPath, tools[pos].Identity.CanonicalPath)
	}
	byCLIPath[path] = pos
	x.noteKey(path)
	return nil
}

// noteKey records what the quick refusals of ResolveQuery need of a key
// of the index: whether it holds a non-ASCII byte, and its letters and
// digits.
//
// Every open of a snapshot notes every key (hundreds of thousands at
// 100,000 tools), so it reads a key only when it could change either: a
// key has no more letters and digits than bytes.
func (x *IdentityIndex) noteKey(key string) {
	if !x.nonASCII && !isASCII(key) {
		x.nonASCII = true
	}
	if len(key) > x.maxAlnum {
		x.maxAlnum = max(x.maxAlnum, countAlnum(key, len(key)))
	}
}

// countAlnum counts the ASCII letters and digits of s, stopping early once
// the count passes limit (the caller only asks whether it does).
func countAlnum(s string, limit int) int {
	n := 0
	for i := 0; i < len(s) && n <= limit; i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' || '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasNonASCIIText reports whether s holds a non-ASCII rune that is not a
// space (invalid bytes count: they never vanish in normalisation).
func hasNonASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return true
		}
		i += size - 1
	}
	return false
}

// IndexBareNames makes Resolve accept a tool's bare name (Identity.Name,
// "create_issue" for "github.create_issue") when exactly one tool has that
// name and the name is not already another tool's canonical, tool or CLI
// path. Generic catalogs use it: agents know tools by the name they call.
// tools must be the list the index was built from.
//
// One map does it: each name's only owner, or -1 once a second tool has it;
// a second pass over tools (never over the map) then removes what may not
// resolve. (A separate map of owners cost another 100,000 insertions when a
// snapshot of that many tools was opened; a snapshot now stores the result.)
func (x *IdentityIndex) IndexBareNames(tools []*Tool) {
	owners := make(map[string]int, len(tools))
	for pos, tool := range tools {
		name := tool.Identity.Name
		if _, seen := owners[name]; seen {
			owners[name] = -1 // ambiguous: resolves to no tool
			continue
		}
		owners[name] = pos
	}
	for pos, tool := range tools {
		name := tool.Identity.Name
		owner, kept := owners[name]
		switch {
		case !kept:
		case owner == -1 || name == "":
			delete(owners, name)
		case owner != pos:
		default:
			if other, taken := x.resolvePath(name); taken && other != pos {
				delete(owners, name)
				continue
			}
			x.noteKey(name)
		}
	}
	x.tables[byName] = newKeyTable(owners)
}

// Resolve finds a tool by exact canonical path, then tool path, then
// normalized CLI path, then (if indexed) bare name, in that order.
// Case-sensitive; no fuzzy matching.
func (x *IdentityIndex) Resolve(path string) (int, bool) {
	path = strings.TrimSpace(path)
	if pos, ok := x.resolvePath(path); ok {
		return pos, true
	}
	return x.tables[byName].find(path)
}

func (x *IdentityIndex) resolvePath(path string) (int, bool) {
	if pos, ok := x.tables[byCanonical].find(path); ok {
		return pos, true
	}
	if pos, ok := x.tables[byToolPath].find(path); ok {
		return pos, true
	}
	return x.tables[byCLIPath].find(NormalizeCLIPath(path))
}

// ResolveQuery is Resolve plus the lenient CLI-path form for user queries
// (dots and slashes as separators).
func (x *IdentityIndex) ResolveQuery(path string) (int, bool) {
	if !x.nonASCII && hasNonASCIIText(path) {
		return 0, false
	}
	if limit := x.maxAlnum + len(programName); countAlnum(path, limit) > limit {
		return 0, false
	}
	if pos, ok := x.Resolve(path); ok {
		return pos, true
	}
	return x.tables[byCLIPath].find(NormalizeQueryCLIPath(path))
}

// ResolveQueryIn is ResolveQuery over the tools that in keeps, answered as
// an index built from those tools alone would answer: a name of a tool
// outside them names nothing, and a bare name (with bareNames, the
// profile's setting; tools is the list the index was built from) resolves
// when exactly one kept tool has it and no other kept tool has it as a
// path, however many tools outside share it. Each path table holds a name
// once, so a kept tool's path is found where ResolveQuery finds it. With
// bareNames, any text the bare-name table lacks costs a walk over all the
// tools (O(tools) per scoped query whose text is no tool's exact name and
// passes the length and script checks above): the table drops a name two
// tools share or a path takes, and only the walk can tell such a name from
// one no tool has. (A list of the dropped names would end the walk early,
// but the identity table is stored in the snapshot, so adding one changes
// the snapshot format.)
func (x *IdentityIndex) ResolveQueryIn(path string, tools []*Tool, bareNames bool, in func(pos int) bool) (int, bool) {
	if !x.nonASCII && hasNonASCIIText(path) {
		return 0, false
	}
	if limit := x.maxAlnum + len(programName); countAlnum(path, limit) > limit {
		return 0, false
	}
	trimmed := strings.TrimSpace(path)
	if pos, ok := x.resolvePathIn(trimmed, in); ok {
		return pos, true
	}
	if bareNames {
		if pos, ok := x.bareNameIn(trimmed, tools, in); ok {
			return pos, true
		}
	}
	if pos, ok := x.tables[byCLIPath].find(NormalizeQueryCLIPath(path)); ok && in(pos) {
		return pos, true
	}
	return 0, false
}

// resolvePathIn is resolvePath over the tools that in keeps.
func (x *IdentityIndex) resolvePathIn(path string, in func(int) bool) (int, bool) {
	if pos, ok := x.tables[byCanonical].find(path); ok && in(pos) {
		return pos, true
	}
	if pos, ok := x.tables[byToolPath].find(path); ok && in(pos) {
		return pos, true
	}
	if pos, ok := x.tables[byCLIPath].find(NormalizeCLIPath(path)); ok && in(pos) {
		return pos, true
	}
	return 0, false
}

// bareNameIn applies IndexBareNames' rule to the kept tools alone.
func (x *IdentityIndex) bareNameIn(name string, tools []*Tool, in func(int) bool) (int, bool) {
	if name == "" {
		return 0, false
	}
	if pos, ok := x.tables[byName].find(name); ok {
		// The catalog's only tool of that name: no kept tool has it when
		// it is outside.
		return pos, in(pos)
	}
	owner := -1
	for pos, tool := range tools {
		if tool.Identity.Name != name || !in(pos) {
			continue
		}
		if owner >= 0 {
			return 0, false // two kept tools share it
		}
		owner = pos
	}
	if owner < 0 {
		return 0, false
	}
	if other, taken := x.resolvePathIn(name, in); taken && other != owner {
		return 0, false
	}
	return owner, true
}

// SurfaceHash hashes command identity only: one row per tool of product,
// canonical path, source product (when it differs), primary CLI path, the
// aliases that differ from it, and visibility; rows sorted, joined by "\n",
// SHA-256, "sha256:"-prefixed hex.
func SurfaceHash(tools []*Tool) string {
	rows := make([]string, 0, len(tools))
	for _, tool := range tools {
		id := &tool.Identity
		canonical := strings.TrimSpace(id.CanonicalPath)
		productID, _, _ := strings.Cut(canonical, ".")
		source := strings.TrimSpace(id.SourceProductID)
		if source == productID {
			source = ""
		}
		primary := NormalizeCLIPath(id.PrimaryCLIPath)
		aliases := make([]string, 0, len(id.Aliases))
		for _, alias := range id.Aliases {
			if alias = NormalizeCLIPath(alias); alias != "" && alias != primary {
				aliases = append(aliases, alias)
			}
		}
		visibility := id.Visibility
		if visibility == "" {
			visibility = "public"
		}
		rows = append(rows, strings.Join([]string{
			productID, canonical, source, primary, strings.Join(SortedUnique(aliases), "\x00"), visibility,
		}, "\x00"))
	}
	sort.Strings(rows)
	sum := sha256.Sum256([]byte(strings.Join(rows, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sortUnique is SortedUnique in place: values is reordered and the result
// is a prefix of it (empty rather than nil when nothing is left).
func sortUnique(values []string) []string {
	kept := values[:0]
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			kept = append(kept, v)
		}
	}
	if len(kept) > 1 {
		sort.Strings(kept)
	}
	unique := kept[:0]
	for i, v := range kept {
		if i == 0 || v != kept[i-1] {
			unique = append(unique, v)
		}
	}
	return unique
}

// SortedUnique trims, drops empties and duplicates, and sorts; nil when empty.
// (Sorting first makes duplicates adjacent: no set is allocated, which
// matters when the identity index calls it for every tool.)
func SortedUnique(values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	unique := out[:0]
	for i, v := range out {
		if i == 0 || v != out[i-1] {
			unique = append(unique, v)
		}
	}
	if len(unique) == 0 {
		return nil
	}
	return unique
}

// StableUnique trims, drops empties and duplicates, keeping first-seen order.
func StableUnique(values []string) []string {
	if values == nil {
		return nil
	}
	seen := make(map[string]struct{}, len(values))
	out := make([]string, 0, len(values))
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if _, dup := seen[v]; dup {
			continue
		}
		seen[v] = struct{}{}
		out = append(out, v)
	}
	return out
}

// LookalikeKey is what a name looks like to a reader: its invisible
// characters (text.IsInvisible) removed, then NFKC, then simple case folding
// (each rune replaced by the smallest rune of its unicode.SimpleFold orbit,
// so "K", "k" and the Kelvin sign agree). Two names with the same key
// display alike ("Read_File" and "read_file", "ｒｅａｄ" and "read",
// "read\u200efile" and "readfile"), so an importer refuses the second of
// them: an agent told one of them could call the other.
func LookalikeKey(name string) string {
	visible := strings.Map(func(r rune) rune {
		if text.IsInvisible(r) {
			return -1
		}
		return r
	}, name)
	return strings.Map(foldRune, norm.NFKC.String(visible))
}

// foldRune returns the smallest rune that case-folds to the same as r.
func foldRune(r rune) rune {
	smallest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < smallest {
			smallest = f
		}
	}
	return smallest
}
