package importer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/internal/fixtures"
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

// TestReportsOfEveryFormat: each generic format skips a tool without a
// usable identity unless strict, repairs a malformed detail keeping its tool
// (strict refuses it), and says where each field went.
func TestReportsOfEveryFormat(t *testing.T) {
	for _, c := range []struct {
		format, input, skipped string
		fields                 []importer.FieldCount
		warnings               []importer.Warning
		strictErr              string
	}{
		{"mcp", `{"tools":[{"name":"a","description":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"forecast":{"description":"the forecast"}}}},{"name":7},` +
			`{"name":"b","annotations":{"readOnlyHint":"true"}}]}`,
			`tools[1]: field "name": want a string, got a number`,
			[]importer.FieldCount{{Name: "annotations", Used: 1, To: []string{"safety"}}, {Name: "annotations.readOnlyHint", Used: 1, To: []string{"safety"}},
				{Name: "description", Used: 1, To: []string{"description"}}, {Name: "inputSchema", Used: 1, To: []string{"parameters"}},
				{Name: "name", Used: 2, To: []string{"name"}}, {Name: "outputSchema", Used: 1, To: []string{"extra"}}},
			[]importer.Warning{{Field: "annotations.readOnlyHint", Count: 1, Example: `tool "b": field "readOnlyHint": "true" read as true`}},
			`tools[1]: field "name": want a string, got a number`},
		{"openai", `[{"type":"function","function":{"name":"a","parameters":[{"name":"city","in":"query","required":"true"}],"strict":true}},{"type":"function"}]`,
			`tools[1]: field "name": missing or empty`,
			[]importer.FieldCount{{Name: "function", Used: 1, To: []string{"definition"}}, {Name: "function.name", Used: 1, To: []string{"name"}},
				{Name: "function.parameters", Used: 1, To: []string{"extra", "parameters"}}, {Name: "function.strict", Ignored: 1, To: []string{"dropped: how to call it"}}, {Name: "type", Ignored: 1, To: []string{"dropped: how to call it"}}},
			[]importer.Warning{{Field: "parameters.required", Count: 1, Example: `tool "a": parameter "city": "required": "true" read as true`}},
			`tools[0] (name ""): field "parameters": want an object, got an array`},
		{"anthropic", `[{"name":"a","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"},"returns":"the forecast text"},{"name":""},{"name":"b"}]`,
			`tools[1] (name ""): field "name": missing or empty`,
			[]importer.FieldCount{{Name: "cache_control", Ignored: 1, To: []string{"dropped: how to call it"}}, {Name: "input_schema", Used: 1, To: []string{"parameters"}},
				{Name: "name", Used: 2, To: []string{"name"}}, {Name: "returns", Used: 1, To: []string{"extra"}}},
			[]importer.Warning{{Field: "input_schema", Count: 1, Example: `tool "b": field "input_schema": missing (Anthropic requires one per tool)`}},
			`tools[1] (name ""): field "name": missing or empty`},
	} {
		t.Run(c.format, func(t *testing.T) {
			cat, _, report, err := importer.ImportWith(c.format, []byte(c.input), importer.Options{})
			require.NoError(t, err)
			require.Equal(t, 2-boolInt(c.format == "openai"), cat.ToolCount())
			require.Equal(t, c.skipped, report.Skipped[0].Reason)
			require.Equal(t, c.fields, report.Fields)
			require.Equal(t, c.warnings, report.Warnings)
			_, _, _, err = importer.ImportWith(c.format, []byte(c.input), importer.Options{Strict: true})
			require.Error(t, err)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSnapshotStoresTheReport: the report survives the snapshot, and a
// snapshot built without one has none.
func TestSnapshotStoresTheReport(t *testing.T) {
	cat, p, report, err := importer.ImportWith("beir", []byte(tiny["beir"]+"{\"id\":\"\"}\n"), importer.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, report.ToolsSkipped)
	snap, err := compile.Snapshot(cat, p, compile.WithReport(report))
	require.NoError(t, err)
	body, werr := snapshot.Decode(snap)
	require.Nil(t, werr)
	stored := *report // where each field went and the repairs are returned, not stored
	stored.Fields = nil
	for _, f := range report.Fields {
		f.To = nil
		stored.Fields = append(stored.Fields, f)
	}
	decoded, err := compile.Report(body)
	require.NoError(t, err)
	require.Equal(t, &stored, decoded)
	require.Contains(t, report.Summary(), "import (beir): 4 tools read, 3 imported, 1 skipped\n  skipped line 4: field \"_id\" (or \"id\"): missing or empty\n")

	snap, err = compile.Snapshot(cat, p)
	require.NoError(t, err)
	body, werr = snapshot.Decode(snap)
	require.Nil(t, werr)
	require.Empty(t, body.Report)
	decoded, err = compile.Report(body)
	require.NoError(t, err)
	require.Nil(t, decoded)
}

func TestDWSReport(t *testing.T) {
	cat, p, report, err := importer.ImportWith("dws", fixtures.DWSCatalog, importer.Options{})
	require.NoError(t, err)
	require.Equal(t, profile.DWSV1, p)
	require.Equal(t, &importer.Report{Format: "dws", ToolsRead: cat.ToolCount(), ToolsImported: cat.ToolCount()}, report)
}
