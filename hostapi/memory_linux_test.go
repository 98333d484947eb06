package hostapi

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A mapped region grows without moving: the bytes written stay, the new
// ones are zero, and beyond the limit there is no memory.
func TestMappedRegionGrowsInPlace(t *testing.T) {
	r := mapRegion(4 << 20)
	require.NotNil(t, r, "this Linux host maps memory")
	defer r.release()
	small := r.Reallocate(64 << 10)
	require.Len(t, small, 64<<10)
	copy(small, "toolsift")
	grown := r.Reallocate(4 << 20)
	require.Len(t, grown, 4<<20)
	require.Equal(t, &small[0], &grown[0], "growing does not move the memory")
	require.Equal(t, "toolsift", string(grown[:8]))
	for i, b := range grown[64<<10:] {
		if b != 0 {
			t.Fatalf("byte %d past the old length is %d, want 0", 64<<10+i, b)
		}
	}
	require.Nil(t, r.Reallocate(4<<20+1), "nothing past the limit")
	r.release()
	r.release() // once
	require.Nil(t, mapRegion(0))
}

// An engine's instances unmap their memory when it closes them: the
// address where each one's memory began is no longer mapped.
func TestDiscardedInstancesUnmapTheirMemory(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, snapshotDWS(t), WithMemoryLimit(1<<30))
	require.NoError(t, err)
	_, err = e.Search(ctx, []byte(`{"version":"tool-search.v1","query":"发消息"}`))
	require.NoError(t, err)
	e.mu.Lock()
	var starts []uint64
	for _, in := range e.gen.idle {
		require.NotNil(t, in.mapped, "the instance's memory is a mapping")
		require.Len(t, in.mapped.region, 1<<30, "of its whole limit")
		starts = append(starts, uint64(uintptr(unsafe.Pointer(&in.mapped.region[0]))))
	}
	e.mu.Unlock()
	require.NotEmpty(t, starts)
	for _, start := range starts {
		require.True(t, isMapped(t, start))
	}
	require.NoError(t, e.Close(ctx))
	for _, start := range starts {
		require.False(t, isMapped(t, start), "memory at %#x is still mapped after Close", start)
	}
}

// isMapped reports whether addr lies in a mapping of this process.
func isMapped(t *testing.T, addr uint64) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(maps)), "\n") {
		span, _, _ := strings.Cut(line, " ")
		lo, hi, _ := strings.Cut(span, "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		if start <= addr && addr < end {
			return true
		}
	}
	return false
}
