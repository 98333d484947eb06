package lint_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/lint"
)

// TestRealCatalogTables: the lint tables of the repository's real catalogs
// (the GitHub + Slack MCP servers, the DWS catalog) are reviewed files,
// shown in docs/CATALOGS.md; a change to lint or to ranking that changes
// them is a diff to read (go test ./core/lint -run TestRealCatalogTables
// -update rewrites them).
func TestRealCatalogTables(t *testing.T) {
	for _, c := range []struct {
		source catalogSource
		file   string
	}{
		{catalogSource{"mcp/github-slack", "mcp", "../../testdata/mcp/github-slack.json"}, "../../testdata/lint/github-slack.txt"},
		{catalogSource{"dws", "dws", ""}, "../../testdata/lint/dws.txt"},
	} {
		r, err := lint.Run(openSource(t, c.source), lint.Options{})
		require.NoError(t, err)
		var b strings.Builder
		require.NoError(t, r.WriteTable(&b))
		// Every unreachable tool names the tools that win, and every pair
		// the words that separate it or that none do.
		for _, f := range r.Findings {
			switch f.Check {
			case lint.CheckUnreachable:
				for _, q := range f.Queries {
					require.NotEmpty(t, q.Winners, "%s: %q", f.Tool, q.Query)
				}
			case lint.CheckConfusable:
				require.True(t, len(f.OnlyTool)+len(f.OnlyOther) > 0 || strings.Contains(f.Message, "nothing but their names"), f.Tool)
			}
		}
		if *update {
			require.NoError(t, os.WriteFile(c.file, []byte(b.String()), 0o644))
		}
		want, err := os.ReadFile(c.file)
		require.NoError(t, err)
		require.Equal(t, string(want), b.String(), "stale %s: go test ./core/lint -run TestRealCatalogTables -update", c.file)
	}
}
