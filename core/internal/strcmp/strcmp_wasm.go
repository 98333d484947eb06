package strcmp

// Equal reports whether a == b.
func Equal(a, b string) bool { return equalWords(a, b) }

// Compare is strings.Compare(a, b).
func Compare(a, b string) int { return compareWords(a, b) }
