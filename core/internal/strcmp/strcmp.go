// Package strcmp compares strings eight bytes at a time in the module.
//
// Go's wasm port compares strings one byte per loop iteration
// (internal/bytealg's memeqbody and the generic cmpstring), and opening a
// snapshot compares every tool's canonical path, product and interface
// strings, most of them equal or sharing a long prefix. Using Equal and
// Compare for those (catalog.Interface.AgentExecutable, the identity table's
// checks, the engine's ordering check) took Python's open of 100,000 tools
// from 228 to 222 ms and from 260 to 252 ms (medians of 16 and 20 opens,
// alternated, docs/BENCHMARKS.md "ninth step"). Natively Equal and Compare
// are the language's own, which use vector instructions.
package strcmp

import "unsafe"

// equalWords reports whether a and b hold the same bytes, comparing eight
// bytes per step. The loads may be unaligned: WebAssembly allows that.
func equalWords(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b))
	if pa == pb {
		return true
	}
	i := 0
	for ; i+8 <= n; i += 8 {
		if *(*uint64)(unsafe.Add(pa, i)) != *(*uint64)(unsafe.Add(pb, i)) {
			return false
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compareWords is strings.Compare: it skips the common prefix eight bytes
// per step, then orders by the first byte that differs, else by length.
func compareWords(a, b string) int {
	n := min(len(a), len(b))
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b))
	i := 0
	if pa != pb {
		for ; i+8 <= n; i += 8 {
			if *(*uint64)(unsafe.Add(pa, i)) != *(*uint64)(unsafe.Add(pb, i)) {
				break
			}
		}
		for ; i < n; i++ {
			if a[i] != b[i] {
				if a[i] < b[i] {
					return -1
				}
				return 1
			}
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
