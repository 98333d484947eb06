package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/openapi"
	"github.com/toolsift/toolsift/core/profile"
)

// FuzzImport feeds arbitrary bytes to the OpenAPI importer, strict and
// lenient: an error or a catalog, never a panic, and a lenient import of
// a document a strict one accepts gives the same catalog.
func FuzzImport(f *testing.F) {
	// Fragments of the real documents: GitHub's issues/create with its
	// referenced parameters and schemas, Galaxy's YAML, Petstore's 2.0.
	github := spec(f, "github-rest-v0.0.6.json.gz")
	var doc struct {
		Paths      map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]json.RawMessage `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(github, &doc); err != nil {
		f.Fatal(err)
	}
	fragment, err := json.Marshal(map[string]any{
		"openapi": "3.0.3", "info": map[string]string{"title": "GitHub"},
		"paths":      map[string]json.RawMessage{"/repos/{owner}/{repo}/issues": doc.Paths["/repos/{owner}/{repo}/issues"]},
		"components": map[string]any{"parameters": map[string]json.RawMessage{"owner": doc.Components.Parameters["owner"], "repo": doc.Components.Parameters["repo"]}},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fragment)
	f.Add(spec(f, "galaxy-3.1.yaml")[:4096])
	var petstore struct {
		Paths       map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(spec(f, "petstore-swagger2.json"), &petstore); err != nil {
		f.Fatal(err)
	}
	fragment, err = json.Marshal(map[string]any{
		"swagger": "2.0", "info": map[string]string{"title": "Petstore"},
		"paths":       map[string]json.RawMessage{"/pet": petstore.Paths["/pet"], "/pet/{petId}": petstore.Paths["/pet/{petId}"]},
		"definitions": map[string]json.RawMessage{"Pet": petstore.Definitions["Pet"], "Category": petstore.Definitions["Category"], "Tag": petstore.Definitions["Tag"]},
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fragment)
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
		if cat == nil || p != profile.GenericV2 || cat.ToolCount() == 0 {
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
