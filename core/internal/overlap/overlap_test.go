package overlap

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStartFinishesBeforeWaitReturns(t *testing.T) {
	for _, procs := range []int{1, 2} {
		previous := runtime.GOMAXPROCS(procs)
		var ran atomic.Int32
		wait := Start(func() { ran.Add(1) })
		wait()
		require.EqualValues(t, 1, ran.Load(), "GOMAXPROCS %d", procs)
		wait() // waiting again neither blocks nor runs the step again
		require.EqualValues(t, 1, ran.Load(), "GOMAXPROCS %d", procs)
		runtime.GOMAXPROCS(previous)
	}
}

func TestStartWithOneProcessorRunsTheStepAtOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ran := false
	wait := Start(func() { ran = true })
	require.True(t, ran, "the step ran before Start returned")
	wait()
}

func TestStartWithProcessorsRunsTheStepAlongside(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	release := make(chan struct{})
	finished := make(chan struct{})
	wait := Start(func() { <-release; close(finished) })
	// Start returned while the step is still blocked: it runs alongside.
	select {
	case <-finished:
		t.Fatal("the step finished before it was released")
	default:
	}
	close(release)
	wait()
	<-finished
}
