package engine_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/snapshot"
)

// openapiDir is testdata/openapi from this package's directory.
var openapiDir = filepath.Join("..", "..", "testdata", "openapi")

// openapiQueries search Scalar's Galaxy (OpenAPI 3.1, 9 operations) as an
// agent would: intents, an operationId and a canonical path (the exact
// guard), an effect filter, a query that matches nothing, a refused one.
var openapiQueries = []map[string]any{
	{"query": "create a new planet"},
	{"query": "upload a photo of a planet"},
	{"query": "sign up for a user account"},
	{"query": "get an authentication token with my credentials"},
	{"query": "who is the authenticated user"},
	{"query": "list all planets", "limit": 3},
	{"query": "remove a planet"},
	{"query": "planet", "effects": []string{"destructive"}},
	{"query": "planet", "effects": []string{"read"}},
	{"query": "getPlanet"},
	{"query": "scalar_galaxy.updatePlanet"},
	{"query": "zzqxv plorf"},
	{"query": ""},
}

// openapiInspects address tools by canonical path, bare name and product.
var openapiInspects = []string{"scalar_galaxy.createUser", "getPlanet", "scalar_galaxy.uploadImage", "scalar_galaxy", "no.such_tool"}

// TestOpenAPIGolden: the Galaxy snapshot, built from its YAML and from its
// JSON, is one snapshot (its SHA-256 in testdata/openapi/galaxy.snap.sha256,
// which every host checks its own build against: the snapshot itself is
// not committed), and its answers are testdata/openapi/golden.jsonl.
// go test ./core/engine -run TestOpenAPIGolden -update rewrites both.
func TestOpenAPIGolden(t *testing.T) {
	var snaps [][]byte
	for _, name := range []string{"galaxy-3.1.yaml", "galaxy-3.1.json"} {
		data, err := os.ReadFile(filepath.Join(openapiDir, name))
		require.NoError(t, err)
		snap, _, err := snapshot.FromCatalog("openapi", data, importer.Options{})
		require.NoError(t, err)
		snaps = append(snaps, snap)
	}
	require.True(t, bytes.Equal(snaps[0], snaps[1]), "YAML and JSON build different snapshots")
	sum := sha256.Sum256(snaps[0])
	digest := hex.EncodeToString(sum[:]) + "\n"

	e, werr := snapshot.Open(snaps[0])
	require.Nil(t, werr)
	var golden bytes.Buffer
	for _, q := range openapiQueries {
		request := map[string]any{"version": "tool-search.v1"}
		for k, v := range q {
			request[k] = v
		}
		writeVector(t, &golden, "search", request, e.SearchJSON)
	}
	v := e.Version()
	for _, path := range openapiInspects {
		request := map[string]any{"version": "schema-inspect.v1", "canonical_path": path,
			"expected_source_hash": v.SourceHash, "expected_surface_hash": v.SurfaceHash}
		writeVector(t, &golden, "inspect", request, e.InspectJSON)
	}

	if *update {
		require.NoError(t, os.WriteFile(filepath.Join(openapiDir, "galaxy.snap.sha256"), []byte(digest), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(openapiDir, "golden.jsonl"), golden.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(filepath.Join(openapiDir, "galaxy.snap.sha256"))
	require.NoError(t, err)
	require.Equal(t, string(want), digest, "openapi/galaxy.snap.sha256 is stale: go test ./core/engine -run TestOpenAPIGolden -update")
	gold, err := os.ReadFile(filepath.Join(openapiDir, "golden.jsonl"))
	require.NoError(t, err)
	require.Equal(t, string(gold), golden.String(), "openapi/golden.jsonl is stale: go test ./core/engine -run TestOpenAPIGolden -update")
}
