package hostapi

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/wasm"
)

// TestLintGolden: lint of testdata/lint/trips.json (imported for tool
// search, as every binding's fromMCPTools does) with its expectations is
// byte for byte the golden core/lint's TestGolden wrote, with the native
// engine and in the module (which skips where the committed module
// predates the lint op: wasm/build.sh rebuilds it).
func TestLintGolden(t *testing.T) {
	golden, err := os.ReadFile("../testdata/lint/trips.golden.json")
	require.NoError(t, err)
	tools, err := os.ReadFile("../testdata/lint/trips.json")
	require.NoError(t, err)
	var expect []LintExpectation
	lines, err := os.ReadFile("../testdata/lint/trips.expect.jsonl")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var x LintExpectation
		require.NoError(t, json.Unmarshal([]byte(line), &x))
		expect = append(expect, x)
	}
	for _, kind := range []EngineKind{NativeEngine, ModuleEngine} {
		t.Run(kind.String(), func(t *testing.T) {
			if kind == ModuleEngine && !bytes.Contains(wasm.Binary, []byte("toolsift.lint.v1")) {
				t.Skip("the committed toolsearch.wasm has no lint op yet: run wasm/build.sh")
			}
			ctx := context.Background()
			list, err := FromMCPTools(ctx, tools, WithEngine(kind))
			require.NoError(t, err)
			e := openSnapshot(t, list.Snapshot, WithEngine(kind))
			out, err := e.Lint(ctx, expect)
			require.NoError(t, err)
			require.Equal(t, strings.TrimSuffix(string(golden), "\n"), string(out))
			report, err := e.LintReport(ctx, expect)
			require.NoError(t, err)
			require.Equal(t, 1, report.Summary.Unreachable)
			require.True(t, report.FailsAt("error"))

			// A bad expectation is a typed error, and the engine serves on.
			_, err = e.Lint(ctx, []LintExpectation{{Query: "weather", Tool: "store.nope"}})
			require.Equal(t, "unknown_tool", wire.ErrorOf(err).Reason)
			again, err := e.Lint(ctx, expect)
			require.NoError(t, err)
			require.Equal(t, out, again)
		})
	}
}
