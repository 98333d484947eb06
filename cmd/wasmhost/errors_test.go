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

// requireErrorLine checks the README's error contract: stderr is one
// compact {"error":{"category","code","message","reason"}} line whose code
// is the exit code, with the given reason.
func requireErrorLine(t *testing.T, stderr string, code int, reason string) {
	t.Helper()
	require.True(t, strings.HasSuffix(stderr, "\n"), "stderr %q", stderr)
	line := strings.TrimSuffix(stderr, "\n")
	require.NotContains(t, line, "\n", "more than one line: %q", stderr)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, []byte(line)), "not JSON: %q", stderr)
	require.Equal(t, line, compact.String(), "not compact")
	var doc struct {
		Error *struct {
			Category string `json:"category"`
			Code     int    `json:"code"`
			Message  string `json:"message"`
			Reason   string `json:"reason"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &doc))
	require.NotNil(t, doc.Error, line)
	require.Equal(t, code, doc.Error.Code, line)
	require.Equal(t, reason, doc.Error.Reason, line)
	require.Equal(t, map[int]string{3: "validation", 5: "internal", 6: "discovery"}[code], doc.Error.Category, line)
	require.NotEmpty(t, doc.Error.Message, line)
}

// TestEveryErrorIsOneJSONLine: each way a command fails prints one compact
// error line with the documented exit code (before: "open snapshot", "read
// catalog" and "import catalog" failures were plain text with exit 1, and
// other errors were pretty-printed over several lines).
func TestEveryErrorIsOneJSONLine(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.snap")
	require.NoError(t, os.WriteFile(garbage, []byte("not a snapshot at all"), 0o644))
	badCatalog := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badCatalog, []byte(`{"tools": 42}`), 0o644))
	goodHashes := searchHashes(t)
	for _, c := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		reason string
		report bool // stderr starts with the import report
	}{
		{"validation from the engine", "", []string{"search", "--query", "q", "--limit", "99"}, 3, "invalid_limit", false},
		{"discovery from the engine", "", []string{"inspect", "--path", "chat.query_msg_read_status",
			"--expected-source-hash", "sha256:00", "--expected-surface-hash", goodHashes[1]}, 6, "catalog_changed", false},
		{"open snapshot in the module", "", []string{"search", "--snapshot", garbage, "--query", "q"}, 3, "invalid_snapshot", false},
		{"open snapshot natively", "", []string{"search", "--engine", "native", "--snapshot", garbage, "--query", "q"}, 3, "invalid_snapshot", false},
		{"open snapshot for info", "", []string{"info", "--snapshot", garbage}, 3, "invalid_snapshot", false},
		{"open snapshot for inspect", "", []string{"inspect", "--snapshot", garbage, "--path", "x"}, 3, "invalid_snapshot", false},
		{"read snapshot", "", []string{"search", "--snapshot", filepath.Join(dir, "missing.snap"), "--query", "q"}, 3, "read_snapshot_failed", false},
		{"read catalog", "", []string{"search", "--catalog", filepath.Join(dir, "missing.json"), "--format", "mcp", "--query", "q"}, 3, "read_catalog_failed", false},
		{"import catalog", "", []string{"search", "--catalog", badCatalog, "--format", "mcp", "--query", "q"}, 3, "invalid_catalog", false},
		{"import catalog in the module", "", []string{"search", "--catalog", badCatalog, "--format", "mcp", "--build-engine", "wasm", "--query", "q"}, 3, "invalid_catalog", false},
		{"snapshot build: read catalog", "", []string{"snapshot", "build", "--format", "mcp", "--in", filepath.Join(dir, "missing.json"), "-o", filepath.Join(dir, "o.snap")}, 3, "read_catalog_failed", false},
		{"snapshot build: import catalog", "", []string{"snapshot", "build", "--format", "mcp", "--in", badCatalog, "-o", filepath.Join(dir, "o.snap")}, 3, "invalid_catalog", false},
		{"snapshot build: write", "", []string{"snapshot", "build", "--format", "dws", "--in", filepath.Join("..", "..", "testdata", "dws", "catalog.tar.gz"),
			"-o", filepath.Join(dir, "no", "such", "dir", "o.snap")}, 3, "write_snapshot_failed", true},
		{"unknown engine", "", []string{"info", "--engine", "quantum"}, 3, "invalid_engine", false},
		{"ambiguous source", "", []string{"search", "--snapshot", garbage, "--catalog", badCatalog, "--query", "q"}, 3, "ambiguous_input", false},
		{"module out of memory", "", []string{"search", "--memory-limit", "1", "--cache-dir", "", "--query", "q"}, 5, "host_failure", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, c.stdin, c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Empty(t, stdout)
			if c.report {
				stderr = stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
			}
			requireErrorLine(t, stderr, c.code, c.reason)
		})
	}
}

// searchHashes returns the built-in catalog's source and surface hashes.
func searchHashes(t *testing.T) [2]string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "", "search", "--engine", "native", "--query", "q", "--limit", "1")
	require.Equal(t, 0, code, stderr)
	var found struct {
		Catalog struct {
			SourceHash  string `json:"source_hash"`
			SurfaceHash string `json:"surface_hash"`
		} `json:"catalog"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &found))
	return [2]string{found.Catalog.SourceHash, found.Catalog.SurfaceHash}
}

