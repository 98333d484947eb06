package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
)

// TestInfoAnswersAreEncodingJSON: the module's version and info answers
// are what encoding/json writes for the same fields in the same order
// (HTML escaped in the strings a catalog supplies, not in the profile and
// format lists, as the module wrote them before they moved here).
func TestInfoAnswersAreEncodingJSON(t *testing.T) {
	m := wire.ModuleInfo{ABI: 1, Version: "0.1.0", SnapshotFormat: 6, Profiles: []string{"dws-v1", "generic-v3"}, Formats: []string{"dws", "mcp"}}
	want, err := json.Marshal(struct {
		ABI            int      `json:"abi"`
		Module         string   `json:"module"`
		Version        string   `json:"version"`
		SnapshotFormat int      `json:"snapshot_format"`
		Profiles       []string `json:"profiles"`
		Formats        []string `json:"formats"`
	}{m.ABI, "toolsift", m.Version, m.SnapshotFormat, m.Profiles, m.Formats})
	require.NoError(t, err)
	require.Equal(t, string(want), string(m.AppendJSON([]byte{})))

	s := wire.SnapshotInfo{Profile: "generic-v3", Format: "mcp<&>", SourceHash: "sha256:ab", SurfaceHash: "sha256:cd",
		ToolCount: 3, ProductCount: 2, SnapshotBytes: 1234}
	want, err = json.Marshal(struct {
		Profile       string `json:"profile"`
		Format        string `json:"format"`
		SourceHash    string `json:"source_hash"`
		SurfaceHash   string `json:"surface_hash"`
		ToolCount     int    `json:"tool_count"`
		ProductCount  int    `json:"product_count"`
		SnapshotBytes int    `json:"snapshot_bytes"`
	}{s.Profile, s.Format, s.SourceHash, s.SurfaceHash, s.ToolCount, s.ProductCount, s.SnapshotBytes})
	require.NoError(t, err)
	require.Equal(t, string(want), string(s.AppendJSON(nil)))
}
