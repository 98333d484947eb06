package text

import (
	"slices"
	"testing"

	"golang.org/x/text/unicode/norm"
)

var fuzzSeeds = []string{
	"",
	"给群里发文件并确认消息已读",
	"查询日程，确认（已读）；＜\u0338　“审批”",
	"读取 openConversationId 对应的群消息",
	"task_id file-path v2Api",
	"ｃｈａｔ．ｓｅｎｄ",
	"ＨＴＴＰＳｅｒｖｅｒ ｖ２Ａｐｉ",
	"HTTPServer getURLPath openConversationId",
	"a..b", "a._b", "-a-b-", "a-", "-a", "_a_b_", "a.b.c..d.e", "a.b-c_d", "..", "a.-b",
	"2026-08-12 10:00", "v1.2.3", "123", "0x7F",
	"ひらがなカタカナ漢字ー", "한국어 텍스트", "Привет Мир",
	"😀emoji😀中文😀", "👍🏽 ok",
	"\xff\xfe\xfd", "a\xffb", "中\xe4\xb8", "\xc3a-b",
	"ǅ ǈ ǋ Ⅻ ① ² ﬁ ㍿ ⼀ 丽",
	"tab\tnew\nline\r\x7f\u200b\u202e\u2066\ufeff",
	"İSTANBUL ΣΑΣ straße",
}

// FuzzDWSV1 checks the production tokenizer against the literal oracle, and
// that it is deterministic, never panics and never emits an empty token.
func FuzzDWSV1(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := DWSV1.AppendTokens(nil, s)
		want := oracleDWSV1(s)
		if !slices.Equal(got, want) {
			t.Fatalf("input %q\n got  %q\n want %q", s, got, want)
		}
		again := DWSV1.AppendTokens([]string{"x"}, s)
		if !slices.Equal(again[1:], got) || again[0] != "x" {
			t.Fatalf("input %q: second call differs: %q vs %q", s, again, got)
		}
		for i, tok := range got {
			if tok == "" {
				t.Fatalf("input %q: empty token at %d in %q", s, i, got)
			}
		}
		if n, w := NFKC(s), norm.NFKC.String(s); n != w {
			t.Fatalf("NFKC(%q) = %q, want %q", s, n, w)
		}
	})
}

// FuzzIdentifierScanner checks the byte scanner against the regexp it
// replaces, on raw (not normalised) input.
func FuzzIdentifierScanner(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendIdentifiers(nil, s)
		var want []string
		for _, m := range oracleIdentRE.FindAllString(s, -1) {
			want = append(want, toLowerASCIIForTest(m))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("input %q\n got  %q\n want %q", s, got, want)
		}
	})
}

func toLowerASCIIForTest(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FuzzCheckUnsafe checks CheckUnsafe against the naive per-rune form.
func FuzzCheckUnsafe(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := CheckUnsafe(s), oracleCheckUnsafe(s); got != want {
			t.Fatalf("CheckUnsafe(%q) = %v, want %v", s, got, want)
		}
	})
}
