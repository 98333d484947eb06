package native_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/importer/internal/tally"
	"github.com/toolsift/toolsift/core/importer/native"
)

// TestBuildRefusesInvisibleCharactersInNames: issue 17 item 2 found these
// accepted in names, so that three tools all displayed as tools.read_file.
func TestBuildRefusesInvisibleCharactersInNames(t *testing.T) {
	for _, r := range []rune{0x200E, 0x200F, 0x061C, 0x2060, 0x00AD, 0x034F, 0xFE0F, 0xE0020, 0xE0041, 0xE0001, 0x0085, 0x009B} {
		encoded, err := json.Marshal(fmt.Sprintf("read%c_file", r))
		require.NoError(t, err)
		bad := string(encoded)
		for field, input := range map[string][]byte{
			"id":      catalogJSON(`{"id":` + bad + `,"tools":[{"name":"t"}]}`),
			"name":    catalogJSON(`{"id":"tools","tools":[{"name":` + bad + `}]}`),
			"aliases": catalogJSON(`{"id":"tools","tools":[{"name":"t","aliases":[` + bad + `]}]}`),
		} {
			cat, err := decodeAndBuild(input)
			require.Nil(t, cat, "U+%04X in %s", r, field)
			require.ErrorContains(t, err, fmt.Sprintf(`field %q`, field), "U+%04X in %s", r, field)
			require.ErrorContains(t, err, "contains a control or invisible character", "U+%04X in %s", r, field)
		}
	}
	// Ordinary non-ASCII names stay accepted.
	for _, name := range []string{"读取文件", "café", "naïve_read", "read_file_🔍"} {
		encoded, err := json.Marshal(name)
		require.NoError(t, err)
		_, err = decodeAndBuild(catalogJSON(`{"id":"tools","tools":[{"name":` + string(encoded) + `}]}`))
		require.NoError(t, err, name)
	}
}

// TestBuildRefusesLookalikeNames: names equal after NFKC, case folding and
// removal of invisible characters are one name to a reader. Products and
// tools are sorted first, so the second in byte order is the one refused.
func TestBuildRefusesLookalikeNames(t *testing.T) {
	for _, c := range []struct {
		name     string
		products []string
		want     string
	}{
		{"case", []string{`{"id":"tools","tools":[{"name":"read_file"},{"name":"Read_File"}]}`},
			`tool "tools.read_file": the name looks like tool "tools.Read_File"'s`},
		{"compatibility form", []string{`{"id":"tools","tools":[{"name":"read_file"},{"name":"ｒｅａｄ_file"}]}`},
			`tool "tools.ｒｅａｄ_file": the name looks like tool "tools.read_file"'s`},
		{"kelvin sign", []string{`{"id":"tools","tools":[{"name":"kill"},{"name":"\u212aill"}]}`},
			`the name looks like tool "tools.kill"'s`},
		{"product case", []string{`{"id":"GitHub","tools":[{"name":"a"}]}`, `{"id":"github","tools":[{"name":"b"}]}`},
			`product "github": the id looks like product "GitHub"'s`},
		{"alias", []string{`{"id":"tools","tools":[{"name":"a","aliases":["files read"]},{"name":"b","aliases":["Files Read"]}]}`},
			`alias "Files Read" looks like an alias of tool "tools.a"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat, err := decodeAndBuild(catalogJSON(c.products...))
			require.Nil(t, cat)
			require.ErrorContains(t, err, c.want)
		})
	}
	// Distinct names stay accepted.
	_, err := decodeAndBuild(catalogJSON(`{"id":"tools","tools":[{"name":"read_file"},{"name":"read-file"},{"name":"readfile"}]}`))
	require.NoError(t, err)
}

// TestBuildSkipsLookalikeNames: with a skipping tally (the generic
// importers' default) the second look-alike is left out and reported, the
// first kept.
func TestBuildSkipsLookalikeNames(t *testing.T) {
	doc, err := native.Decode(catalogJSON(
		`{"id":"tools","tools":[{"name":"read_file","safety":{"effect":"read"}},{"name":"Read_File","safety":{"effect":"destructive"}},{"name":"write_file"}]}`,
		`{"id":"other","tools":[{"name":"y"}]}`,
		`{"id":"Other","tools":[{"name":"x"}]}`,
	))
	require.NoError(t, err)
	skips := tally.New(false)
	cat, err := native.BuildWith(doc, native.Format, skips)
	require.NoError(t, err)
	var paths []string
	for _, p := range cat.Products {
		for _, tool := range p.Tools {
			paths = append(paths, tool.Identity.CanonicalPath)
		}
	}
	require.Equal(t, []string{"Other.x", "tools.Read_File", "tools.write_file"}, paths)
	n, listed := skips.Skipped()
	require.Equal(t, 2, n)
	require.Equal(t, `tool "other.y"`, listed[0].Tool)
	require.Contains(t, listed[0].Reason, `the id looks like product "Other"'s`)
	require.Equal(t, `tool "tools.read_file"`, listed[1].Tool)
	require.Contains(t, listed[1].Reason, `looks like tool "tools.Read_File"`)
}
