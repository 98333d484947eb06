package provider

import (
	"os"
	"testing"

	"github.com/toolsift/toolsift/core/compile"
)

// BenchmarkBuildNames: the cost of a catalog's provider names, paid once
// per engine (the DWS catalog, 1,122 tools).
func BenchmarkBuildNames(b *testing.B) {
	data, err := os.ReadFile("../../catalogs/dws/dws.snap")
	if err != nil {
		b.Skip(err)
	}
	e, err := compile.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	cat := e.Catalog()
	b.ReportAllocs()
	for b.Loop() {
		buildNames(cat)
	}
}
