package engine

import (
	"testing"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// BenchmarkEngineParts times what New does besides the index, on the DWS
// catalog: the per-tool tables and the identity index.
func BenchmarkEngineParts(b *testing.B) {
	cat, err := fixtures.DWS()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unindexed", func(b *testing.B) {
		for b.Loop() {
			if _, err := newUnindexed(cat, profile.DWSV1, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	e, _ := newUnindexed(cat, profile.DWSV1, nil)
	b.Run("identity", func(b *testing.B) {
		for b.Loop() {
			if _, err := catalog.NewIdentityIndex(e.tools); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("avoid", func(b *testing.B) {
		for b.Loop() {
			for _, tool := range e.tools {
				demotingPhrases(tool.Selection.AvoidWhen, profile.DWSV1.AvoidWhenBoilerplate)
			}
		}
	})
}
