package hostapi

import (
	"bytes"
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

// The host keeps no copy of a snapshot its instances can lend: a second
// instance copies it out of the first one's memory (while the first is
// busy), the caller's bytes are not kept, and both answer alike.
func TestInstancesLendTheSnapshot(t *testing.T) {
	ctx := context.Background()
	snap := snapshotDWS(t)
	caller := bytes.Clone(snap)
	e, err := Open(ctx, caller, WithMaxInstances(2))
	require.NoError(t, err)
	defer e.Close(ctx)
	clear(caller) // Open kept nothing of it

	e.mu.Lock()
	g := e.gen
	require.Nil(t, g.copy, "no host copy while an instance can lend")
	require.Len(t, g.holders, 1)
	e.mu.Unlock()
	require.Equal(t, len(snap), e.Info().SnapshotBytes)

	first, err := e.acquire(ctx, "test")
	require.NoError(t, err)
	second, err := e.acquire(ctx, "test") // none idle: a new one, from first's memory
	require.NoError(t, err)
	require.NotSame(t, first, second)
	require.EqualValues(t, 2, e.created.Load())
	view, done := second.snapshotView()
	require.Equal(t, snap, view, "the second instance holds the snapshot as opened")
	done()
	want, err := first.search(ctx, []byte(chineseQuery), 0)
	require.NoError(t, err)
	got, err := second.search(ctx, []byte(chineseQuery), 0)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	e.release(first, true)
	e.release(second, true)

	e.mu.Lock()
	require.Nil(t, g.copy)
	require.Len(t, g.holders, 2)
	e.mu.Unlock()
}

// When the last instance that holds the snapshot is discarded (a trap, an
// ended context), the host copies the snapshot out of it first, and the
// next call opens a new instance from that copy.
func TestLastHolderLeavesACopy(t *testing.T) {
	ctx := context.Background()
	snap := snapshotDWS(t)
	e, err := Open(ctx, bytes.Clone(snap), WithMaxInstances(1))
	require.NoError(t, err)
	defer e.Close(ctx)
	want, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)

	in, err := e.acquire(ctx, "test")
	require.NoError(t, err)
	e.release(in, false) // unhealthy: discarded
	e.mu.Lock()
	g := e.gen
	require.Empty(t, g.holders)
	require.Equal(t, snap, g.copy, "the host copied the snapshot before discarding its last holder")
	e.mu.Unlock()
	require.Nil(t, in.mapped.region, "and the discarded instance's memory is unmapped")

	got, err := e.Search(ctx, []byte(chineseQuery))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	require.EqualValues(t, 2, e.created.Load())
}

// A swapped-out generation's instances are discarded without a copy: only
// the generation that serves keeps one.
func TestSwappedOutGenerationKeepsNoCopy(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, snapshotDWS(t))
	require.NoError(t, err)
	defer e.Close(ctx)
	e.mu.Lock()
	old := e.gen
	e.mu.Unlock()
	require.NoError(t, e.Swap(ctx, snapshotDWS(t)))
	e.mu.Lock()
	defer e.mu.Unlock()
	require.Empty(t, old.holders)
	require.Nil(t, old.copy)
	require.Len(t, e.gen.holders, 1)
	require.Nil(t, e.gen.copy)
}
