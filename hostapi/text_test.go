package hostapi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// UnsafeName refuses exactly what a catalog import refuses in a name: a
// server name it accepts builds, one it refuses would not.
func TestUnsafeName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		unsafe bool
	}{
		{"github", false},
		{"my server", false},
		{"数据", false},
		{"gіthub", false}, // a Cyrillic і is visible: LookalikeKey's concern, not this one's
		{"tab\there", true},
		{"new\nline", true},
		{"cr\rhere", true},
		{"del\x7f", true},
		{"c1\u0085inside", true}, // (at the end, ProductID would trim it as white space)
		{"zero\u200bwidth", true},
		{"bidi\u202eoverride", true},
		{"isolate\u2066", true},
		{"soft\u00adhyphen", true}, // default-ignorable (IsInvisible)
		{"tag\U000E0041", true},
		{"line\u2028separator", true},
	} {
		require.Equal(t, tc.unsafe, UnsafeName(tc.name), "%q", tc.name)
		catalog := []byte(`{"servers":{"s":{"tools":[{"name":"ok","inputSchema":{"type":"object"}}]},` +
			quote(t, tc.name) + `:{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}}`)
		_, view, err := buildCatalog("mcp", catalog)
		if tc.unsafe {
			// The importer refuses the server's product (or skips its tool).
			require.True(t, err != nil || view.Len() == 1, "%q was imported", tc.name)
		} else {
			require.NoError(t, err, "%q", tc.name)
			require.Equal(t, 2, view.Len(), "%q", tc.name)
		}
	}
}

func TestIsInvisibleAndLookalikeKey(t *testing.T) {
	require.False(t, IsInvisible('a'))
	require.False(t, IsInvisible('і'))
	require.True(t, IsInvisible('\u200b'))
	require.True(t, IsInvisible('\u00ad'))
	require.True(t, IsInvisible('\u0085'))

	require.Equal(t, LookalikeKey("read_file"), LookalikeKey("Read_File"))
	require.Equal(t, LookalikeKey("read_file"), LookalikeKey("ｒｅａｄ_file"))
	require.Equal(t, LookalikeKey("read_file"), LookalikeKey("read\u200b_file"))
	require.NotEqual(t, LookalikeKey("read_file"), LookalikeKey("read_files"))
}

func TestProductID(t *testing.T) {
	require.Equal(t, "github", ProductID("github"))
	require.Equal(t, "my_server_v2", ProductID(" my.server.v2 "))
	_, view, err := buildCatalog("mcp", []byte(`{"servers":{"my.server":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}}`))
	require.NoError(t, err)
	tool, ok := view.Tool(ProductID("my.server") + ".t")
	require.True(t, ok)
	require.Equal(t, "my_server", tool.ProductID)
}

func quote(t *testing.T, s string) string {
	t.Helper()
	out := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			out = append(out, '\\', byte(r))
		case r < 0x20 || r == 0x7f:
			out = append(out, []byte(`\u00`+string("0123456789abcdef"[r>>4])+string("0123456789abcdef"[r&15]))...)
		default:
			out = append(out, string(r)...)
		}
	}
	return string(append(out, '"'))
}
