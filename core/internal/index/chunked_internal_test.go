package index

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunkedChecksSeeAcrossChunks puts the largest value, and a single
// decrease, at every interesting position of tables around the chunk
// size: first, last, either side of each chunk boundary.
func TestChunkedChecksSeeAcrossChunks(t *testing.T) {
	for _, n := range []int{1, 2, checkChunk - 1, checkChunk, checkChunk + 1, 3*checkChunk + 5} {
		positions := []int{0, n - 1}
		for b := checkChunk; b < n; b += checkChunk {
			positions = append(positions, b-1, b)
		}
		for _, at := range positions {
			rising := make([]uint32, n) // 10, 11, 12, … : no decrease, largest last
			for i := range rising {
				rising[i] = uint32(10 + i)
			}
			require.False(t, decreases(rising), "n %d", n)
			require.Equal(t, uint32(9+n), maxUint32(rising), "n %d", n)

			if at > 0 {
				down := append([]uint32(nil), rising...)
				down[at] = down[at-1] - 1
				require.True(t, decreases(down), "n %d, decrease at %d", n, at)
			}

			peak := make([]uint32, n)
			peak[at] = 7
			require.Equal(t, uint32(7), maxUint32(peak), "n %d, peak at %d", n, at)

			sat := make([]float32, n)
			sat[at] = float32(math.Inf(1))
			doc, bits := maxDocAndSaturationBits(peak, sat)
			require.Equal(t, uint32(7), doc, "n %d, at %d", n, at)
			require.Equal(t, math.Float32bits(float32(math.Inf(1))), bits, "n %d, at %d", n, at)
		}
	}
	require.Zero(t, maxUint32(nil))
	require.False(t, decreases(nil))
	doc, bits := maxDocAndSaturationBits(nil, nil)
	require.Zero(t, doc)
	require.Zero(t, bits)
}