// TestEmptySnapshotPathIsRefused: --snapshot "" (an unset variable in a
// script) used to serve the built-in DWS catalog.
func TestEmptySnapshotPathIsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"search", "--snapshot", "", "--query", "q"},
		{"search", "--snapshot=", "--engine", "native", "--query", "q"},
		{"search", "--snapshot", "", "--batch"},
		{"inspect", "--snapshot", "", "--path", "chat.query_msg_read_status"},
		{"info", "--snapshot", ""},
		{"eval", "--snapshot", "", "--dws-proxy"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		require.Empty(t, stdout, args)
		require.Equal(t, 3, code, "%v: %s", args, stderr)
		requireErrorLine(t, stderr, 3, "invalid_snapshot_path")
	}
	// Without the flag the built-in snapshot is still served.
	code, _, stderr := runCLI(t, "", "search", "--engine", "native", "--query", "q")
	require.Equal(t, 0, code, stderr)
}

// TestSnapshotReadIsBounded: /dev/zero (which exhausted memory), a
// directory, and a file larger than the cap are refused before reading.
func TestSnapshotReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.snap")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxSnapshotFileBytes+1)) // sparse: costs no disk
	require.NoError(t, f.Close())
	cases := []struct {
		path, reason, says string
	}{
		{"/dev/zero", "read_snapshot_failed", "character device"},
		{dir, "read_snapshot_failed", "directory"},
		{huge, "snapshot_too_large", "larger than"},
	}
	cases = append(cases, fifoCase(t, dir)...)
	for _, c := range cases {
		for _, engine := range []string{"native", "wasm"} {
			code, _, stderr := runCLI(t, "", "search", "--engine", engine, "--snapshot", c.path, "--query", "q")
			require.Equal(t, 3, code, "%s: %s", c.path, stderr)
			requireErrorLine(t, stderr, 3, c.reason)
			require.Contains(t, stderr, c.says)
		}
	}
	// A good snapshot file is still read.
	good := filepath.Join(dir, "dws.snap")
	require.NoError(t, os.WriteFile(good, fixtures.DWSSnapshot, 0o644))
	code, _, stderr := runCLI(t, "", "search", "--engine", "native", "--snapshot", good, "--query", "q")
	require.Equal(t, 0, code, stderr)
}

// TestCatalogReadIsBounded: --catalog (search, eval) and --in (snapshot
// build) are read as --snapshot is: a device, a FIFO or a file over the cap
// is refused before it is read, with a typed error line (they used to be
// read whole: /dev/zero until memory ran out).
func TestCatalogReadIsBounded(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxSnapshotFileBytes+1)) // sparse: costs no disk
	require.NoError(t, f.Close())
	cases := []struct{ path, reason, says string }{
		{"/dev/zero", "read_catalog_failed", "character device"},
		{huge, "catalog_too_large", "larger than"},
		{filepath.Join(dir, "missing.json"), "read_catalog_failed", "no such file"},
	}
	for _, c := range fifoCase(t, dir) {
		cases = append(cases, struct{ path, reason, says string }{c.path, "read_catalog_failed", c.says})
	}
	queries := filepath.Join(dir, "q.jsonl")
	require.NoError(t, os.WriteFile(queries, []byte(`{"_id":"1","text":"q"}`+"\n"), 0o644))
	for _, c := range cases {
		for _, args := range [][]string{
			{"search", "--catalog", c.path, "--format", "mcp", "--query", "q"},
			{"snapshot", "build", "--in", c.path, "--format", "mcp", "-o", filepath.Join(dir, "o.snap")},
			{"snapshot", "build", "--engine", "wasm", "--in", c.path, "--format", "mcp", "-o", filepath.Join(dir, "o.snap")},
			{"eval", "--catalog", c.path, "--format", "mcp", "--queries", queries, "--qrels", queries},
		} {
			code, _, stderr := runCLI(t, "", args...)
			require.Equal(t, 3, code, "%v: %s", args, stderr)
			requireErrorLine(t, stderr, 3, c.reason)
			require.Contains(t, stderr, c.says, args)
		}
	}
}

