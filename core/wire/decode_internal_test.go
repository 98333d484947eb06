package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// oracleDecode is the decoder that decodeSearchRequest and
// decodeInspectRequest replaced, kept as the reference they must agree with:
// encoding/json's Decoder with DisallowUnknownFields, then a second Decode
// that must find nothing but whitespace. It reports the refusal's reason, or
// "".
func oracleDecode(data []byte, into any) string {
	if len(data) > MaxRequestBytes {
		return "request_too_large"
	}
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		return "invalid_request_json"
	}
	var trailing any
	if err := decoder.Decode(&trailing); err != io.EOF {
		return "invalid_request_json"
	}
	return ""
}

// oracleSearch is the old DecodeSearchRequest.
func oracleSearch(data []byte) (SearchRequest, string) {
	var r SearchRequest
	if reason := oracleDecode(data, &r); reason != "" {
		return SearchRequest{}, reason
	}
	if r.Version != SearchVersion {
		return SearchRequest{}, "unsupported_version"
	}
	return r, ""
}

// oracleInspect is the old DecodeInspectRequest.
func oracleInspect(data []byte) (InspectRequest, string) {
	var r InspectRequest
	if reason := oracleDecode(data, &r); reason != "" {
		return InspectRequest{}, reason
	}
	if r.Version != InspectVersion {
		return InspectRequest{}, "unsupported_version"
	}
	return r, ""
}

func reasonOf(err *Error) string {
	if err == nil {
		return ""
	}
	return err.Reason
}

// requireSameAsEncodingJSON decodes data with both decoders of both request
// kinds and requires the same verdicts and the same structs: before the
// version check (every decoded struct, so that null, duplicate and slice
// handling are compared even without the right version) and after it.
func requireSameAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	show := fmt.Sprintf("%q", data)
	if len(show) > 200 {
		show = show[:200] + "…"
	}
	requireRefusal := func(err *Error) {
		t.Helper()
		if err != nil {
			require.Equal(t, CategoryValidation, err.Category, show)
			require.NotEmpty(t, err.Message, show)
		}
	}

	var wantSearch SearchRequest
	wantReason := oracleDecode(data, &wantSearch)
	gotSearch, err := decodeSearchRequest(data)
	require.Equal(t, wantReason, reasonOf(err), "%s: decoder says %v", show, err)
	requireRefusal(err)
	if err == nil {
		require.Equal(t, wantSearch, gotSearch, show)
	}
	wantSearch, wantReason = oracleSearch(data)
	gotSearch, err = DecodeSearchRequest(data)
	require.Equal(t, wantReason, reasonOf(err), "%s: DecodeSearchRequest says %v", show, err)
	require.Equal(t, wantSearch, gotSearch, show)
	requireRefusal(err)

	var wantInspect InspectRequest
	wantReason = oracleDecode(data, &wantInspect)
	gotInspect, err := decodeInspectRequest(data)
	require.Equal(t, wantReason, reasonOf(err), "%s: decoder says %v", show, err)
	requireRefusal(err)
	if err == nil {
		require.Equal(t, wantInspect, gotInspect, show)
	}
	wantInspect, wantReason = oracleInspect(data)
	gotInspect, err = DecodeInspectRequest(data)
	require.Equal(t, wantReason, reasonOf(err), "%s: DecodeInspectRequest says %v", show, err)
	require.Equal(t, wantInspect, gotInspect, show)
	requireRefusal(err)
}

