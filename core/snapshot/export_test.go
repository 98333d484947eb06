package snapshot

// HeaderSize is the size of the snapshot header, for tests.
const HeaderSize = headerSize

// Reseal rewrites the header of b for its body (length and checksum), so
// that tests can reach the body decoder with damaged content.
func Reseal(b []byte) []byte {
	seal(b)
	return b
}

// Checksum is the body checksum (XXH64), for the stage benchmarks.
var Checksum = xxh64

// SetMaxBytes lowers the snapshot size limit until the test ends.
func SetMaxBytes(t interface{ Cleanup(func()) }, n int) {
	old := maxBytes
	maxBytes = n
	t.Cleanup(func() { maxBytes = old })
}
