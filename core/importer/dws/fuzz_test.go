package dws_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// FuzzImport feeds arbitrary catalog.json and tools/<product>.json contents
// to the importer: it must refuse with an error or import, never panic. The
// seeds are the real live-product shard (small) with its catalog entry, and
// broken variants.
func FuzzImport(f *testing.F) {
	files, err := dws.FilesFromTarGz(fixtures.DWSCatalog)
	if err != nil {
		f.Fatal(err)
	}
	// A one-product catalog.json around the real "live" product: a valid
	// shape whose recorded hashes are stale (the importer must say so).
	var index map[string]any
	if err := json.Unmarshal(files["catalog.json"], &index); err != nil {
		f.Fatal(err)
	}
	cat := index["catalog"].(map[string]any)
	for _, p := range cat["products"].([]any) {
		if p.(map[string]any)["id"] == "live" {
			cat["products"] = []any{p}
		}
	}
	small, err := json.Marshal(index)
	if err != nil {
		f.Fatal(err)
	}
	live := files["tools/live.json"]
	f.Add(small, live)
	f.Add(small, []byte(`{"product":"live","tools":{}}`))
	f.Add([]byte(`{"catalog":{"products":[{"id":"x"}]}}`), []byte(`{"product":"x","tools":{"x.a":{"canonical_path":"x.a","product_id":"x","parameters":{"p":{"enum":[1]}}}}}`))
	f.Add([]byte(`{"catalog":{"products":[{"id":"x","tool_count":"1"}]}}`), []byte(`{"product":"x","tools":{"x.a":7}}`))
	f.Add([]byte(`[]`), []byte(`null`))
	f.Fuzz(func(t *testing.T, catalogJSON, toolsJSON []byte) {
		cat, err := dws.Import(dws.Files{"catalog.json": catalogJSON, "tools/live.json": toolsJSON, "tools/x.json": toolsJSON})
		if err == nil && cat == nil {
			t.Fatal("no catalog and no error")
		}
	})
}