// trickyRequests are inputs at the edges of encoding/json's rules; every one
// goes through both request kinds.
var trickyRequests = []string{
	// Top level and trailing data.
	`{"version":"tool-search.v1","query":"q"}`,
	" \t\r\n{\"version\":\"tool-search.v1\"} \n\t\r",
	`{}`, `{ }`, `null`, ` null `, `nul`, `nullx`, `null null`, `null{}`,
	`[]`, `"s"`, `7`, `-1`, `true`, `false`, ``, "  \n", `{`, `}`, `{"version"`, `{"version":`,
	`{"version":"tool-search.v1",}`, `{,}`, `{"version" "x"}`, `{"version":"tool-search.v1"` + `,"query":"q"`,
	`{"version":"tool-search.v1"}{}`, `{"version":"tool-search.v1"} x`, `{"version":"tool-search.v1"} 1`,
	`{"version":"tool-search.v1"} {`, `{"version":"tool-search.v1"}}`, `{"version":"tool-search.v1"]`,
	`{"version":"tool-search.v1"} null`, "{\"version\":\"tool-search.v1\"}\x00", "{\"version\":\"tool-search.v1\"}\v",
	"{\"version\":\"tool-search.v1\"}\u00a0", "\xef\xbb\xbf{\"version\":\"tool-search.v1\"}", "\f{}",
	` { "version" : "tool-search.v1" , "query" : "q" } `,
	// Names: case folding, escapes, unknown and duplicate names.
	`{"VERSION":"tool-search.v1","Query":"q","LIMIT":3,"Candidate_Limit":4}`,
	`{"ver\u0073ion":"tool-search.v1","\u0051uery":"q"}`,
	`{"verſion":"tool-search.v1","ſubqueries":["a"],"effectſ":["read"]}`,
	`{"ver\u017fion":"tool-search.v1"}`, `{"\u212aey":1}`, `{"lımit":5}`, `{"LİMIT":5}`, `{"limit_":5}`, `{"limi":5}`,
	`{"query":"a","QUERY":"b"}`, `{"QUERY":"b","query":"a"}`, `{"bogus":1}`, `{"":1}`,
	`{"version":"tool-search.v1","bogus":{"deep":[1,2]}}`, `{"extra":1,"version":"schema-inspect.v1"}`,
	"{\"qu\xffery\":\"x\"}", `{"qu\"ery":"x"}`, `{"query\u0000":"x"}`,
	`{"version":"tool-search.v1","version":"tool-search.v2"}`, `{"version":"tool-search.v2","version":"tool-search.v1"}`,
	`{"version":"tool-search.v1","limit":1,"candidate_limit":2,"subqueries":["x"],"product_ids":["p"],"effects":["READ"],"exclude_canonical":["a.b"],"query":"q"}`,
	`{"version":"schema-inspect.v1","canonical_path":"chat.send","expected_source_hash":"a","expected_surface_hash":"b"}`,
	`{"Version":"schema-inspect.v1","Canonical_Path":"a","EXPECTED_SOURCE_HASH":"x","expected_ſurface_haſh":"y"}`,
	`{"version":"schema-inspect.v1","canonical_path":["a"]}`, `{"version":"schema-inspect.v1","canonical_path":null}`,
	`{"version":"schema-inspect.v1","canonical_path":"a","canonical_path":null}`,
	// Strings.
	`{"query":"\"\\\/\b\f\n\r\t\u00e9\u4e2d\u0000"}`, `{"query":"\ud83d\ude00"}`, `{"query":"\ud83d"}`, `{"query":"\ude00"}`,
	`{"query":"\ud83d\u0041"}`, `{"query":"\ud83d\ud83d\ude00"}`, `{"query":"\ud83dx"}`, `{"query":"\uDFFF\uD800"}`,
	`{"query":"\uD800\\uDC00"}`, `{"query":"\uD800\uDC0"}`, `{"query":"\uD800\u"}`, `{"query":"\u12G4"}`, `{"query":"\U1234"}`,
	`{"query":"a\u00"}`, `{"query":"\x"}`, `{"query":"\'"}`, `{"query":"\`, `{"query":"abc`, `{"query":"\"}`,
	"{\"query\":\"a\tb\"}", "{\"query\":\"a\x00\"}", "{\"query\":\"a\x1f\"}", "{\"query\":\"\x7f\"}",
	"{\"query\":\"\xff\xfe\"}", "{\"query\":\"\xe4\xb8\"}", "{\"query\":\"\xe4\xb8x\"}", "{\"query\":\"\xed\xa0\x80\"}",
	"{\"query\":\"\xf4\x90\x80\x80\"}", "{\"query\":\"\xc0\xaf\"}", "{\"query\":\"\xef\xbf\xbd\"}", "{\"query\":\"\xf0\x9f\x98\"}",
	"{\"query\":\"\\n\xff\"}", "{\"query\":\"\xff", `{"query":"给群里发文件并确认消息已读"}`,
	`{"query":7}`, `{"query":null}`, `{"query":"a","query":null}`, `{"query":[]}`, `{"query":{}}`, `{"query":tru}`,
	`{"query":false}`, `{"query":nulL}`, `{"query":-}`, `{"query":}`,
	// Integers.
	`{"limit":0}`, `{"limit":-0}`, `{"limit":01}`, `{"limit":-01}`, `{"limit":-}`, `{"limit":+1}`, `{"limit":1.0}`,
	`{"limit":1.5}`, `{"limit":1e2}`, `{"limit":1E+2}`, `{"limit":0e0}`, `{"limit":.5}`, `{"limit":1.}`, `{"limit":1e}`,
	`{"limit":1e+}`, `{"limit":9223372036854775807}`, `{"limit":9223372036854775808}`, `{"limit":-9223372036854775808}`,
	`{"limit":-9223372036854775809}`, `{"limit":18446744073709551616}`, `{"limit":99999999999999999999}`,
	`{"limit":"5"}`, `{"limit":true}`, `{"limit":null}`, `{"limit":3,"limit":null}`, `{"limit":[1]}`, `{"limit":5x}`,
	`{"limit":5 }`, `{"limit":1,"LIMIT":2}`, `{"candidate_limit":20,"CANDIDATE_LIMIT":null}`, `{"limit":0x10}`, `{"limit":1_0}`,
	// Arrays.
	`{"subqueries":[]}`, `{"subqueries":[ ]}`, `{"subqueries":null}`, `{"subqueries":["a",null,"b"]}`, `{"subqueries":[null]}`,
	`{"subqueries":[1]}`, `{"subqueries":[["a"]]}`, `{"subqueries":["a",]}`, `{"subqueries":[,]}`, `{"subqueries":"a"}`,
	`{"subqueries":["a"}`, `{"subqueries":["a"`, `{"subqueries":[true]}`, `{"subqueries":[{}]}`, `{"subqueries":{}}`,
	`{"subqueries":["a"],"subqueries":null}`, `{"subqueries":["a","b","c"],"subqueries":["x"]}`,
	`{"subqueries":["a","b","c"],"subqueries":["x"],"subqueries":[null,null,null]}`,
	`{"subqueries":["a","b","c"],"subqueries":[],"subqueries":[null]}`, `{"subqueries":["a","b"],"Subqueries":[null]}`,
	`{"subqueries":["a","b","c","d","e"],"subqueries":[null,null,null,null,null,null,null]}`,
	`{"effects":["read"],"effects":[null,null,null,null,null]}`, `{"product_ids":[ "a" , "b" ]}`,
	`{"exclude_canonical":[null]}`, `{"exclude_canonical":["\ud83d"]}`, `{"effects":"read"}`, `{"effects":[1,"a"]}`,
	`{"product_ids":["a" "b"]}`, `{"product_ids":["a"],}`,
	// The scope object.
	`{"version":"tool-search.v1","query":"q","scope":{"product_ids":["p"],"effects":["read"],"exclude_canonical":["p.a"]}}`,
	`{"scope":{}}`, `{"scope":{ }}`, `{"scope":null}`, `{"scope":{},"scope":null}`, `{"scope":null,"scope":{}}`,
	`{"scope":{"effects":["read","write"]},"scope":{"product_ids":["p"]}}`,
	`{"scope":{"effects":["read","write","destructive"]},"SCOPE":{"Effects":[null,"x"]}}`,
	`{"scope":{"effects":["read"],"effects":null}}`, `{"ſcope":{"exclude_canonicaL":["a"]}}`,
	`{"scope":{"bogus":1}}`, `{"scope":{"query":"q"}}`, `{"scope":[]}`, `{"scope":"p"}`, `{"scope":1}`, `{"scope":true}`,
	`{"scope":{"effects":"read"}}`, `{"scope":{"effects":["read"],}}`, `{"scope":{,}}`, `{"scope":{"effects"}}`,
	`{"scope":{"effects":["read"]`, `{"scope":{"effects":["read"]} `, `{"scope":{"effects":["read"] "x":1}}`,
	`{"scope":{"product_ids":[1]}}`, `{"scope":{"scope":{}}}`, `{"scope":{"effects":[]}}`, `{"scope":{}}}`,
	`{"scope":{"effects":null,"product_ids":["a",null]}}`, `{"scope": { "effects" : [ "read" ] } , "query" : "q" }`,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, in := range trickyRequests {
		requireSameAsEncodingJSON(t, []byte(in))
	}
	// Sizes and nesting.
	exactly := `{"version":"tool-search.v1","query":"` + strings.Repeat("a", MaxRequestBytes-40) + `"}`
	exactly += strings.Repeat(" ", MaxRequestBytes-len(exactly))
	requireSameAsEncodingJSON(t, []byte(exactly))
	requireSameAsEncodingJSON(t, []byte(exactly+" "))
	requireSameAsEncodingJSON(t, []byte(strings.Repeat("[", 20000)+strings.Repeat("]", 20000)))
	requireSameAsEncodingJSON(t, []byte(`{"bogus":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`))
	requireSameAsEncodingJSON(t, []byte(`{"subqueries":[`+strings.Repeat(`null,`, 10000)+`"z"]}`))
	requireSameAsEncodingJSON(t, []byte(`{"subqueries":[`+strings.Repeat(`"a",`, 300)+`"z"],"subqueries":[`+strings.Repeat(`null,`, 600)+`null]}`))
}

// TestDecodeSurprises pins the encoding/json behaviours that are easiest to
// get wrong, with the values written out.
func TestDecodeSurprises(t *testing.T) {
	decode := func(in string) SearchRequest {
		r, err := decodeSearchRequest([]byte(in))
		require.Nil(t, err, in)
		return r
	}
	// A null element keeps what a slot held, and the length can grow into
	// the capacity an earlier, longer array left behind.
	require.Equal(t, []string{"x", "b", "c"}, decode(`{"subqueries":["a","b","c"],"subqueries":["x"],"subqueries":[null,null,null]}`).Subqueries)
	require.Equal(t, []string{"a"}, decode(`{"subqueries":["a","b"],"SUBQUERIES":[null]}`).Subqueries)
	require.Equal(t, []string{""}, decode(`{"subqueries":[null]}`).Subqueries)
	require.Equal(t, []string{}, decode(`{"subqueries":[]}`).Subqueries)
	require.Nil(t, decode(`{"subqueries":["a"],"subqueries":null}`).Subqueries)
	require.Equal(t, 3, decode(`{"limit":3,"Limit":null}`).Limit)
	require.Equal(t, "a", decode(`{"query":"a","query":null}`).Query)
	require.Equal(t, "tool-search.v1", decode(`{"verſion":"tool-search.v1"}`).Version)
	require.Equal(t, "\ufffd\ufffd", decode("{\"query\":\"\xe4\xb8\"}").Query)
	require.Equal(t, "\ufffdA", decode(`{"query":"\ud83d\u0041"}`).Query)
	require.Equal(t, math.MinInt64, decode(`{"limit":-9223372036854775808}`).Limit)
	require.Equal(t, SearchRequest{}, decode(`null`))
}

func TestDecodeErrorsSayWhatAndWhere(t *testing.T) {
	for in, want := range map[string]string{
		`{"version":"tool-search.v1","bogus":1}`:   `unknown field "bogus" at offset 28`,
		`{"version":"tool-search.v1","limit":1.5}`: `"limit" must be an integer, not 1.5 at offset 36`,
		`{"LIMIT":99999999999999999999}`:           `"limit" is out of range: 99999999999999999999 at offset 9`,
		`{"query":7}`:                              `"query" must be a string at offset 9`,
		`{"effects":"read"}`:                       `"effects" must be an array of strings at offset 11`,
		`{"effects":["read",7]}`:                   `"effects" must be an array of strings at offset 19`,
		`{"query":"q"} x`:                          `data after the request object at offset 14`,
		`{"query":"q"`:                             `unexpected end of input at offset 12`,
		"{\"query\":\"a\nb\"}":                     `control character 0x0a in a string at offset 11`,
		`[]`:                                       `the request must be a JSON object at offset 0`,
	} {
		_, err := DecodeSearchRequest([]byte(in))
		require.NotNil(t, err, in)
		require.Equal(t, "invalid_request_json", err.Reason, in)
		require.Equal(t, "cannot decode tool-search.v1 request: "+want, err.Message, in)
	}
}

// TestFieldNameFoldingMatchesEncodingJSON checks foldedEqual against
// encoding/json for every rune: a one-rune member name must select the same
// one-letter field (a to z, or _) or none. Folding is per rune on both sides,
// so this covers names of any length.
func TestFieldNameFoldingMatchesEncodingJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 1.1M runes with encoding/json")
	}
	const names = "abcdefghijklmnopqrstuvwxyz_"
	fields := make([]reflect.StructField, len(names))
	for i := range names {
		fields[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int](),
			Tag: reflect.StructTag(fmt.Sprintf(`json:"%c"`, names[i])),
		}
	}
	letters := reflect.StructOf(fields)
	var key, doc []byte
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) && r >= 0x20 && r != '"' && r != '\\' {
			key = utf8.AppendRune(key[:0], r)
			doc = append(append(append(doc[:0], `{"`...), key...), `":1}`...)
		} else {
			// Control characters, quote, backslash and surrogates go in as
			// escapes; a surrogate escape alone unescapes to U+FFFD.
			doc = fmt.Appendf(doc[:0], `{"\u%04x":1}`, r)
			key = utf8.AppendRune(key[:0], r) // U+FFFD for a surrogate
		}
		decoded := reflect.New(letters)
		decoder := json.NewDecoder(bytes.NewReader(doc))
		decoder.DisallowUnknownFields()
		want := -1
		if decoder.Decode(decoded.Interface()) == nil {
			for i := range names {
				if decoded.Elem().Field(i).Int() == 1 {
					want = i
				}
			}
		}
		got := -1
		for i := range names {
			if foldedEqual(key, names[i:i+1]) {
				require.Equal(t, -1, got, "%U matches two names", r)
				got = i
			}
		}
		require.Equal(t, want, got, "%U", r)
	}
}

