package jsonw

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// handDocuments are JSON texts aimed at the corners of AppendValue.
var handDocuments = map[string]string{
	"scalars":         `[null, true, false, 0, -0, 1, -1, 1.5, "s"]`,
	"empty":           `{"a": [], "b": {}, "c": "", "d": [[]], "e": [{}]}`,
	"number verbatim": `[1E+2, 1e-07, 0.10, -0.0, 100000000000000000000000000001, 1.000000000000000000001, 5e-324, 1e400]`,
	"nested":          `{"z": {"y": {"x": [1, {"w": [true, null]}]}}}`,
	"key order":       `{"b": 1, "a": 2, "B": 3, "_": 4, "aa": 5, "a0": 6, "": 7, "é": 8, "z": 9, "\u00e9": 10}`,
	// Byte order and UTF-16 order disagree for these two keys; encoding/json
	// sorts by bytes.
	"key order utf16":  `{"\uffff": 1, "😀": 2, "\ue000": 3}`,
	"escaped keys":     `{"<k>": "<v>", "a&b": "c&d", "q\"": "\\", "nl\n": "\u2028", "\u0000": "\u001f"}`,
	"html":             `{"html": "<script>alert('x') && 1 > 0</script>"}`,
	"unicode":          `{"中文": "将会话加入一个或多个自定义会话分组", "emoji": "👍🏽🎉", "sep": "a\u2028b\u2029c"}`,
	"surrogates":       `["\ud83d\ude00", "\ud800", "\udc00x", "\ud800\ud800"]`,
	"duplicate keys":   `{"a": 1, "a": 2}`,
	"controls":         `"\b\f\n\r\t\u0000\u0001\u007f\u0080"`,
	"deep arrays":      strings.Repeat("[", 200) + strings.Repeat("]", 200),
	"many keys":        manyKeys(100),
	"raw invalid utf8": "[\"a\xffb\", \"\xed\xa0\x80\", {\"k\xfe\": \"v\xc3\"}]",
}

// manyKeys is an object with n keys, more than fit the stack key buffer.
func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := n - 1; i >= 0; i-- {
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString(`"key` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	b.WriteString("}")
	return b.String()
}

// decodeUseNumber decodes exactly one JSON document the way the engine
// does, with numbers kept as json.Number.
func decodeUseNumber(t testing.TB, doc []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	_, err := dec.Token()
	require.ErrorIs(t, err, io.EOF, "trailing data after the document")
	return v
}

// requireSameAsEncodingJSON checks AppendValue against encoding/json in
// both modes and returns AppendValue's escapeHTML=true output.
func requireSameAsEncodingJSON(t testing.TB, v any, what string) []byte {
	t.Helper()
	var html []byte
	for _, escapeHTML := range []bool{true, false} {
		want := oracle(t, v, escapeHTML)
		got, err := AppendValue(nil, v, escapeHTML)
		require.NoError(t, err, what)
		if !bytes.Equal(want, got) {
			i := firstDiff(want, got)
			require.Failf(t, "output differs from encoding/json",
				"%s, escapeHTML=%v, first difference at byte %d:\n got …%s\nwant …%s",
				what, escapeHTML, i, excerpt(got, i), excerpt(want, i))
		}
		if escapeHTML {
			html = got
		}
	}
	return html
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func excerpt(b []byte, i int) string {
	lo, hi := max(i-40, 0), min(i+40, len(b))
	return string(b[lo:hi])
}

func TestAppendValueMatchesEncodingJSON(t *testing.T) {
	t.Run("hand-written", func(t *testing.T) {
		for name, doc := range handDocuments {
			requireSameAsEncodingJSON(t, decodeUseNumber(t, []byte(doc)), name)
		}
	})

	t.Run("dws catalog", func(t *testing.T) {
		files := readTarGz(t, filepath.Join("..", "..", "..", "testdata", "dws", "catalog.tar.gz"))
		require.Contains(t, files, "catalog.json")
		tools := 0
		for name, doc := range files {
			if strings.HasPrefix(name, "tools/") {
				tools++
			}
			compact := requireSameAsEncodingJSON(t, decodeUseNumber(t, doc), name)
			if name == "catalog.json" {
				// Its top level was written from a Go struct, whose
				// field order a map cannot reproduce.
				continue
			}
			// The tools files were written by json.MarshalIndent with
			// two-space indentation from maps, so re-indenting our
			// compact output must give back the file byte for byte.
			var indented bytes.Buffer
			require.NoError(t, json.Indent(&indented, compact, "", "  "))
			indented.WriteByte('\n')
			require.True(t, bytes.Equal(doc, indented.Bytes()), "%s does not round-trip byte for byte", name)
		}
		require.NotZero(t, tools, "no tools/*.json in the archive")
		t.Logf("checked catalog.json and %d tools files", tools)
	})

	t.Run("dws examples", func(t *testing.T) {
		names, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "dws", "examples", "*.json"))
		require.NoError(t, err)
		for _, name := range names {
			doc, err := os.ReadFile(name)
			require.NoError(t, err)
			requireSameAsEncodingJSON(t, decodeUseNumber(t, doc), name)
		}
	})
}

// readTarGz returns the regular files of a .tar.gz archive by name.
func readTarGz(t testing.TB, name string) map[string][]byte {
	t.Helper()
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		files[path.Clean(hdr.Name)] = data
	}
	return files
}

