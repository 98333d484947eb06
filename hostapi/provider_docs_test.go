package hostapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every ```go runnable block of docs/INTEGRATIONS.md is a program that runs
// from the repository root and prints what its "// prints:" line says.
func TestIntegrationsGoSnippets(t *testing.T) {
	requireProviderExports(t)
	if testing.Short() {
		t.Skip("compiles and runs programs")
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "INTEGRATIONS.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go runnable\n(.*?)```").FindAllSubmatch(doc, -1)
	require.NotEmpty(t, blocks)
	for i, b := range blocks {
		code := string(b[1])
		_, want, ok := strings.Cut(code, "// prints: ")
		require.True(t, ok, "snippet %d has no // prints: line", i+1)
		want, _, _ = strings.Cut(want, "\n")
		// Inside the module (a directory go's ./... skips), so that it
		// imports this package.
		dir, err := os.MkdirTemp(root, ".snippet-")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(code), 0o644))
		cmd := exec.Command("go", "run", filepath.Join(dir, "main.go"))
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "snippet %d: %s", i+1, out)
		require.Equal(t, want, strings.TrimSpace(string(out)), "snippet %d", i+1)
	}
}