var fuzzSeeds = []string{
	`{"version":"tool-search.v1","query":"给群里发送消息","limit":5,"candidate_limit":20}`,
	`{"version":"tool-search.v1","subqueries":["a","b"],"product_ids":["chat"],"effects":["READ"],"exclude_canonical":["x.y"]}`,
	`{"version":"schema-inspect.v1","canonical_path":"chat.send","expected_source_hash":"a","expected_surface_hash":"b"}`,
	`{"Version":"tool-search.v1","QUERY":"case-insensitive keys","ſubqueries":["x"],"\u212aey":1}`,
	`{"VERSION":"schema-inspect.v1","Canonical_Path":"a","expected_ſource_hash":"b"}`,
	`{"version":"tool-search.v1","query":"q","query":"dup","QUERY":null,"limit":1,"Limit":null}`,
	`{"subqueries":["a","b","c"],"subqueries":["x"],"SUBQUERIES":[null,null,null,null],"subqueries":[]}`,
	`{"query":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud83d\u0041\ude00"}`,
	"{\"query\":\"\xff\xe4\xb8\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\"}",
	`{"limit":9223372036854775807,"candidate_limit":-9223372036854775808}`,
	`{"limit":9223372036854775808}`, `{"limit":-0}`, `{"limit":1.0}`, `{"limit":1e2}`, `{"limit":01}`,
	`null`, ` null `, `[]`, `"s"`, `{}`, "\xff\xfe",
	`{"version":"tool-search.v1"} {}`, `{"version":"tool-search.v1"} x`, `{"version":"tool-search.v1"}` + "\n\t ",
	`{"version":"tool-search.v1","bogus":[1,{"a":null}]}`, `{"effects":"read","query":7,"limit":"5"}`,
}

