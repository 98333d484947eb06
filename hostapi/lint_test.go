package hostapi

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/wasm"
)

// requireLint skips where the module predates the lint op (the committed
// module is rebuilt with wasm/build.sh).
func requireLint(t *testing.T) {
	t.Helper()
	if !bytes.Contains(wasm.Binary, []byte("toolsift.lint.v1")) {
		t.Skip("the committed toolsearch.wasm has no lint op yet: run wasm/build.sh")
	}
}

// TestLintGolden: the module's lint of testdata/lint/trips.json (imported
// by the module for tool search, as every binding's fromMCPTools does) with
// its expectations is byte for byte the golden the native core wrote
// (core/lint's TestGolden).
func TestLintGolden(t *testing.T) {
	requireLint(t)
	ctx := context.Background()
	tools, err := os.ReadFile("../testdata/lint/trips.json")
	require.NoError(t, err)
	list, err := FromMCPTools(ctx, tools)
	require.NoError(t, err)
	e := openSnapshot(t, list.Snapshot)
	var expect []LintExpectation
	lines, err := os.ReadFile("../testdata/lint/trips.expect.jsonl")
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var x LintExpectation
		require.NoError(t, json.Unmarshal([]byte(line), &x))
		expect = append(expect, x)
	}
	out, err := e.Lint(ctx, expect)
	require.NoError(t, err)
	golden, err := os.ReadFile("../testdata/lint/trips.golden.json")
	require.NoError(t, err)
	require.Equal(t, strings.TrimSuffix(string(golden), "\n"), string(out))

	// A bad expectation is the module's typed error, and the engine serves on.
	_, err = e.Lint(ctx, []LintExpectation{{Query: "weather", Tool: "store.nope"}})
	require.ErrorContains(t, err, "unknown_tool")
	again, err := e.Lint(ctx, expect)
	require.NoError(t, err)
	require.Equal(t, out, again)
}
