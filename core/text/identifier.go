package text

import "strings"

// appendIdentifiers appends, lower-cased, every match of the regular
// expression
//
//	[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+
//
// in s, with the leftmost-first, non-overlapping, greedy semantics of Go's
// regexp FindAllString. A hand-written byte scanner replaces the regexp,
// which is slow and large under WebAssembly; FuzzIdentifierScanner checks the
// two agree.
//
// Why a scan over alphanumeric runs is exact: a match must start on an
// alphanumeric byte, and its first [A-Za-z0-9]+ greedily takes the whole
// run (giving some back would leave an alphanumeric where [._-] is needed).
// So a run either starts a match — it is followed by a separator and another
// alphanumeric — or no position inside it can, and the scan skips it whole.
// Once started, the match greedily absorbs each further "separator + run"
// pair and ends after a run, where the next search resumes.
func appendIdentifiers(dst []string, s string) []string {
	i := 0
	for i < len(s) {
		if !isASCIIAlnum(s[i]) {
			i++
			continue
		}
		start := i
		i = skipAlnum(s, i)
		pairs := 0
		for i+1 < len(s) && isIdentSep(s[i]) && isASCIIAlnum(s[i+1]) {
			i = skipAlnum(s, i+1)
			pairs++
		}
		if pairs > 0 {
			// The match is ASCII, so ToLower returns it without
			// allocating unless it has an upper-case letter.
			dst = append(dst, strings.ToLower(s[start:i]))
		}
	}
	return dst
}

// skipAlnum returns the index just past the run of ASCII alphanumerics
// starting at i.
func skipAlnum(s string, i int) int {
	for i < len(s) && isASCIIAlnum(s[i]) {
		i++
	}
	return i
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isIdentSep(c byte) bool {
	return c == '.' || c == '_' || c == '-'
}