// TestEvalErrorsAreOneJSONLine: eval's failures print as every command's do
// (they were plain text with exit 1); bad flags stay usage text, exit 2.
func TestEvalErrorsAreOneJSONLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"x":1}`+"\n"), 0o644))
	corpus := filepath.Join("..", "..", "testdata", "bench", "metatool", "sample.jsonl")
	for _, c := range []struct {
		args   []string
		reason string
	}{
		{[]string{"eval", "--corpus", corpus, "--queries", filepath.Join(dir, "missing.jsonl"), "--qrels", bad}, "read_queries_failed"},
		{[]string{"eval", "--corpus", corpus, "--queries", bad, "--qrels", bad}, "invalid_queries"},
		{[]string{"eval", "--snapshot", filepath.Join(dir, "missing.snap"), "--dws-proxy"}, "read_snapshot_failed"},
	} {
		code, stdout, stderr := runCLI(t, "", c.args...)
		require.Empty(t, stdout, c.args)
		require.Equal(t, 3, code, "%v: %s", c.args, stderr)
		requireErrorLine(t, stderr, 3, c.reason)
	}
	code, _, stderr := runCLI(t, "", "eval", "--k", "x", "--dws-proxy")
	require.Equal(t, 2, code, stderr)
}

// TestBatchAnswersBlankLines: output line n answers input line n, blank
// lines included (they used to be dropped).
func TestBatchAnswersBlankLines(t *testing.T) {
	request := `{"version":"tool-search.v1","query":"chat.query_msg_read_status"}`
	for _, input := range []string{
		"\n",
		"\n\n" + request + "\n",
		request + "\n\n" + request,
		request + "\r\n\r\n  \n" + request + "\n",
	} {
		for _, engine := range []string{"native", "wasm"} {
			code, stdout, stderr := runCLI(t, input, "search", "--batch", "--engine", engine)
			require.Equal(t, 0, code, stderr)
			in := strings.Split(strings.TrimSuffix(input, "\n"), "\n")
			out := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			require.Len(t, out, len(in), "%q", input)
			for i := range in {
				if strings.TrimSpace(in[i]) == "" {
					require.Contains(t, out[i], `"reason":"invalid_request_json"`)
					requireErrorLine(t, out[i]+"\n", 3, "invalid_request_json")
				} else {
					require.Contains(t, out[i], `"strategy":"exact_guard"`)
				}
			}
		}
	}
	code, stdout, _ := runCLI(t, "", "search", "--batch")
	require.Equal(t, 0, code)
	require.Empty(t, stdout, "no input line, no answer")
}

// TestVersionAndHelp: --version and version print the module's version
// JSON and exit 0; -h on a command exits 0 (it exited 2).
func TestVersionAndHelp(t *testing.T) {
	var first string
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		code, stdout, stderr := runCLI(t, "", args...)
		require.Equal(t, 0, code, stderr)
		var v struct {
			ABI            int      `json:"abi"`
			SnapshotFormat int      `json:"snapshot_format"`
			Profiles       []string `json:"profiles"`
			Formats        []string `json:"formats"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &v), stdout)
		require.Equal(t, 1, v.ABI)
		require.Positive(t, v.SnapshotFormat)
		require.Contains(t, v.Profiles, "dws-v1")
		require.Contains(t, v.Formats, "mcp")
		if first == "" {
			first = stdout
		}
		require.Equal(t, first, stdout)
	}
	for _, args := range [][]string{{"search", "-h"}, {"search", "--help"}, {"inspect", "-h"}, {"info", "-h"},
		{"snapshot", "build", "-h"}, {"eval", "-h"}, {"version", "-h"}} {
		code, _, stderr := runCLI(t, "", args...)
		require.Equal(t, 0, code, "%v", args)
		require.Contains(t, stderr, "-", args) // the flags were listed
	}
	code, _, _ := runCLI(t, "", "search", "--no-such-flag")
	require.Equal(t, 2, code)
}

// TestCorruptedModuleCache: every file of a --cache-dir truncated or with
// bytes flipped used to fail every later run; the run now succeeds, says so
// once on stderr, and the next run finds a good entry again.
func TestCorruptedModuleCache(t *testing.T) {
	for _, corrupt := range []func([]byte) []byte{
		func(data []byte) []byte { return data[:len(data)/3] },
		func(data []byte) []byte {
			for i := len(data) / 4; i < len(data); i += len(data) / 9 {
				data[i] ^= 0xff
			}
			return data
		},
	} {
		dir := t.TempDir()
		args := []string{"search", "--cache-dir", dir, "--query", "chat.query_msg_read_status"}
		code, want, stderr := runCLI(t, "", args...)
		require.Equal(t, 0, code, stderr)
		files := cacheFiles(t, dir)
		require.NotEmpty(t, files)
		for _, path := range files {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, corrupt(data), 0o644))
		}
		code, got, stderr := runCLI(t, "", args...)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want, got)
		require.Equal(t, 1, strings.Count(stderr, "compiled-module cache"), stderr)
		code, got, stderr = runCLI(t, "", args...)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, want, got)
		require.Empty(t, stderr, "the bad entry was replaced")
		require.NotEmpty(t, cacheFiles(t, dir))
	}
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return err
	}))
	return files
}
