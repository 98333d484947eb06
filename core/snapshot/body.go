package snapshot

import (
	"runtime"
	"sync"

	"github.com/toolsift/toolsift/core/internal/overlap"
)

// Opening a large snapshot natively is bound by memory, not by decoding:
// at 100,000 tools the body is 230 MiB, and Open copies it (the caller's
// bytes are not retained) and reads it twice more, once for the checksum
// and once to decode it. The copy and the checksum here take what they can
// of that off the critical path; in the module (GOMAXPROCS 1) they do
// exactly the sequential work they replace.

// copyChunk is the size of the pieces privateCopy copies, yielding after
// each (copyChunked). The allocation for the copy of a large body usually
// starts a collection, and the collector then stops every goroutine again
// and again until it can finish (runtime.suspendG, tgkill and procyield
// were a third of a CPU profile of copying and opening the 100,000-tool
// snapshot four times). A goroutine inside memmove cannot be stopped, and
// neither can one in a loop that calls it (memmove has no preemption check
// of its own): a single copy of 230 MiB took 100 ms, or 250 to 800 ms
// when that happened, and 1 MiB pieces without a yield did not help during
// a collection. With the yield, a process's first open of 100,000 tools
// (the one that meets the collection) took 158–206 ms against 209–233 ms
// without it, where the second open took 141–193 ms (a throwaway program,
// four processes each, alternated; GODEBUG=gcstoptheworld=1, which leaves
// no collection running alongside, gave 147–195 ms).
const copyChunk = 1 << 20

// maxCopiers bounds the goroutines privateCopy uses.
const maxCopiers = 4

// privateCopy is a copy of b, made by up to maxCopiers goroutines (no more
// than GOMAXPROCS) over contiguous ranges. Most of a large copy's time is
// the kernel's page faults on the fresh memory, which threads take in
// parallel: 230 MiB in 52 to 58 ms on two threads against 104 to 118 ms on
// one, in the same processes.
func privateCopy(b []byte) []byte {
	out := make([]byte, len(b))
	copiers := min(runtime.GOMAXPROCS(0), maxCopiers, (len(b)+copyChunk-1)/copyChunk)
	if copiers <= 1 {
		copyChunked(out, b)
		return out
	}
	// Ranges of whole chunks, so that no two goroutines write one page.
	per := (len(b)/copyChunk + copiers - 1) / copiers * copyChunk
	var wg sync.WaitGroup
	for lo := per; lo < len(b); lo += per {
		hi := min(lo+per, len(b))
		wg.Go(func() { copyChunked(out[lo:hi], b[lo:hi]) })
	}
	copyChunked(out[:min(per, len(b))], b[:min(per, len(b))])
	wg.Wait()
	return out
}

// copyChunked copies src to dst (of the same length) copyChunk at a time,
// yielding the processor after each piece so that a collection waiting to
// stop this goroutine can (see copyChunk).
func copyChunked(dst, src []byte) {
	for lo := 0; lo < len(src); lo += copyChunk {
		hi := min(lo+copyChunk, len(src))
		copy(dst[lo:hi], src[lo:hi])
		runtime.Gosched()
	}
}

// checksumLater starts computing the body's checksum and returns a function
// that reports whether it is want. With more than one processor the sum is
// computed alongside (core/internal/overlap) while the caller decodes the
// body and builds its engine: the decoders and the engine's validation
// refuse malformed input by themselves, so nothing is lost by decoding
// bytes not yet verified, and a mismatch still fails the open with the
// checksum's error, whatever else failed. With one processor it is
// computed before returning, as before.
func checksumLater(body []byte, want uint64) (matches func() bool) {
	var sum uint64
	wait := overlap.Start(func() { sum = xxh64(body) })
	return func() bool {
		wait()
		return sum == want
	}
}
