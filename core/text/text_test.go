package text

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

const (
	goldenSamplesPath = "../../testdata/dws/golden/tokenizer_samples.json"
	catalogPath       = "../../testdata/dws/golden/indexed_documents.jsonl.gz"
)

func tokens(text string) []string { return DWSV1.AppendTokens(nil, text) }

func TestDWSV1Examples(t *testing.T) {
	cases := map[string][]string{
		"读取 openConversationId 对应的群消息": {"读", "读取", "取", "open", "conversation", "id", "对", "对应", "应", "应的", "的", "的群", "群", "群消", "消", "消息", "息"},
		"task_id file-path v2Api":      {"task_id", "file-path", "task", "id", "file", "path", "v2", "api"},
		"ｃｈａｔ．ｓｅｎｄ":                    {"chat.send", "chat", "send"},
		"HTTPServer getURLPath":        {"httpserver", "get", "urlpath"},
		"日程 2026-08-12 10:00":          {"2026-08-12", "日", "日程", "程", "2026", "08", "12", "10", "00"},
		"":                             nil,
		"  ,./ ":                       nil,
		"Ab":                           {"ab"},
		"aB":                           {"a", "b"},
		"中":                            {"中"},
		"ひらがな漢字カナ":                     {"ひらがな", "漢", "漢字", "字", "カナ"},
		"Привет Мир":                   {"привет", "мир"},
		"a..b a._b -a-b- x-":           {"a-b", "a", "b", "a", "b", "a", "b", "x"},
		"Chat.Send":                    {"chat.send", "chat", "send"},
	}
	for in, want := range cases {
		require.Equal(t, want, tokens(in), "input %q", in)
	}
}

func TestDWSV1GoldenSamples(t *testing.T) {
	raw, err := os.ReadFile(goldenSamplesPath)
	require.NoError(t, err)
	var samples map[string][]string
	require.NoError(t, json.Unmarshal(raw, &samples))
	require.NotEmpty(t, samples)
	for in, want := range samples {
		require.Equal(t, want, tokens(in), "input %q", in)
	}
}

// catalogFields returns every field string of every catalog document.
func catalogFields(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(catalogPath)
	require.NoError(tb, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(tb, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []string
	for sc.Scan() {
		var doc struct {
			Fields map[string]string `json:"fields"`
		}
		require.NoError(tb, json.Unmarshal(sc.Bytes(), &doc))
		require.NotEmpty(tb, doc.Fields)
		// Sorted keys keep the order (and the benchmark input) deterministic.
		for _, k := range slices.Sorted(maps.Keys(doc.Fields)) {
			out = append(out, doc.Fields[k])
		}
	}
	require.NoError(tb, sc.Err())
	require.NotEmpty(tb, out)
	return out
}

func TestDWSV1MatchesOracleOnCatalog(t *testing.T) {
	fields := catalogFields(t)
	for _, s := range fields {
		require.Equal(t, oracleDWSV1(s), tokens(s), "field %q", s)
	}
	t.Logf("%d field strings", len(fields))
}

func TestLookup(t *testing.T) {
	tok, ok := Lookup("dws-v1")
	require.True(t, ok)
	require.Equal(t, "dws-v1", tok.Name())
	require.Equal(t, DWSV1, tok)

	_, ok = Lookup("dws-v2")
	require.False(t, ok)
	_, ok = Lookup("")
	require.False(t, ok)
}

func TestAppendTokensKeepsDst(t *testing.T) {
	dst := []string{"keep"}
	got := DWSV1.AppendTokens(dst, "审批 Chat")
	require.Equal(t, []string{"keep", "审", "审批", "批", "chat"}, got)
}

// TestUnicodeTablesPinned guards the promise that dws-v1 never changes: its
// output depends on the Unicode tables of the Go toolchain (unicode.Han,
// IsUpper, ToLower, …) and of golang.org/x/text (NFKC). x/text switches to
// newer tables by build tag when the toolchain moves on, so a Go upgrade
// alone can change tokens. If this fails, re-run the golden and catalog
// comparisons against the reference engine before updating the versions
// here (or release the new behaviour under a new name).
func TestUnicodeTablesPinned(t *testing.T) {
	require.Equal(t, "15.0.0", unicode.Version, "Go unicode tables changed")
	require.Equal(t, "15.0.0", norm.Version, "x/text norm tables changed")
}

func TestNFKC(t *testing.T) {
	for _, s := range []string{"", "abc", "审批", "ｃｈａｔ．ｓｅｎｄ", "ﬁle", "x²", "e\u0301", "①②", "\xff\xfe", "abc\u00e9\u0301ｄ"} {
		require.Equal(t, norm.NFKC.String(s), NFKC(s), "input %q", s)
	}
	// Already-normal input comes back as is, without allocating.
	normal := "读取 openConversationId 对应的群消息"
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = NFKC(normal) }))
	require.Equal(t, "chat.send", NFKC("ｃｈａｔ．ｓｅｎｄ"))
}

