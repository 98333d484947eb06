package hostapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openapiGoldens are the OpenAPI specs core/engine's TestOpenAPIGolden
// writes: the files each is built from, its tool count and its vectors.
var openapiGoldens = []struct {
	name    string
	files   []string
	tools   int
	vectors int
}{
	{"galaxy", []string{"galaxy-3.1.yaml", "galaxy-3.1.json"}, 9, 18},
	{"petstore", []string{"petstore-swagger2.json"}, 20, 8}, // findPetsByTags is deprecated
}

// TestOpenAPIGolden: the module builds each spec (Scalar's Galaxy, OpenAPI
// 3.1, from its YAML and from its JSON; the Swagger 2.0 Petstore) into the
// snapshot the Go core builds (its SHA-256 in
// testdata/openapi/<name>.snap.sha256), and answers every vector of
// testdata/openapi/<name>.golden.jsonl with the native engine's bytes.
func TestOpenAPIGolden(t *testing.T) {
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		dir := filepath.Join("..", "testdata", "openapi")
		for _, spec := range openapiGoldens {
			t.Run(spec.name, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join(dir, spec.name+".snap.sha256"))
				require.NoError(t, err)
				var built []byte
				for _, name := range spec.files {
					data, err := os.ReadFile(filepath.Join(dir, name))
					require.NoError(t, err)
					built, err = BuildSnapshot(ctx, "openapi", data, WithEngine(kind))
					require.NoError(t, err, name)
					sum := sha256.Sum256(built)
					require.Equal(t, strings.TrimSpace(string(want)), hex.EncodeToString(sum[:]), "the %s engine built a different snapshot from %s", kind, name)
				}
				golden, err := os.ReadFile(filepath.Join(dir, spec.name+".golden.jsonl"))
				require.NoError(t, err)
				e := openSnapshot(t, built, WithEngine(kind))
				require.Equal(t, "openapi", e.Info().Format)
				require.Equal(t, spec.tools, e.Info().ToolCount)
				replayVectors(t, e, golden, spec.vectors)
			})
		}
	})
}
