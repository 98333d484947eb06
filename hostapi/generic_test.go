package hostapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/fixtures"
)

// genericVector is one line of testdata/generic/golden.jsonl.
type genericVector struct {
	Kind     string          `json:"kind"`
	Request  json.RawMessage `json:"request"`
	Response *string         `json:"response"`
	Error    *struct {
		Category string `json:"category"`
		Reason   string `json:"reason"`
	} `json:"error"`
}

// TestGenericCatalogParity: the module builds the generic MCP catalog's
// snapshot byte for byte as the Go core did (with the format's default
// profile, generic-v3: its SHA-256 is committed), and answers every vector
// of every generic profile with the native engine's bytes (generic-v2 and
// generic-v1 from their committed snapshots).
func TestGenericCatalogParity(t *testing.T) {
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		catalogJSON, err := fixtures.GenericMCPCatalog()
		require.NoError(t, err)
		built, err := BuildSnapshot(ctx, "mcp", catalogJSON, WithEngine(kind))
		require.NoError(t, err)
		sum := sha256.Sum256(built)
		require.Equal(t, strings.TrimSpace(string(fixtures.GenericV3SnapshotSHA256)), hex.EncodeToString(sum[:]), "the %s engine built a different generic snapshot", kind)

		for _, g := range []struct {
			profile  string
			snapshot []byte
			golden   []byte
		}{
			{"generic-v3", built, fixtures.GenericV3Golden},
			{"generic-v2", fixtures.GenericSnapshot, fixtures.GenericGolden},
			{"generic-v1", fixtures.GenericV1Snapshot, fixtures.GenericV1Golden},
		} {
			t.Run(g.profile, func(t *testing.T) {
				e := openSnapshot(t, g.snapshot, WithEngine(kind))
				require.Equal(t, g.profile, e.Info().Profile)
				require.Equal(t, "mcp", e.Info().Format)
				require.Equal(t, 527, e.Info().ToolCount)
				replayGeneric(t, e, g.golden)
			})
		}
	})
}

func replayGeneric(t *testing.T, e *Engine, golden []byte) { replayVectors(t, e, golden, 26) }

// replayVectors replays golden vectors, at least least of them.
func replayVectors(t *testing.T, e *Engine, golden []byte, least int) {
	ctx := context.Background()
	scanner := bufio.NewScanner(bytes.NewReader(golden))
	scanner.Buffer(nil, 1<<20)
	n := 0
	for scanner.Scan() {
		var v genericVector
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &v))
		call := e.Search
		if v.Kind == "inspect" {
			call = e.Inspect
		}
		got := wasmAnswer(call(ctx, v.Request))
		if v.Error != nil {
			require.Equal(t, v.Error.Category, got.Category, "%s", v.Request)
			require.Equal(t, v.Error.Reason, got.Reason, "%s", v.Request)
		} else {
			require.NotNil(t, v.Response)
			require.Equal(t, *v.Response, got.Out, "%s", v.Request)
		}
		n++
	}
	require.NoError(t, scanner.Err())
	require.GreaterOrEqual(t, n, least)
}
