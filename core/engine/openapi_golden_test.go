package engine_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
)

// openapiDir is testdata/openapi from this package's directory.
var openapiDir = filepath.Join("..", "..", "testdata", "openapi")

// openapiSpecs are the OpenAPI goldens: each spec's snapshot, built from
// each of its files (Galaxy's YAML and JSON say the same), is one snapshot (its SHA-256 in
// testdata/openapi/<name>.snap.sha256, which every host checks its own build
// against: the snapshots are not committed), and its answers are
// testdata/openapi/<name>.golden.jsonl.
var openapiSpecs = []struct {
	name     string
	files    []string
	queries  []map[string]any
	inspects []string
}{
	// Scalar's Galaxy (OpenAPI 3.1, 9 operations), searched as an agent
	// would: intents, an operationId and a canonical path (the exact
	// guard), an effect filter, a query that matches nothing, a refused one.
	{"galaxy", []string{"galaxy-3.1.yaml", "galaxy-3.1.json"}, []map[string]any{
		{"query": "create a new planet"},
		{"query": "upload a photo of a planet"},
		{"query": "sign up for a user account"},
		{"query": "get an authentication token with my credentials"},
		{"query": "who is the authenticated user"},
		{"query": "list all planets", "limit": 3},
		{"query": "remove a planet"},
		{"query": "planet", "effects": []string{"read"}},
		{"query": "planet", "effects": []string{"destructive"}},
		{"query": "getPlanet"},
		{"query": "scalar_galaxy.updatePlanet"},
		{"query": "zzqxv plorf"},
		{"query": ""},
	}, []string{"scalar_galaxy.createUser", "getPlanet", "scalar_galaxy.uploadImage", "scalar_galaxy", "no.such_tool"}},
	// The Swagger 2.0 Petstore (20 operations; its YAML is another revision
	// of the document, so only the JSON), whose findPetsByTags is
	// deprecated: generic-v3 ranks it after findPetsByStatus for a search
	// both answer, and still first for its own name.
	{"petstore", []string{"petstore-swagger2.json"}, []map[string]any{
		{"query": "find pets"},
		{"query": "find pets by tags", "limit": 3},
		{"query": "findPetsByTags"},
		{"query": "add a new pet to the store"},
		{"query": "place an order for a pet"},
		{"query": "pet", "effects": []string{"destructive"}},
	}, []string{"findPetsByTags", "findPetsByStatus"}},
}

// TestOpenAPIGolden checks every spec of openapiSpecs;
// go test ./core/engine -run TestOpenAPIGolden -update rewrites their digests
// and vectors.
func TestOpenAPIGolden(t *testing.T) {
	for _, spec := range openapiSpecs {
		t.Run(spec.name, func(t *testing.T) {
			var snaps [][]byte
			for _, name := range spec.files {
				data, err := os.ReadFile(filepath.Join(openapiDir, name))
				require.NoError(t, err)
				snap, _, err := compile.FromCatalog("openapi", data, importer.Options{})
				require.NoError(t, err)
				snaps = append(snaps, snap)
			}
			for _, other := range snaps[1:] {
				require.True(t, bytes.Equal(snaps[0], other), "YAML and JSON build different snapshots")
			}
			sum := sha256.Sum256(snaps[0])
			digest := hex.EncodeToString(sum[:]) + "\n"

			e, werr := compile.Open(snaps[0])
			require.Nil(t, werr)
			var golden bytes.Buffer
			for _, q := range spec.queries {
				request := map[string]any{"version": "tool-search.v1"}
				for k, v := range q {
					request[k] = v
				}
				writeVector(t, &golden, "search", request, e.SearchJSON)
			}
			v := e.Version()
			for _, path := range spec.inspects {
				request := map[string]any{"version": "schema-inspect.v1", "canonical_path": path,
					"expected_source_hash": v.SourceHash, "expected_surface_hash": v.SurfaceHash}
				writeVector(t, &golden, "inspect", request, e.InspectJSON)
			}

			digestFile, goldenFile := spec.name+".snap.sha256", spec.name+".golden.jsonl"
			if *update {
				require.NoError(t, os.WriteFile(filepath.Join(openapiDir, digestFile), []byte(digest), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(openapiDir, goldenFile), golden.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(filepath.Join(openapiDir, digestFile))
			require.NoError(t, err)
			require.Equal(t, string(want), digest, "openapi/%s is stale: go test ./core/engine -run TestOpenAPIGolden -update", digestFile)
			gold, err := os.ReadFile(filepath.Join(openapiDir, goldenFile))
			require.NoError(t, err)
			require.Equal(t, string(gold), golden.String(), "openapi/%s is stale: go test ./core/engine -run TestOpenAPIGolden -update", goldenFile)
		})
	}
}
