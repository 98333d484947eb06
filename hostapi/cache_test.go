package hostapi

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestCorruptedCompilationCache: a compilation cache directory whose files
// were truncated or had bytes flipped used to fail every later Open
// ("compilationcache: unexpected EOF", "checksum mismatch"); the module is
// now compiled without the cache, the engine answers, and the handler hears
// of the cache's failure once.
func TestCorruptedCompilationCache(t *testing.T) {
	ctx := context.Background()
	good := t.TempDir()
	cache, err := wazero.NewCompilationCacheWithDir(good)
	require.NoError(t, err)
	_, err = ModuleVersion(ctx, WithCompilationCache(cache))
	require.NoError(t, err)
	require.NoError(t, cache.Close(ctx))
	require.NotEmpty(t, cacheFiles(t, good), "the cache wrote no file")

	for _, c := range []struct {
		name    string
		corrupt func(data []byte) []byte
	}{
		{"truncated", func(data []byte) []byte { return data[:len(data)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"flipped bytes", func(data []byte) []byte {
			for i := len(data) / 3; i < len(data); i += len(data) / 7 {
				data[i] ^= 0x5a
			}
			return data
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS(good)))
			for _, path := range cacheFiles(t, dir) {
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, c.corrupt(data), 0o644))
			}
			cache, err := wazero.NewCompilationCacheWithDir(dir)
			require.NoError(t, err)
			defer cache.Close(ctx)
			var failures []error
			e, err := Open(ctx, fixtures.DWSSnapshot, WithCompilationCache(cache),
				WithCacheErrorHandler(func(err error) { failures = append(failures, err) }))
			require.NoError(t, err)
			defer e.Close(ctx)
			_, err = e.Search(ctx, []byte(chineseQuery))
			require.NoError(t, err)
			require.Len(t, failures, 1)
			require.ErrorContains(t, failures[0], "compilationcache")
		})
	}
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return err
	}))
	return files
}

// TestCompilationWorkersGiveTheSameAnswers: the module compiled on one
// goroutine and on four (WithCompilationWorkers; no cache, so each engine
// compiles its own) answers every mixed request with the same bytes as the
// native engine.
func TestCompilationWorkersGiveTheSameAnswers(t *testing.T) {
	ctx := context.Background()
	requests := mixedRequests(t)
	native := nativeEngine(t)
	for _, workers := range []int{1, 4} {
		e := openDWS(t, WithCompilationCache(nil), WithCompilationWorkers(workers), WithMaxInstances(1))
		for _, r := range requests {
			got := wasmAnswer(e.Search(ctx, r))
			want := nativeAnswer(native.SearchJSON(r))
			require.Equal(t, want, got, "%d workers, request %s", workers, r)
		}
	}
}
