package snapshot

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrivateCopyIsTheBytesAtEverySplit copies bodies around the chunk and
// range boundaries with one to five processors: every copy is the input,
// in memory of its own.
func TestPrivateCopyIsTheBytesAtEverySplit(t *testing.T) {
	sizes := []int{0, 1, 31, copyChunk - 1, copyChunk, copyChunk + 1, 3*copyChunk - 5, 5*copyChunk + 7, 9 * copyChunk}
	for procs := 1; procs <= 5; procs++ {
		previous := runtime.GOMAXPROCS(procs)
		for _, n := range sizes {
			in := make([]byte, n)
			for i := range in {
				in[i] = byte(i*7 + i>>20)
			}
			out := privateCopy(in)
			require.True(t, bytes.Equal(in, out), "%d bytes on %d processors", n, procs)
			if n > 0 {
				out[0]++
				require.NotEqual(t, in[0], out[0], "the copy shares the input's memory")
			}
		}
		runtime.GOMAXPROCS(previous)
	}
}

// TestChecksumLaterAgreesWithTheChecksum: computed alongside or at once,
// the answer is the checksum's.
func TestChecksumLaterAgreesWithTheChecksum(t *testing.T) {
	body := bytes.Repeat([]byte("toolsift"), 1<<16)
	sum := xxh64(body)
	for _, procs := range []int{1, 2} {
		previous := runtime.GOMAXPROCS(procs)
		require.True(t, checksumLater(body, sum)(), "GOMAXPROCS %d", procs)
		matches := checksumLater(body, sum+1)
		require.False(t, matches(), "GOMAXPROCS %d", procs)
		require.False(t, matches(), "GOMAXPROCS %d, asked again", procs)
		runtime.GOMAXPROCS(previous)
	}
}
