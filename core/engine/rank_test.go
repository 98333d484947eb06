package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestRankMatchesSearch: Rank gives the candidates Search gives, in order,
// for random queries of the DWS catalog (dws-v1: named-product lift,
// avoid_when demotion) and of the GitHub + Slack MCP tools (generic-v3:
// BM25F's top-k path, deprecation demotion), names included.
func TestRankMatchesSearch(t *testing.T) {
	dws, werr := compile.Open(fixtures.DWSSnapshot)
	require.Nil(t, werr)
	snap, _, err := compile.FromCatalog("mcp", fixtures.GitHubSlackMCP, importer.Options{})
	require.NoError(t, err)
	mcp, werr := compile.Open(snap)
	require.Nil(t, werr)
	generic, err := fixtures.GenericMCPCatalog()
	require.NoError(t, err)
	snap, _, err = compile.FromCatalog("mcp", generic, importer.Options{})
	require.NoError(t, err)
	live, werr := compile.Open(snap)
	require.Nil(t, werr)
	for name, e := range map[string]*engine.Engine{"dws": dws, "github-slack": mcp, "livemcpbench": live} {
		t.Run(name, func(t *testing.T) {
			requests, err := fixtures.RandomSearchRequests(live.Catalog(), 300, 7)
			if name == "dws" {
				requests, err = fixtures.RandomSearchRequests(dws.Catalog(), 300, 7)
			}
			require.NoError(t, err)
			queries := []string{"create_pull_request", "chat.send_message", "slack_post_message", "发送消息", "list issues"}
			for _, body := range requests {
				var r struct {
					Query string `json:"query"`
				}
				require.NoError(t, json.Unmarshal(body, &r))
				queries = append(queries, r.Query)
			}
			for _, q := range queries {
				for _, limit := range []int{3, 20} {
					response, serr := e.Search(wire.SearchRequest{Version: wire.SearchVersion, Query: q, Limit: limit})
					docs, exact, rerr := e.Rank(q, limit)
					if serr != nil {
						require.Equal(t, wire.ErrorOf(serr), wire.ErrorOf(rerr), q)
						continue
					}
					require.NoError(t, rerr, q)
					if response.Truncated {
						continue // the byte budget cut candidates Rank keeps
					}
					var want, got []string
					for _, c := range response.Candidates {
						want = append(want, c.CanonicalPath)
					}
					for _, d := range docs {
						got = append(got, e.Tools()[d].Identity.CanonicalPath)
					}
					require.Equal(t, want, got, q)
					require.Equal(t, response.Strategy == wire.StrategyExactGuard || response.Strategy == wire.StrategyExactFiltered, exact, q)
				}
			}
		})
	}
}