func TestCheckUnsafe(t *testing.T) {
	dangerous := []rune{
		0x200B, 0x200C, 0x200D, 0xFEFF,
		0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
		0x2028, 0x2029,
		0x2066, 0x2067, 0x2068, 0x2069,
	}
	for _, r := range dangerous {
		require.Equal(t, DangerousUnicode, CheckUnsafe("ok "+string(r)+" ok"), "U+%04X", r)
	}
	// Neighbours of the listed ranges are fine.
	for _, r := range []rune{0x200A, 0x200E, 0x2027, 0x202F, 0x2065, 0x206A, 0xFEFE, 0xFF00, 0x80, 0x9F, 0xFFFD} {
		require.Equal(t, Safe, CheckUnsafe(string(r)), "U+%04X", r)
	}
	for r := rune(0); r < 0x20; r++ {
		want := ControlChar
		if r == '\t' || r == '\n' {
			want = Safe
		}
		require.Equal(t, want, CheckUnsafe("a"+string(r)+"b"), "U+%04X", r)
	}

	cases := []struct {
		in   string
		want Unsafe
	}{
		{"", Safe},
		{"给群里发文件 chat.send", Safe},
		{"line1\nline2\tcol", Safe},
		{"windows\r\n", ControlChar},
		{"del\x7f", ControlChar},
		{"bad utf8 \xff\xfe", Safe},
		{"\u202Eevil\x01", DangerousUnicode}, // dangerous first decides
		{"\x01evil\u202E", ControlChar},      // control first decides
		{"\x00", ControlChar},
		{"\u0085", Safe}, // C1 controls are not in the C0 set
	}
	for _, c := range cases {
		require.Equal(t, c.want, CheckUnsafe(c.in), "input %q", c.in)
	}
	require.Equal(t, "DangerousUnicode", DangerousUnicode.String())
}

// A few Unicode corners where IsUpper / IsLower / IsLetter / Han interact.
// Their expected values come from the oracle; the point is that they are
// exercised and stay stable.
func TestDWSV1UnicodeCorners(t *testing.T) {
	for _, s := range []string{
		"aǅb",      // titlecase digraph: NFKC splits it into D + ž
		"xǅ",       // after NFKC the D is upper after a lower x
		"ΣΑΣ σας",  // Greek: rune-wise ToLower, no final-sigma rule
		"İstanbul", // ToLower changes the byte length
		"〇々〡",      // Han script but Nl/Lm categories
		"Ⅻ月",       // roman numeral folds to XII
		"x²Y",      // superscript folds to a digit, then camel split
		"a١B",      // Arabic-Indic digit is IsDigit
		"ｖ２Ａｐｉ",    // full-width camel
		"😀a😀中😀",
		"\xffA\xffb",
		"aー中",
	} {
		require.Equal(t, oracleDWSV1(s), tokens(s), "input %q", s)
	}
	require.Equal(t, []string{"a", "džb"}, tokens("aǅb")) // camel break before D only
	require.Equal(t, []string{"σασ"}, tokens("ΣΑΣ"))      // Python lower() would give "σας"
	require.Equal(t, []string{"〇", "〇々", "々", "々〡", "〡"}, tokens("〇々〡"))
}

// TestClassifyAllRunes checks the shortcuts of classify against the plain
// definitions of the specification for every code point.
func TestClassifyAllRunes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		wantClass := runeSep
		switch {
		case unicode.Is(unicode.Han, r):
			wantClass = runeHan
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			wantClass = runeWord
		}
		wantUpper := unicode.IsUpper(r)
		wantLD := unicode.IsLower(r) || unicode.IsDigit(r)
		class, upper, ld := classify(r)
		if class != wantClass || upper != wantUpper || ld != wantLD {
			t.Fatalf("classify(U+%04X) = %d %v %v, want %d %v %v", r, class, upper, ld, wantClass, wantUpper, wantLD)
		}
	}
}

// TestSimpleNFKCRunes checks the premise of simpleNFKC for every rune it
// accepts (ASCII and simpleForm's), against x/text: the rune's NFKC form is
// the one simpleNFKC writes, that form is normal, and both the rune and its
// form start a normalisation segment (nothing on their left composes with
// them).
func TestSimpleNFKCRunes(t *testing.T) {
	accepted := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		form, kept := r, true
		if r >= utf8.RuneSelf {
			if form, kept = simpleForm(r); form == 0 {
				continue
			}
		}
		accepted++
		s := string(r)
		require.Equal(t, norm.NFKC.String(s), string(form), "%U", r)
		require.Equal(t, kept, form == r, "%U", r)
		require.True(t, norm.NFKC.IsNormalString(string(form)), "%U", r)
		for _, p := range []norm.Properties{norm.NFKC.PropertiesString(s), norm.NFKC.PropertiesString(string(form))} {
			require.True(t, p.BoundaryBefore(), "%U may compose with what precedes it", r)
		}
	}
	require.Greater(t, accepted, 20000)
	for _, s := range []string{"订单，查询（已读）", "a，b", "＜\u0338", "a\u0301订", "。\u3099", "审　批"} {
		require.Equal(t, norm.NFKC.String(s), NFKC(s), "input %q", s)
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = NFKC("给群里发文件、确认“已读”") }))
}
