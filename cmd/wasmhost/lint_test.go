package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/wasm"
)

const (
	tripsCatalog = "../../testdata/lint/trips.json"
	tripsExpect  = "../../testdata/lint/trips.expect.jsonl"
	tripsGolden  = "../../testdata/lint/trips.golden.json"
)

// wasmhost lint --json is the golden report with either engine; the table
// and --fail-on follow the findings (the trips catalog has errors).
func TestLintCLI(t *testing.T) {
	golden, err := os.ReadFile(tripsGolden)
	require.NoError(t, err)
	for _, engine := range []string{"native", "wasm"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "wasm" && !bytes.Contains(wasm.Binary, []byte("toolsift.lint.v1")) {
				t.Skip("the committed toolsearch.wasm has no lint op yet: run wasm/build.sh")
			}
			code, out, stderr := runCLI(t, "", "lint", "--engine", engine, "--catalog", tripsCatalog, "--format", "mcp", "--expect", tripsExpect, "--json", "--cache-dir", "")
			require.Equal(t, 0, code, stderr)
			require.Equal(t, string(golden), out, engine)
		})
	}

	code, table, stderr := runCLI(t, "", "lint", "--engine", "native", "--catalog", tripsCatalog, "--format", "mcp", "--expect", tripsExpect, "--fail-on", "error")
	require.Equal(t, lintFindingsExit, code, stderr)
	require.True(t, strings.HasPrefix(table, "toolsift.lint.v1: 28 tools"), table)
	require.Contains(t, table, "unreachable                      store.list_records")

	// The same expectations as a JSON array.
	var expect []map[string]string
	lines, err := os.ReadFile(tripsExpect)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var x map[string]string
		require.NoError(t, json.Unmarshal([]byte(line), &x))
		expect = append(expect, x)
	}
	array := filepath.Join(t.TempDir(), "expect.json")
	data, err := json.Marshal(expect)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(array, data, 0o644))
	code, out, stderr := runCLI(t, "", "lint", "--engine", "native", "--catalog", tripsCatalog, "--format", "mcp", "--expect", array, "--json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(golden), out)

	// A clean catalog passes --fail-on warning; info findings fail --fail-on info.
	code, _, stderr = runCLI(t, "", "lint", "--engine", "native", "--catalog", "../../testdata/mcp/filesystem.json", "--format", "mcp", "--fail-on", "warning")
	require.Equal(t, 0, code, stderr)
	code, _, _ = runCLI(t, "", "lint", "--engine", "native", "--catalog", "../../testdata/mcp/filesystem.json", "--format", "mcp", "--fail-on", "info")
	require.Equal(t, lintFindingsExit, code)
}

func TestLintCLIErrors(t *testing.T) {
	code, _, stderr := runCLI(t, "", "lint", "--fail-on", "fatal")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_flag"`)

	bad := filepath.Join(t.TempDir(), "expect.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"query":"weather","tool":"store.nope"}`+"\n"), 0o644))
	code, _, stderr = runCLI(t, "", "lint", "--engine", "native", "--catalog", tripsCatalog, "--format", "mcp", "--expect", bad)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"unknown_tool"`)

	require.NoError(t, os.WriteFile(bad, []byte(`{"query":"weather","tool":"store.get_forecast","rank":1}`+"\n"), 0o644))
	code, _, stderr = runCLI(t, "", "lint", "--engine", "native", "--catalog", tripsCatalog, "--format", "mcp", "--expect", bad)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_expectations"`)
	require.Contains(t, stderr, "line 1")

	code, _, stderr = runCLI(t, "", "lint", "--mcp-config", bad, "--snapshot", "x.snap")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"ambiguous_input"`)

	code, _, _ = runCLI(t, "", "lint", "extra")
	require.Equal(t, 2, code)
}

// wasmhost lint --mcp-config lints the catalog the gateway assembles: the
// same report as a lint of that catalog's file (listed here with a client
// of the test's own and assembled as the gateway does).
func TestLintGatewayCatalog(t *testing.T) {
	root := t.TempDir()
	servers := npmServerConfigs(t, root)
	lists := map[string][]*mcp.Tool{}
	entries := map[string]any{}
	for _, s := range servers {
		lists[s.Name] = listTools(t, s)
		entries[s.Name] = map[string]any{"command": s.Command, "args": s.Args}
	}
	catalog, err := gateway.AssembleCatalog(lists)
	require.NoError(t, err)
	dir := t.TempDir()
	catalogPath := filepath.Join(dir, "catalog.json")
	require.NoError(t, os.WriteFile(catalogPath, catalog, 0o644))
	config := filepath.Join(dir, "servers.json")
	data, err := json.Marshal(map[string]any{"mcpServers": entries})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, data, 0o644))

	code, want, stderr := runCLI(t, "", "lint", "--engine", "native", "--catalog", catalogPath, "--format", "mcp", "--json")
	require.Equal(t, 0, code, stderr)
	code, got, stderr := runCLI(t, "", "lint", "--engine", "native", "--mcp-config", config, "--json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, got)
	require.Contains(t, got, `"schema":"toolsift.lint.v1"`)
}

// A snapshot built without tool search keeps no original MCP definitions:
// lint cannot tell a tool without annotations from one that says only
// destructiveHint: true, and says so at info level instead of warning.
func TestLintSnapshotWithoutOriginals(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "trips.snap")
	code, _, stderr := runCLI(t, "", "snapshot", "build", "--format", "mcp", "--in", tripsCatalog, "-o", snap)
	require.Equal(t, 0, code, stderr)
	code, out, stderr := runCLI(t, "", "lint", "--engine", "native", "--snapshot", snap, "--json")
	require.Equal(t, 0, code, stderr)
	var report struct {
		Findings []struct{ Level, Check, Tool, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	var unannotated []string
	for _, f := range report.Findings {
		if f.Check == "unannotated" {
			unannotated = append(unannotated, f.Level+" "+f.Tool)
			require.Contains(t, f.Message, "keeps no original definitions")
		}
	}
	require.Equal(t, []string{"info store.archive_record"}, unannotated)
}