func FuzzDecodeSearchRequestMatchesEncodingJSON(f *testing.F) {
	for _, seed := range append(fuzzSeeds, trickyRequests...) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want SearchRequest
		wantReason := oracleDecode(data, &want)
		got, err := decodeSearchRequest(data)
		if wantReason != reasonOf(err) {
			t.Fatalf("%q: encoding/json says %q, decoder says %v", data, wantReason, err)
		}
		if err == nil {
			require.Equal(t, want, got, "%q", data)
		}
		want, wantReason = oracleSearch(data)
		got, err = DecodeSearchRequest(data)
		if wantReason != reasonOf(err) {
			t.Fatalf("%q: old decoder says %q, DecodeSearchRequest says %v", data, wantReason, err)
		}
		require.Equal(t, want, got, "%q", data)
	})
}

func FuzzDecodeInspectRequestMatchesEncodingJSON(f *testing.F) {
	for _, seed := range append(fuzzSeeds, trickyRequests...) {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want InspectRequest
		wantReason := oracleDecode(data, &want)
		got, err := decodeInspectRequest(data)
		if wantReason != reasonOf(err) {
			t.Fatalf("%q: encoding/json says %q, decoder says %v", data, wantReason, err)
		}
		if err == nil {
			require.Equal(t, want, got, "%q", data)
		}
		want, wantReason = oracleInspect(data)
		got, err = DecodeInspectRequest(data)
		if wantReason != reasonOf(err) {
			t.Fatalf("%q: old decoder says %q, DecodeInspectRequest says %v", data, wantReason, err)
		}
		require.Equal(t, want, got, "%q", data)
	})
}

var benchmarkRequest = []byte(`{"version":"tool-search.v1","query":"给群里发文件并确认消息已读","limit":5,"candidate_limit":20}`)

func BenchmarkDecodeSearchRequest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeSearchRequest(benchmarkRequest); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSearchRequestEncodingJSON(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, reason := oracleSearch(benchmarkRequest); reason != "" {
			b.Fatal(reason)
		}
	}
}
