package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/fixtures"
)

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestSearchFlagsAndRequestJSONAgree(t *testing.T) {
	code, byFlags, stderr := runCLI(t, "", "search", "--engine", "native", "--query", "查询群消息已读状态", "--product", "chat,ding", "--effect", "read")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.HasSuffix(byFlags, "}\n"))
	require.Contains(t, byFlags, `"canonical_path":"chat.query_msg_read_status"`)
	code, byJSON, stderr := runCLI(t, `{"version":"tool-search.v1","query":"查询群消息已读状态","product_ids":["ding","chat"],"effects":["read"]}`,
		"search", "--request-json", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, byFlags, byJSON)
}

func TestSearchBatch(t *testing.T) {
	input := strings.Join([]string{
		`{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`,
		`{"version":"tool-search.v1","query":"q","limit":99}`,
		``,
		`not json`,
		`{"version":"tool-search.v1","subqueries":["以当前用户身份给群聊发送本地文件","查询指定消息的已读状态和人员"]}`,
		`{"version":"tool-search.v1","query":"` + strings.Repeat("长", 30000) + `"}`,
		`{"version":"tool-search.v1","query":"no trailing newline"}`,
	}, "\n")
	code, stdout, stderr := runCLI(t, input, "search", "--batch")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 7, "one answer per request line, blank ones too")
	reasons := []string{"", "invalid_limit", "invalid_request_json", "invalid_request_json", "", "request_too_large", ""}
	for i, line := range lines {
		var answer struct {
			Strategy string `json:"strategy"`
			Error    *struct {
				Reason string `json:"reason"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &answer), line)
		if reasons[i] == "" {
			require.Nil(t, answer.Error, line)
			require.NotEmpty(t, answer.Strategy)
		} else {
			require.NotNil(t, answer.Error, line)
			require.Equal(t, reasons[i], answer.Error.Reason)
		}
	}
	require.Contains(t, lines[0], `"strategy":"exact_guard"`)
	require.Contains(t, lines[4], `"strategy":"decomposed_round_robin"`)
}

func TestSearchErrorsAndExitCodes(t *testing.T) {
	code, _, stderr := runCLI(t, "", "search", "--query", "q", "--limit", "21")
	require.Equal(t, 3, code)
	requireErrorLine(t, stderr, 3, "invalid_limit")
	code, _, stderr = runCLI(t, "{}", "search", "--request-json", "-", "--query", "q")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, "ambiguous_input")
	code, _, stderr = runCLI(t, "", "search", "--request-json", "file.json")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, "invalid_transport")
	code, _, stderr = runCLI(t, strings.Repeat(" ", 70000), "search", "--request-json", "-")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, "request_too_large")
	code, _, stderr = runCLI(t, "", "search", "--engine", "quantum", "--query", "q")
	require.Equal(t, 3, code)
	requireErrorLine(t, stderr, 3, "invalid_engine")
	code, _, stderr = runCLI(t, "", "search", "--snapshot", "/nonexistent.snap", "--query", "q")
	require.Equal(t, 3, code)
	requireErrorLine(t, stderr, 3, "read_snapshot_failed")
	code, _, _ = runCLI(t, "", "frobnicate")
	require.Equal(t, 2, code)
}

func TestInspectRoundTrip(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "search", "--query", "查询群消息已读状态", "--limit", "1")
	require.Equal(t, 0, code, stderr)
	var found struct {
		Catalog struct {
			SourceHash  string `json:"source_hash"`
			SurfaceHash string `json:"surface_hash"`
		} `json:"catalog"`
		Candidates []struct {
			CanonicalPath string `json:"canonical_path"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &found))
	request, _ := json.Marshal(map[string]string{
		"version": "schema-inspect.v1", "canonical_path": found.Candidates[0].CanonicalPath,
		"expected_source_hash": found.Catalog.SourceHash, "expected_surface_hash": found.Catalog.SurfaceHash,
	})
	code, byJSON, stderr := runCLI(t, string(request), "inspect", "--request-json", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, byJSON, `"version": "schema-inspect.v1"`)
	require.Contains(t, byJSON, `"parameters": {`)
	code, byFlags, _ := runCLI(t, "", "inspect", "--path", found.Candidates[0].CanonicalPath,
		"--expected-source-hash", found.Catalog.SourceHash, "--expected-surface-hash", found.Catalog.SurfaceHash)
	require.Equal(t, 0, code)
	require.Equal(t, byJSON, byFlags)

	code, _, stderr = runCLI(t, "", "inspect", "--path", "chat.query_msg_read_status",
		"--expected-source-hash", "sha256:00", "--expected-surface-hash", found.Catalog.SurfaceHash)
	require.Equal(t, 6, code)
	require.Contains(t, stderr, "catalog_changed")
	code, _, stderr = runCLI(t, "", "inspect", "--path", "chat.query_msg_read_status", "--expected-source-hash", "x")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, "incomplete_catalog_version")
}

// TestEnginesAgreeOnBatch sends the reference's misc, workflow and intent
// requests through `search --batch` on both engines: every line identical.
func TestEnginesAgreeOnBatch(t *testing.T) {
	var input strings.Builder
	lines := 0
	for _, name := range []string{"misc.jsonl.gz", "workflows.jsonl.gz", "intent_use_when.jsonl.gz"} {
		data, err := fixtures.ReadGolden(name)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var golden struct {
				Request map[string]any `json:"request"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &golden))
			golden.Request["version"] = "tool-search.v1"
			request, _ := json.Marshal(golden.Request)
			input.Write(request)
			input.WriteByte('\n')
			lines++
		}
	}
	code, native, stderr := runCLI(t, input.String(), "search", "--batch", "--engine", "native")
	require.Equal(t, 0, code, stderr)
	code, wasm, stderr := runCLI(t, input.String(), "search", "--batch", "--engine", "wasm")
	require.Equal(t, 0, code, stderr)
	nativeLines := strings.Split(strings.TrimSuffix(native, "\n"), "\n")
	require.Len(t, nativeLines, lines)
	require.Equal(t, nativeLines, strings.Split(strings.TrimSuffix(wasm, "\n"), "\n"))
	t.Logf("%d requests, every line identical across engines", lines)
}

// TestSnapshotBuildIsTheSameOnBothEngines: the module and the Go core build
// byte-identical snapshots, equal to the committed default.
func TestSnapshotBuildIsTheSameOnBothEngines(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join("..", "..", "testdata", "dws", "catalog.tar.gz")
	for _, engine := range []string{"native", "wasm"} {
		out := filepath.Join(dir, engine+".snap")
		code, _, stderr := runCLI(t, "", "snapshot", "build", "--engine", engine, "--format", "dws", "--in", catalog, "-o", out)
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, bytes.Equal(fixtures.DWSSnapshot, got), "%s engine built different bytes", engine)
	}
}

func TestInfo(t *testing.T) {
	for _, engine := range []string{"native", "wasm"} {
		code, stdout, stderr := runCLI(t, "", "info", "--engine", engine)
		require.Equal(t, 0, code, stderr)
		var info map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &info))
		require.Equal(t, float64(1122), info["tool_count"])
		require.Equal(t, "dws-v1", info["profile"])
		require.Equal(t, engine, info["engine"])
	}
}