// TestAppendValueGoValues covers values built in Go rather than decoded:
// nil versus empty containers, both Number types, the plain int types and
// objects too large for the stack key buffer.
func TestAppendValueGoValues(t *testing.T) {
	big := map[string]any{}
	bigStrings := map[string]string{}
	for i := range 40 {
		k := strconv.Itoa(i * 7919 % 40)
		big[k] = float64(i) / 8
		bigStrings["<"+k+">"] = "&" + k
	}
	values := map[string]any{
		"nil":                nil,
		"true":               true,
		"false":              false,
		"string":             "a<b>&\u2028",
		"json.Number":        json.Number("12345678901234567890"),
		"empty json.Number":  json.Number(""),
		"float":              0.1,
		"negative zero":      math.Copysign(0, -1),
		"small float":        1e-7,
		"int":                -42,
		"int64":              int64(math.MinInt64),
		"nil []any":          []any(nil),
		"empty []any":        []any{},
		"nil []string":       []string(nil),
		"empty []string":     []string{},
		"[]string":           []string{"a", "<", "\xff"},
		"nil map[string]any": map[string]any(nil),
		"empty map":          map[string]any{},
		"nil map[string]str": map[string]string(nil),
		"map[string]string":  map[string]string{"b": "<", "a": "\u2029", "": ""},
		"big map":            big,
		"big string map":     bigStrings,
		"invalid utf-8 keys": map[string]any{"a\xff": 1, "a\ufffd": 2, "a": 3},
		"nested nils":        []any{[]any(nil), map[string]any(nil), []string(nil), map[string]string(nil), nil},
		"mixed":              map[string]any{"n": json.Number("1"), "i": 3, "j": int64(4), "f": 5.5, "s": []string{"x"}},
	}
	for name, v := range values {
		requireSameAsEncodingJSON(t, v, name)
	}

	// encoding/json does not know jsonw.Number (it would quote it as a
	// string), so compare with the equivalent json.Number.
	for _, n := range []string{"", "0", "-1.5e+10", "1E400"} {
		want, err := json.Marshal(json.Number(n))
		require.NoError(t, err)
		got, err := AppendValue(nil, Number(n), true)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

func TestAppendValueErrors(t *testing.T) {
	type name string
	cyclicSlice := []any{nil}
	cyclicSlice[0] = cyclicSlice
	cyclicMap := map[string]any{}
	cyclicMap["self"] = cyclicMap
	var nilNumber *json.Number

	cases := map[string]any{
		"NaN":                  math.NaN(),
		"+Inf":                 math.Inf(1),
		"nested -Inf":          map[string]any{"a": []any{1, math.Inf(-1)}},
		"invalid Number":       Number("01"),
		"invalid json.Number":  []any{json.Number("1.")},
		"not a number":         json.Number("NaN"),
		"int32":                int32(1),
		"uint":                 uint(1),
		"float32":              float32(1),
		"[]byte":               []byte("x"),
		"[]int":                []int{1},
		"map[string]int":       map[string]int{"a": 1},
		"struct":               struct{}{},
		"defined string type":  name("x"),
		"pointer":              new(string),
		"nil *json.Number":     nilNumber,
		"cyclic slice":         cyclicSlice,
		"cyclic map":           cyclicMap,
		"too deep":             nestArrays(maxDepth + 1),
		"unsupported in depth": []any{map[string]any{"k": []any{int8(1)}}},
	}
	for name, v := range cases {
		dst := []byte("keep")
		var (
			got []byte
			err error
		)
		require.NotPanics(t, func() { got, err = AppendValue(dst, v, true) }, name)
		require.Error(t, err, name)
		require.Equal(t, "keep", string(got), name)
	}
}

// nestArrays returns n arrays nested inside each other.
func nestArrays(n int) any {
	var v any = []any{}
	for range n - 1 {
		v = []any{v}
	}
	return v
}

// TestAppendValueDepthLimit checks that the deepest document
// encoding/json's decoder accepts is still encoded.
func TestAppendValueDepthLimit(t *testing.T) {
	doc := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	v := decodeUseNumber(t, []byte(doc))
	got, err := AppendValue(nil, v, true)
	require.NoError(t, err)
	require.Equal(t, doc, string(got))

	var tooDeep any
	err = json.Unmarshal([]byte("["+doc+"]"), &tooDeep)
	require.Error(t, err, "the decoder's nesting limit changed; update maxDepth")
}

func TestAppendValueZeroAllocs(t *testing.T) {
	v := decodeUseNumber(t, []byte(`{"name": "search", "tags": ["a", "b"], "n": 1.5, "ok": true, "meta": {"x": null, "<y>": "将"}}`))
	dst := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		dst, err = AppendValue(dst[:0], v, true)
		require.NoError(t, err)
	})
	require.Zero(t, allocs)
}

func TestAppendStringsMatchesEncodingJSON(t *testing.T) {
	for _, values := range [][]string{nil, {}, {"a"}, {"<b>", "é\u2028", ""}} {
		want, err := json.Marshal(append([]string{}, values...))
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendStrings(nil, values, true)))
	}
	require.Equal(t, `["<b>"]`, string(AppendStrings(nil, []string{"<b>"}, false)))
}

func TestObject(t *testing.T) {
	o := StartObject([]byte("x"), true)
	o.String("a", "<b>")
	o.Strings("c", nil)
	o.Raw("skipped", nil)
	o.Raw("d", []byte(`{"e":1}`))
	o.Bool("f", false)
	o.Int("g", -3)
	o.Key("h")
	inner := StartObject(o.Buf, false)
	inner.String("i", "<j>")
	o.Buf = inner.End()
	require.Equal(t, `x{"a":"\u003cb\u003e","c":[],"d":{"e":1},"f":false,"g":-3,"h":{"i":"<j>"}}`, string(o.End()))
}
