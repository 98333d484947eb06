package release_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/internal/release"
)

// Every package the project ships carries the one release number, and the
// changelog's newest released section names it: a release bumps them
// together (CHANGELOG.md, "Versions").
func TestEveryPackageCarriesTheRelease(t *testing.T) {
	require.Regexp(t, `^\d+\.\d+\.\d+$`, release.Version)
	root := filepath.Join("..", "..")
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		return string(data)
	}
	var npm struct {
		Version string `json:"version"`
		License string `json:"license"`
	}
	require.NoError(t, json.Unmarshal([]byte(read("bindings/js/package.json")), &npm))
	require.Equal(t, release.Version, npm.Version, "bindings/js/package.json")
	require.Equal(t, "Apache-2.0", npm.License, "bindings/js/package.json: an SPDX identifier")

	for _, c := range []struct{ file, pattern string }{
		{"bindings/python/pyproject.toml", `(?m)^version = "([^"]+)"$`},
		{"bindings/python/src/toolsift/__init__.py", `(?m)^__version__ = "([^"]+)"$`},
		{"bindings/js/index.js", `(?m)^export const VERSION = "([^"]+)";$`},
		{"CHANGELOG.md", `(?m)^## \[(\d+\.\d+\.\d+)\]`},
	} {
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(read(c.file))
		require.NotNil(t, m, "%s: no version matching %s", c.file, c.pattern)
		require.Equal(t, release.Version, m[1], c.file)
	}
	require.Equal(t, release.Version, gateway.Version, "gateway.Version (the MCP server's implementation version)")
}
