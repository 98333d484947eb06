package evalset

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/internal/fixtures"
)

// A stored snapshot is served as it is unless a profile or the proxy's
// hold-out asks for a new index; dws-v1 does not index use_when, so the
// DWS snapshot is served as it is even for the proxy.
func TestServeStoredSnapshot(t *testing.T) {
	c, err := Decode(fixtures.DWSSnapshot)
	require.NoError(t, err)
	require.Empty(t, c.Skipped())
	tools := c.Tools()
	require.Len(t, tools, 1122)
	withUseWhen := 0
	for _, tool := range tools {
		if len(tool.UseWhen) > 0 {
			withUseWhen++
		}
	}
	require.Positive(t, withUseWhen)

	for _, holdOut := range []bool{false, true} {
		snap, heldOut, built, err := c.Serve("", holdOut)
		require.NoError(t, err)
		require.False(t, heldOut)
		require.False(t, built)
		require.True(t, bytes.Equal(fixtures.DWSSnapshot, snap))
	}

	// generic-v2 indexes use_when: for the proxy its index leaves them out.
	for _, holdOut := range []bool{false, true} {
		snap, heldOut, built, err := c.Serve("generic-v2", holdOut)
		require.NoError(t, err)
		require.True(t, built)
		require.Equal(t, holdOut, heldOut)
		body, err := snapshot.Decode(snap)
		require.NoError(t, err)
		require.Equal(t, "generic-v2", body.Profile)
		sentences := 0
		for p := range body.Catalog.Products {
			for _, tool := range body.Catalog.Products[p].Tools {
				sentences += len(tool.Selection.UseWhen)
			}
		}
		require.Equal(t, holdOut, sentences == 0, "held out: %v, %d use_when sentences served", holdOut, sentences)
	}
	require.Len(t, c.Tools(), 1122, "holding out leaves the catalog read by the evaluation whole")
	require.Equal(t, withUseWhen, countUseWhen(c.Tools()))

	_, _, _, err = c.Serve("nope", false)
	require.ErrorContains(t, err, `unknown profile "nope"`)
	_, err = Decode([]byte("garbage"))
	var werr *wire.Error
	require.ErrorAs(t, err, &werr)
	require.Equal(t, "invalid_snapshot", werr.Reason)
}

func countUseWhen(tools []Tool) int {
	n := 0
	for _, tool := range tools {
		if len(tool.UseWhen) > 0 {
			n++
		}
	}
	return n
}

// An imported corpus lists the tools it skipped, and is always indexed.
func TestImportCorpus(t *testing.T) {
	corpus := []byte(`{"_id":"weather::get_forecast","title":"get_forecast","text":"Forecast for a city"}
{"_id":"weather::get_forecast","title":"get_forecast","text":"twice"}
{"_id":"mail::send","title":"send","text":"Send an email"}
`)
	c, err := Import(BEIRFormat, corpus)
	require.NoError(t, err)
	require.Len(t, c.Skipped(), 1)
	require.Equal(t, []string{"mail.send", "weather.get_forecast"}, paths(c.Tools()))
	snap, heldOut, built, err := c.Serve("", true)
	require.NoError(t, err)
	require.True(t, built)
	require.True(t, heldOut, "the format's profile, generic-v3, indexes use_when: the proxy holds them out")
	_, err = snapshot.Decode(snap)
	require.NoError(t, err)

	_, err = Import(BEIRFormat, []byte("not json\n"))
	require.Error(t, err)
}

func paths(tools []Tool) []string {
	var out []string
	for _, tool := range tools {
		out = append(out, tool.CanonicalPath)
	}
	return out
}

func TestProfilesAndBudgets(t *testing.T) {
	require.Contains(t, Profiles(), "dws-v1")
	require.NoError(t, CheckProfile("generic-v3"))
	require.ErrorContains(t, CheckProfile("nope"), "known: ")
	runes, bytes := QueryBudget("nope")
	require.Equal(t, wire.MaxQueryRunes, runes)
	require.Equal(t, wire.MaxQueryBytes, bytes)
	runes, _ = QueryBudget("dws-v1")
	require.Positive(t, runes)
	require.Equal(t, "server.tool", CorpusPath("server::tool"))
}
