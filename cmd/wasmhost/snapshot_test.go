package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSnapshotBuildReport: a bad tool is skipped and the report printed;
// --strict refuses it; info shows the stored report; --profile is checked.
func TestSnapshotBuildReport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "corpus.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(`{"_id":"get_weather","title":"Get weather","text":"Weather for a city","metadata":{"category":"weather"}}`+"\n"+
		`{"_id":"bad","text":"Bad","parameters":{"type":"object","properties":{"a":7}}}`+"\n"+
		`{"_id":"bad","text":"Again"}`+"\n"), 0o644))
	out := filepath.Join(dir, "x.snap")

	code, _, stderr := runCLI(t, "", "snapshot", "build", "--engine", "native", "--format", "beir", "--in", in, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "import (beir): 3 tools read, 2 imported, 1 skipped\n", "a malformed property costs the property; a name seen twice, the tool")
	require.Contains(t, stderr, `skipped line 3 (_id "bad"): `)
	require.Contains(t, stderr, `repaired parameters.properties on 1 (tools kept; --strict refuses them), first: line 2 (_id "bad"): property "a": want a schema object, got a number; read without one`)
	require.Contains(t, stderr, "metadata.category 1 → keywords")

	code, stdout, stderr := runCLI(t, "", "info", "--engine", "native", "--snapshot", out)
	require.Equal(t, 0, code, stderr)
	var info struct {
		Import struct {
			ToolsSkipped int `json:"tools_skipped"`
			Fields       []struct {
				Name string `json:"name"`
				Used int    `json:"used"`
			} `json:"fields"`
		} `json:"import"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	require.Equal(t, 1, info.Import.ToolsSkipped)
	require.Contains(t, info.Import.Fields, struct {
		Name string `json:"name"`
		Used int    `json:"used"`
	}{"metadata.category", 1})

	code, _, stderr = runCLI(t, "", "snapshot", "build", "--strict", "--format", "beir", "--in", in, "-o", out)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `line 2 (_id \"bad\"): field \"parameters\"`)

	code, _, stderr = runCLI(t, "", "snapshot", "build", "--profile", "nope", "--format", "beir", "--in", in, "-o", out)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `unknown profile \"nope\" (known: `)

	code, _, stderr = runCLI(t, "", "snapshot", "build", "--product", "weather", "--format", "beir", "--in", in, "-o", out)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr = runCLI(t, "", "search", "--engine", "native", "--snapshot", out, "--query", "weather for a city")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "weather.get_weather", "--product names the product of tools that had none")
}
