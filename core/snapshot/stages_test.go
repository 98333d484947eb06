package snapshot_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/internal/index"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// BenchmarkOpenStages splits opening the default snapshot into its stages,
// with the collector paused as the module pauses it while it opens (and run
// between iterations, untimed, every few iterations).
func BenchmarkOpenStages(b *testing.B) {
	snap := fixtures.DWSSnapshot
	paused := func(b *testing.B, stage func()) {
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		for i := 0; b.Loop(); i++ {
			stage()
			if i%4 == 3 {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
			}
		}
	}
	b.Run("open", func(b *testing.B) {
		paused(b, func() {
			if _, werr := compile.Open(snap); werr != nil {
				b.Fatal(werr)
			}
		})
	})
	b.Run("checksum", func(b *testing.B) {
		paused(b, func() { snapshot.Checksum(snap[snapshot.HeaderSize:]) })
	})
	b.Run("decode", func(b *testing.B) {
		paused(b, func() {
			if _, werr := snapshot.Decode(snap); werr != nil {
				b.Fatal(werr)
			}
		})
	})
	body, _ := snapshot.Decode(snap)
	b.Run("engine", func(b *testing.B) { // New WithIndex: validate, prepare, per-tool tables
		paused(b, func() {
			if _, err := engine.New(&body.Catalog, profile.DWSV1, engine.WithIndex(&body.Index, &body.Identity)); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("validate", func(b *testing.B) {
		paused(b, func() {
			if err := body.Index.Validate(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("prepare", func(b *testing.B) {
		paused(b, func() { body.Index.Prepare(profile.BM25, 0.9, 0.4) })
	})
}

// BenchmarkDecodeParts splits decoding the body into its catalog and index.
func BenchmarkDecodeParts(b *testing.B) {
	body, werr := snapshot.Decode(fixtures.DWSSnapshot)
	if werr != nil {
		b.Fatal(werr)
	}
	cat, err := body.Catalog.MarshalMsg(nil)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := body.Index.MarshalMsg(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("catalog", func(b *testing.B) {
		for b.Loop() {
			var c catalog.Catalog
			if _, err := c.UnmarshalMsg(cat); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			var i index.Index
			if _, err := i.UnmarshalMsg(ix); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if err := body.Index.Validate(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
