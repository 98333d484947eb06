package importer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/testdata"
)

func TestImportWithProfile(t *testing.T) {
	_, p, _, err := importer.ImportWith("mcp", []byte(tiny["mcp"]), importer.Options{Profile: profile.DWSV1.Name})
	require.NoError(t, err)
	require.Equal(t, profile.DWSV1, p, "a named profile replaces the format's default")
	_, p, _, err = importer.ImportWith("mcp", []byte(tiny["mcp"]), importer.Options{})
	require.NoError(t, err)
	require.Equal(t, profile.GenericV3, p)
	_, _, _, err = importer.ImportWith("mcp", []byte(tiny["mcp"]), importer.Options{Profile: "bm25"})
	require.EqualError(t, err, `unknown profile "bm25" (known: `+joinNames()+`)`)
}

func joinNames() string {
	out := ""
	for i, n := range profile.Names() {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// TestReportsOfEveryFormat: each generic format skips a bad tool unless
// strict, and counts the fields it used and ignored.
func TestReportsOfEveryFormat(t *testing.T) {
	for _, c := range []struct {
		format, input, skipped string
		fields                 []importer.FieldCount
	}{
		{"mcp", `{"tools":[{"name":"a","description":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}},{"name":7}]}`,
			`tools[1]: field "name": want a string, got a number`,
			[]importer.FieldCount{{Name: "description", Used: 1}, {Name: "inputSchema", Used: 1}, {Name: "name", Used: 2}, {Name: "outputSchema", Ignored: 1}}},
		{"openai", `[{"type":"function","function":{"name":"a","parameters":{"city":{"type":"string"}},"strict":true}},{"type":"function"}]`,
			`tools[1]: field "name": missing or empty`,
			[]importer.FieldCount{{Name: "function", Used: 1}, {Name: "function.name", Used: 1}, {Name: "function.parameters", Used: 1}, {Name: "function.strict", Ignored: 1}, {Name: "type", Used: 2}}},
		{"anthropic", `[{"name":"a","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},{"name":"b"}]`,
			`tools[1] (name "b"): field "input_schema": missing (Anthropic requires one per tool)`,
			[]importer.FieldCount{{Name: "cache_control", Ignored: 1}, {Name: "input_schema", Used: 1}, {Name: "name", Used: 2}}},
	} {
		t.Run(c.format, func(t *testing.T) {
			cat, _, report, err := importer.ImportWith(c.format, []byte(c.input), importer.Options{})
			require.NoError(t, err)
			require.Equal(t, 1, cat.ToolCount())
			require.Equal(t, &importer.Report{Format: c.format, ToolsRead: 2, ToolsImported: 1, ToolsSkipped: 1,
				Skipped: []importer.SkippedTool{{Tool: report.Skipped[0].Tool, Reason: c.skipped}}, Fields: c.fields}, report)
			_, _, _, err = importer.ImportWith(c.format, []byte(c.input), importer.Options{Strict: true})
			require.EqualError(t, err, c.skipped)
		})
	}
}

// TestSnapshotStoresTheReport: the report survives the snapshot, and a
// snapshot built without one has none.
func TestSnapshotStoresTheReport(t *testing.T) {
	cat, p, report, err := importer.ImportWith("beir", []byte(tiny["beir"]+"{\"id\":\"\"}\n"), importer.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, report.ToolsSkipped)
	snap, err := snapshot.BuildWithReport(cat, p, report)
	require.NoError(t, err)
	body, werr := snapshot.Decode(snap)
	require.Nil(t, werr)
	require.Equal(t, report, body.Report)
	require.Contains(t, report.Summary(), "import (beir): 4 tools read, 3 imported, 1 skipped\n  skipped line 4: line 4: field \"_id\" (or \"id\"): missing or empty\n")

	snap, err = snapshot.Build(cat, p)
	require.NoError(t, err)
	body, werr = snapshot.Decode(snap)
	require.Nil(t, werr)
	require.Nil(t, body.Report)
}

func TestDWSReport(t *testing.T) {
	cat, p, report, err := importer.ImportWith("dws", testdata.DWSCatalog, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, profile.DWSV1, p)
	require.Equal(t, &importer.Report{Format: "dws", ToolsRead: cat.ToolCount(), ToolsImported: cat.ToolCount()}, report)
}
