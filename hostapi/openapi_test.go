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

// TestOpenAPIGolden: the module builds Scalar's Galaxy (OpenAPI 3.1) from
// its YAML and from its JSON into the snapshot the Go core builds (its
// SHA-256 in testdata/openapi/galaxy.snap.sha256), and answers every
// vector of testdata/openapi/golden.jsonl with the native engine's bytes.
func TestOpenAPIGolden(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "testdata", "openapi")
	want, err := os.ReadFile(filepath.Join(dir, "galaxy.snap.sha256"))
	require.NoError(t, err)
	var built []byte
	for _, name := range []string{"galaxy-3.1.yaml", "galaxy-3.1.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		built, err = BuildSnapshot(ctx, "openapi", data)
		require.NoError(t, err, name)
		sum := sha256.Sum256(built)
		require.Equal(t, strings.TrimSpace(string(want)), hex.EncodeToString(sum[:]), "the module built a different Galaxy snapshot from %s", name)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "golden.jsonl"))
	require.NoError(t, err)
	e := openSnapshot(t, built)
	require.Equal(t, "openapi", e.Info().Format)
	require.Equal(t, 9, e.Info().ToolCount)
	replayVectors(t, e, golden, 18)
}
