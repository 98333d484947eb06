package jsonread

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oracle is the decoding Decode replaces: encoding/json into an `any` with
// UseNumber, then nothing but spaces.
func oracle(data []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	if _, err := decoder.Token(); err != io.EOF {
		return nil, io.ErrUnexpectedEOF
	}
	return value, nil
}

// requireSameAsEncodingJSON: the same value, or an error from both.
func requireSameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := oracle(data)
	got, err := Decode(data)
	if err != nil && strings.Contains(err.Error(), "levels deep") {
		return // deeper than MaxDepth, which encoding/json may accept
	}
	if wantErr != nil {
		require.Error(t, err, "encoding/json refuses %q (%v)", data, wantErr)
		return
	}
	require.NoError(t, err, "encoding/json accepts %q", data)
	require.Equal(t, want, got, "%q", data)
}

var decodeCases = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `12345678901234567890`, `""`, `"x"`,
	`[]`, `{}`, `[[],{}]`, ` {"a" : [1, "b", null, true, {"c": {}}] } `, `{"a":1,"a":2}`,
	`"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud83d\ude00\ud83d"`,
	`"tab\tnew\nq\"s\\/\b\f\r"`, "\"\xff\xfe ok \xe4\xb8\"", "\"\xed\xa0\x80\"", `"中文 名称"`,
	`{"k\u0041y":"v","\u00ff":"\xff"}`,
	// refused
	``, ` `, `{`, `[`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,}`, `[1,]`, `[1 2]`, `{1:2}`, `{"a" 1}`,
	`01`, `1.`, `.5`, `1e`, `1e+`, `-`, `+1`, `tru`, `nul`, `falsey`, `"abc`, `"\x"`, `"\u12"`, `"\u12g4"`,
	"\"a\x01b\"", "\"a\nb\"", `"\`, `{"a":1}}`, `[1],`, `{} null`, `1 2`, "\xef\xbb\xbf{}", `NaN`, `[-]`,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, c := range decodeCases {
		requireSameAsEncodingJSON(t, []byte(c))
	}
	// Real catalogs: the benchmark samples, the MCP and native catalogs and
	// the DWS examples of the repository's testdata.
	var files []string
	for _, pattern := range []string{"bench/*/*.jsonl", "catalog/*.json", "generic/*.json.gz", "dws/examples/*.json"} {
		matched, _ := filepath.Glob(filepath.Join("../../../../testdata", pattern))
		require.NotEmpty(t, matched, pattern)
		files = append(files, matched...)
	}
	for _, path := range files {
		data := readTestdata(t, path)
		if strings.HasSuffix(path, ".jsonl") {
			for _, line := range bytes.Split(data, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					requireSameAsEncodingJSON(t, line)
				}
			}
			continue
		}
		requireSameAsEncodingJSON(t, data)
	}
}

func readTestdata(t testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	if strings.HasSuffix(path, ".gz") {
		r, err := gzip.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		data, err = io.ReadAll(r)
		require.NoError(t, err)
	}
	return data
}

// Nesting is bounded at MaxDepth levels, far below encoding/json's 10,000,
// and the refusal says so with the offset where it was passed.
func TestDecodeDepth(t *testing.T) {
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	requireSameAsEncodingJSON(t, []byte(ok))
	for _, deep := range []string{
		"[" + ok + "]",
		strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
		strings.Repeat(`[{"a":`, 9999) + "1", // truncated as well: the depth is refused first
	} {
		_, err := Decode([]byte(deep))
		require.ErrorContains(t, err, fmt.Sprintf("not valid JSON: arrays and objects nested more than %d levels deep at offset", MaxDepth))
	}
}

func TestDecodeErrorsSayWhere(t *testing.T) {
	for input, want := range map[string]string{
		`{"a":`:      "not valid JSON: unexpected end of input at offset 5",
		`{"a" 1}`:    `not valid JSON: invalid character '1' at offset 5`,
		"\"a\x01\"":  "not valid JSON: invalid character in string literal at offset 2",
		`[1,]`:       `not valid JSON: invalid character ']' at offset 3`,
		`{"a":1} {}`: "trailing data after the JSON value",
	} {
		_, err := Decode([]byte(input))
		require.EqualError(t, err, want, input)
	}
}

func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { requireSameAsEncodingJSON(t, data) })
}

func BenchmarkDecode(b *testing.B) {
	data := readTestdata(b, "../../../../testdata/generic/livemcpbench-mcp.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	data := readTestdata(b, "../../../../testdata/generic/livemcpbench-mcp.json.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := oracle(data); err != nil {
			b.Fatal(err)
		}
	}
}
