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

// TestCopyYieldsBetweenChunks: with one processor, a goroutine made ready
// before a copy runs while the copy is under way (the copy's last byte is
// not written yet), because the copy yields after each chunk. Without that
// the goroutine would run only after the copy: memmove cannot be preempted,
// and a collection that starts during a large copy waited for it (see
// copyChunked).
func TestCopyYieldsBetweenChunks(t *testing.T) {
	previous := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(previous)
	src := bytes.Repeat([]byte{1}, 8*copyChunk)
	dst := make([]byte, len(src))
	seen := make(chan byte, 1)
	go func() { seen <- dst[len(dst)-1] }()
	copyChunked(dst, src)
	require.Equal(t, byte(0), <-seen, "the other goroutine ran only after the copy")
	require.Equal(t, src, dst)
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
