// Package overlap runs independent steps of opening a snapshot side by
// side when the process has more than one processor, and one after the
// other when it has one (the WebAssembly module), so that the module does
// exactly the sequential work it did before, without goroutines to
// schedule.
package overlap

import (
	"runtime"
	"sync"
)

// Start runs step on its own goroutine when GOMAXPROCS is above one, else
// at once, and returns a function that waits for it to finish (at once
// when it already has). The caller must call wait, once or more, before it
// uses anything step writes.
func Start(step func()) (wait func()) {
	if runtime.GOMAXPROCS(0) <= 1 {
		step()
		return func() {}
	}
	var done sync.WaitGroup
	done.Go(step)
	return done.Wait
}
