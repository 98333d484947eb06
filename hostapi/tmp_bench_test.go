package hostapi

import (
	"context"
	"testing"
)

func BenchmarkTmpExact(b *testing.B) {
	benchSearch(b, `{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`)
}

func BenchmarkTmpCalls(b *testing.B) {
	e := openDWS(b, WithMaxInstances(1))
	ctx := context.Background()
	in, err := e.acquire(ctx, "x")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("free0", func(b *testing.B) {
		for b.Loop() {
			in.call(ctx, fnFree, 0)
		}
	})
	b.Run("allocfree", func(b *testing.B) {
		for b.Loop() {
			r, _ := in.call(ctx, fnAlloc, 64)
			in.call(ctx, fnFree, r)
		}
	})
	b.Run("version", func(b *testing.B) {
		for b.Loop() {
			r, _ := in.call(ctx, fnVersion)
			in.call(ctx, fnFree, r>>32)
		}
	})
}
