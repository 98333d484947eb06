package calls

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// reserveHeap only makes room: what it allocates is garbage by the time it
// returns, so the live heap is what it was (a reservation kept alive would
// double the memory of every large open).
func TestReserveHeapKeepsNothing(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reserveHeap(64 << 20)
	runtime.ReadMemStats(&after)
	require.Nil(t, reserved)
	require.Less(t, after.HeapAlloc, before.HeapAlloc+8<<20, "the 64 MiB reservation is still live")
	require.GreaterOrEqual(t, after.HeapSys, before.HeapSys+(64<<20)-(4<<20), "the heap did not grow by the reservation")
}
