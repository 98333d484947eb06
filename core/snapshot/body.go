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

// copyChunk is the size of the pieces privateCopy copies. A single copy of
// a 230 MiB body is one memmove that cannot be preempted, and when the
// allocation for it started a collection the runtime signalled the copying
// thread again and again to stop it (runtime.suspendG, tgkill and
// procyield were a third of a CPU profile of copying and opening the
// 100,000-tool snapshot four times): the
// copy took 100 ms, or 250 to 800 ms when that happened. Copied in 1 MiB
// chunks it took 104 to 118 ms in every run (a throwaway program, six
// copies per process, two processes).
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

// copyChunked copies src to dst (of the same length) copyChunk at a time.
func copyChunked(dst, src []byte) {
	for lo := 0; lo < len(src); lo += copyChunk {
		hi := min(lo+copyChunk, len(src))
		copy(dst[lo:hi], src[lo:hi])
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
