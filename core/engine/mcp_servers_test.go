package engine_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestRealMCPServers searches the tools of two real MCP servers (GitHub and
// Slack, as their npm packages list them) the way a user who brings them
// would. top1 must rank first; in lists tools that must be in the top 3
// (queries whose right tool shares every word with a sibling: "open" is
// also a pull request state in list_pull_requests' parameters).
func TestRealMCPServers(t *testing.T) {
	for _, p := range []*profile.Profile{profile.GenericV3, profile.GenericV2} {
		t.Run(p.Name, func(t *testing.T) { realMCPServers(t, p) })
	}
}

func realMCPServers(t *testing.T, p *profile.Profile) {
	name := p.Name
	if p == profile.GenericV3 {
		name = "" // the format's default
	}
	snap, _, err := compile.FromCatalog("mcp", fixtures.GitHubSlackMCP, importer.Options{Profile: name})
	require.NoError(t, err)
	e, werr := compile.Open(snap)
	require.Nil(t, werr)
	require.Equal(t, p, e.Profile())

	cases := []struct {
		query string
		top1  string
		in    []string // within the top 3
	}{
		// generic-v2 has no named-product lift: with it (generic-v1),
		// slack_post_message was lifted above slack_list_channels.
		{query: "list slack channels", top1: "slack.slack_list_channels"},
		{query: "post a message to a channel", top1: "slack.slack_post_message"},
		{query: "add an emoji reaction to a message", top1: "slack.slack_add_reaction"},
		{query: "merge the PR", top1: "github.merge_pull_request"},
		{query: "show me the files changed in a pull request", top1: "github.get_pull_request_files"},
		{query: "find issues about login bugs", top1: "github.search_issues"},
		{query: "fork a repository to my account", top1: "github.fork_repository"},
		{query: "create_pull_request", top1: "github.create_pull_request"},
		{query: "open a pull request", in: []string{"github.create_pull_request"}},
		{query: "what changed in PR 12", in: []string{"github.get_pull_request_files"}},
		{query: "list files in a folder", in: []string{"github.get_file_contents"}},
	}
	for _, c := range cases {
		response, werr := e.Search(wire.SearchRequest{Version: wire.SearchVersion, Query: c.query})
		require.Nil(t, werr, c.query)
		require.NotEmpty(t, response.Candidates, c.query)
		require.False(t, response.WeakMatch, "%q: the tool exists, so no weak-match hint", c.query)
		var paths []string
		for _, candidate := range response.Candidates {
			paths = append(paths, candidate.CanonicalPath)
		}
		if c.top1 != "" {
			require.Equal(t, c.top1, paths[0], "%q ranked %v", c.query, paths)
		}
		for _, want := range c.in {
			require.Contains(t, paths[:min(3, len(paths))], want, "%q ranked %v", c.query, paths)
		}
	}

	// The same catalog under generic-v1 shows what the lift did.
	cat, _, err := importer.Import("mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	v1Snap, err := compile.Snapshot(cat, profile.GenericV1)
	require.NoError(t, err)
	v1, werr := compile.Open(v1Snap)
	require.Nil(t, werr)
	response, werr := v1.Search(wire.SearchRequest{Version: wire.SearchVersion, Query: "list slack channels"})
	require.Nil(t, werr)
	i := slices.IndexFunc(response.Candidates, func(c wire.ToolReference) bool { return c.CanonicalPath == "slack.slack_list_channels" })
	require.NotEqual(t, 0, i, "generic-v1 lifts the other slack tools above slack_list_channels (here out of the top 5)")
}
