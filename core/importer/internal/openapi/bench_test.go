package openapi_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/openapi"
)

// BenchmarkImportGitHub imports GitHub's REST description (623
// operations): the importer's cost on a large document full of $refs.
func BenchmarkImportGitHub(b *testing.B) {
	data := spec(b, "github-rest-v0.0.6.json.gz")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := importer.ImportWith(openapi.Format, data, importer.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
