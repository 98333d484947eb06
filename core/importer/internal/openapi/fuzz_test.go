package openapi_test

import (
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/internal/openapi"
	"github.com/toolsift/toolsift/core/profile"
)

// FuzzImport feeds arbitrary bytes to the OpenAPI importer, strict and
// lenient: an error or a catalog, never a panic, and a lenient import of
// a document a strict one accepts gives the same catalog.
func FuzzImport(f *testing.F) {
	// Fragments of the real documents are the seed corpus in
	// testdata/fuzz/FuzzImport: GitHub's issues path with the parameters it
	// refers to, the Petstore's /pet paths with their definitions (2.0), the
	// first 4 KiB of Galaxy's YAML. Files, not read from the specs here:
	// decoding GitHub's 3 MB in every fuzz worker slowed its start.
	// A $ref cycle, a reference chain, a nameless parameter, deep nesting,
	// YAML aliases and merge keys.
	f.Add([]byte(`{"openapi":"3.0.0","paths":{"/a":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}}},"components":{"schemas":{"A":{"properties":{"a":{"$ref":"#/components/schemas/A"}}}}}}`))
	f.Add([]byte(`{"swagger":"2.0","paths":{"/a":{"parameters":[{"$ref":"#/parameters/p"}],"get":{"parameters":[{"in":"query"},{"name":"x","in":"body","schema":{"type":"object","required":true}}]}}},"parameters":{"p":{"$ref":"#/parameters/p"}}}`))
	f.Add([]byte(`{"openapi":"3.1.0","paths":{"/a":{"get":{"parameters":[{"name":"d","in":"query","schema":` + nest(80) + `}]}}}}`))
	f.Add([]byte("openapi: 3.0.0\nx: &x {type: string}\npaths:\n  /a:\n    get:\n      parameters:\n        - {name: q, in: query, schema: *x, <<: {required: 'true'}}\n"))
	f.Add([]byte("swagger: 2.0\na: &a [1, 2]\nb: &b [*a, *a]\npaths: {/x: {delete: {operationId: *b}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// importtest.CheckImport's property, for the lenient import too.
		strict, _, strictErr := importer.Import(openapi.Format, data)
		cat, p, report, err := importer.ImportWith(openapi.Format, data, importer.Options{})
		if err != nil {
			if strictErr == nil {
				t.Fatalf("lenient refuses what strict accepts: %v", err)
			}
			return
		}
		if cat == nil || p != profile.GenericV3 || cat.ToolCount() == 0 {
			t.Fatalf("no error, but catalog %v and profile %v", cat, p)
		}
		if cat.ToolCount() != report.ToolsImported {
			t.Fatalf("%d tools, report says %d", cat.ToolCount(), report.ToolsImported)
		}
		if strictErr == nil && strict.Version != cat.Version {
			t.Fatalf("strict and lenient imports differ: %v, %v", strict.Version, cat.Version)
		}
		if _, err := engine.New(cat, p); err != nil {
			t.Logf("engine refuses the catalog: %v", err)
		}
	})
}

func nest(depth int) string {
	s := `{"type":"string"}`
	for range depth {
		s = `{"type":"object","properties":{"n":` + s + `}}`
	}
	return s
}
