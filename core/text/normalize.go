package text

import "golang.org/x/text/unicode/norm"

// NFKC returns the NFKC normal form of s (golang.org/x/text/unicode/norm).
//
// Cost: when s is already NFKC — the common case for catalog text and most
// queries — it returns s itself after one quick scan, without allocating.
// Otherwise it allocates the normalised copy (the already-normal prefix is
// copied, only the rest goes through the normaliser). Invalid UTF-8 bytes are
// passed through unchanged.
func NFKC(s string) string {
	n := norm.NFKC.QuickSpanString(s)
	if n == len(s) {
		return s
	}
	// Append keeps out normalised across the seam: it re-examines the
	// boundary between the copied prefix and the appended rest.
	out := make([]byte, n, len(s)+len(s)/4)
	copy(out, s[:n])
	return string(norm.NFKC.AppendString(out, s[n:]))
}
