package hostapi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
)

// TestLoadWithSwaps: 8 goroutines search and Inspect without pause while the
// catalog flips between two snapshots every 100 ms (and once tries a
// corrupted one). Every answer must be entirely one snapshot's; an Inspect
// carrying one snapshot's hashes must get that snapshot's spec or
// catalog_changed, never the other's spec; nothing else may fail.
//
// It runs for 2 s in the normal tests; `make soak` runs it for longer
// (TOOLSIFT_SOAK=10m).
func TestLoadWithSwaps(t *testing.T) {
	duration := 2 * time.Second
	if d, err := time.ParseDuration(os.Getenv("TOOLSIFT_SOAK")); err == nil && d > 0 {
		duration = d
	}
	ctx := context.Background()
	e, snapA, snapB, answerA, answerB := swapFixture(t)
	b, err := secondSnapshot()
	require.NoError(t, err)
	hashA, surface := e.Info().SourceHash, e.Info().SurfaceHash
	hashB := b.native.Version().SourceHash
	inspectFor := func(hash string) []byte {
		return []byte(fmt.Sprintf(`{"version":"schema-inspect.v1","canonical_path":"chat.query_msg_read_status","expected_source_hash":%q,"expected_surface_hash":%q}`, hash, surface))
	}
	specA, err := e.Inspect(ctx, inspectFor(hashA))
	require.NoError(t, err)
	specB, werr := b.native.InspectJSON(inspectFor(hashB))
	require.Nil(t, werr)
	answers := map[string][]byte{hashA: answerA, hashB: answerB}
	specs := map[string][]byte{hashA: specA, hashB: specB}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	var searches, inspects, staleInspects, failures atomic.Int64
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				out, err := e.Search(ctx, []byte(swapRequest))
				if err != nil {
					fail("search: %v", err)
					continue
				}
				searches.Add(1)
				hash := sourceHashOf(t, out)
				if want, ok := answers[hash]; !ok || string(out) != string(want) {
					fail("search answer is not entirely one snapshot's (source_hash %s)", hash)
					continue
				}
				// Inspect what this answer found, with its hashes.
				spec, err := e.Inspect(ctx, inspectFor(hash))
				var typed *wire.Error
				switch {
				case err == nil && string(spec) == string(specs[hash]):
					inspects.Add(1)
				case err == nil:
					fail("inspect with %s hashes returned another snapshot's spec", hash)
				case errors.As(err, &typed) && typed.Reason == "catalog_changed":
					staleInspects.Add(1) // the catalog flipped in between: refused, as it must be
				default:
					fail("inspect: %v", err)
				}
			}
		})
	}

	start := time.Now()
	swaps, refused := 0, 0
	corrupt := append([]byte(nil), snapB...)
	corrupt[len(corrupt)/2] ^= 0x10
	for i := 0; time.Since(start) < duration; i++ {
		time.Sleep(100 * time.Millisecond)
		if i == 5 {
			var typed *wire.Error
			err := e.Swap(ctx, corrupt)
			require.ErrorAs(t, err, &typed, "a corrupted snapshot must be refused")
			require.Equal(t, "invalid_snapshot", typed.Reason)
			refused++
			continue
		}
		next := snapB
		if e.Info().SourceHash == hashB {
			next = snapA
		}
		require.NoError(t, e.Swap(ctx, next))
		swaps++
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)

	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	require.Zero(t, failures.Load())
	require.NotZero(t, inspects.Load())
	t.Logf("%v: %d searches (%.0f/s), %d inspects answered, %d refused as catalog_changed, %d swaps, %d corrupted swap refused, 0 errors; "+
		"host heap %.1f MiB before, %.1f MiB after; %d instances created",
		elapsed.Round(time.Millisecond), searches.Load(), float64(searches.Load())/elapsed.Seconds(), inspects.Load(), staleInspects.Load(),
		swaps, refused, float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20), e.created.Load())
}
