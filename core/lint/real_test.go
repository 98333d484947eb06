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

// TestCatalogsDocShowsTheTables: docs/CATALOGS.md shows the GitHub + Slack
// table whole and blocks of the DWS one as the golden files hold them, so
// the documented output cannot go stale.
func TestCatalogsDocShowsTheTables(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CATALOGS.md")
	require.NoError(t, err)
	section := string(doc)[strings.Index(string(doc), "## Linting a catalog"):]
	var shown []string
	for rest := section; ; {
		i := strings.Index(rest, "```text\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("```text\n"):]
		end := strings.Index(rest, "```")
		shown = append(shown, rest[:end])
		rest = rest[end+3:]
	}
	require.Len(t, shown, 2)
	githubSlack, err := os.ReadFile("../../testdata/lint/github-slack.txt")
	require.NoError(t, err)
	require.Equal(t, string(githubSlack), shown[0])
	dws, err := os.ReadFile("../../testdata/lint/dws.txt")
	require.NoError(t, err)
	for _, block := range strings.Split(strings.TrimSpace(shown[1]), "\n\n") {
		require.Contains(t, string(dws), block)
	}
}
