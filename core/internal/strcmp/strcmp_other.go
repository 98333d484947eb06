//go:build !wasm

package strcmp

import "strings"

// Equal reports whether a == b.
func Equal(a, b string) bool { return a == b }

// Compare is strings.Compare(a, b).
func Compare(a, b string) int { return strings.Compare(a, b) }
