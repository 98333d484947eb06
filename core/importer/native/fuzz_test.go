package native_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/profile"
)

// FuzzImport feeds arbitrary bytes to Decode and Build: they must refuse
// with an error or produce a catalog the engine accepts or refuses, never
// panic; and the canonical form of a built document must decode to the
// same document and the same source hash.
func FuzzImport(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "catalog", "example.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(sample))
	f.Add(catalogJSON(`{"id":"p","tools":[{"name":"t","input_schema":{"properties":{"a":{"anyOf":[{"type":"string"}],"enum":[1,null],"default":{"x":[]}}}}}]}`))
	f.Add(catalogJSON(`{"id":"p","tools":[{"name":"t","aliases":["u"]},{"name":"u"}]}`))
	f.Add(catalogJSON(`{"id":"a.b","tools":[{"name":" t"}]}`))
	f.Add([]byte(`{"version":"toolsift-catalog.v1","products":[{"id":"x","tools":[{"name":"y","description":5}]}]}`))
	f.Add([]byte(`{"version":"toolsift-catalog.v1","products":[`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := native.Decode(data)
		if err != nil {
			return
		}
		cat, err := native.Build(doc, native.Format)
		if err != nil {
			return
		}
		if cat == nil || cat.ToolCount() == 0 {
			t.Fatal("Build returned no error and no tools")
		}
		if _, err := engine.New(cat, profile.GenericV1); err != nil {
			t.Logf("engine refuses the catalog: %v", err)
		}

		encoded := native.AppendJSON(nil, doc)
		again, err := native.Decode(encoded)
		if err != nil {
			t.Fatalf("the canonical form does not decode: %v\n%s", err, encoded)
		}
		reencoded := native.AppendJSON(nil, again)
		if !bytes.Equal(encoded, reencoded) {
			t.Fatalf("the canonical form changed on decoding:\n%s\n%s", encoded, reencoded)
		}
		rebuilt, err := native.Build(again, native.Format)
		if err != nil {
			t.Fatalf("the canonical form does not build: %v\n%s", err, encoded)
		}
		if rebuilt.Version != cat.Version {
			t.Fatalf("the canonical form builds to %v, not %v", rebuilt.Version, cat.Version)
		}
	})
}
