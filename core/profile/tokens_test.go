package profile_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/text"
)

func TestDedupeSentences(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"Read a file.", "Read a file."},
		{"Read a file. Read a file.", "Read a file. "},
		{"Read a file. read A FILE", "Read a file. "},
		{"Read a file.\n\nRead a file.", "Read a file.\n\n "},
		{"A. B. A. C.", "A. B.  C."},
		{"读取文件。读取文件。", "读取文件。 "},
		{"No end mark No end mark", "No end mark No end mark"}, // one sentence
		{"x. x. x. x.", "x.   "},
		{"1. 2. 1.5", "1. 2. 5"},
		{"Ab. aB. ÀB. àb.", "Ab.  ÀB. àb."}, // only ASCII letters fold
	} {
		require.Equal(t, c.want, profile.DedupeSentences(c.in), "%q", c.in)
		require.Equal(t, c.want, naiveDedupe(c.in), "%q", c.in)
	}
	// Past the pairwise limit the hashed index gives the same answer.
	var b strings.Builder
	for i := range 200 {
		b.WriteString(strings.Repeat("word ", i%37+1))
		b.WriteString(". ")
	}
	got := profile.DedupeSentences(b.String())
	require.Equal(t, naiveDedupe(b.String()), got)
	require.Equal(t, 37, strings.Count(got, "."))
}

// naiveDedupe is DedupeSentences by its definition, for comparison.
func naiveDedupe(s string) string {
	var out strings.Builder
	seen := map[string]bool{}
	start := 0
	for start < len(s) {
		end := start
		for end < len(s) {
			r, n := utf8.DecodeRuneInString(s[end:])
			end += n
			if strings.ContainsRune(".!?;\n。！？；", r) {
				break
			}
		}
		key := asciiLower(strings.TrimSpace(strings.TrimRight(s[start:end], ".!?;\n。！？；")))
		switch {
		case key == "":
			out.WriteString(s[start:end])
		case seen[key]:
			out.WriteByte(' ')
		default:
			seen[key] = true
			out.WriteString(s[start:end])
		}
		start = end
	}
	return out.String()
}

// asciiLower lower-cases ASCII letters byte by byte (strings.Map would
// replace invalid UTF-8).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestDedupeSentencesAllocatesNothingWithoutRepeats: the common case (a
// field with no repeated sentence) costs no allocation.
func TestDedupeSentencesAllocatesNothingWithoutRepeats(t *testing.T) {
	s := "Read the complete contents of a file. Handles text encodings. Only works within allowed directories."
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = profile.DedupeSentences(s) }))
}

// FuzzDedupeSentences: DedupeSentences agrees with its definition
// (naiveDedupe), whichever of its two ways it takes.
func FuzzDedupeSentences(f *testing.F) {
	for _, s := range []string{"", "a. a.", "A! a? a;", "读取文件。读取文件", "x\ny\nx", strings.Repeat("s. t. ", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := profile.DedupeSentences(s)
		if want := naiveDedupe(s); got != want {
			t.Fatalf("DedupeSentences(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestTokenizeExtra: generic-v3 indexes an extra text's terms that no
// field holds, once each, in the parameters field; generic-v2 ignores it.
func TestTokenizeExtra(t *testing.T) {
	tool := &catalog.Tool{
		Identity:    catalog.Identity{Name: "get_weather", ProductID: "w", CanonicalPath: "w.get_weather"},
		Description: "Get the weather forecast.",
		Extra:       "returns: temperature, humidity, weather, humidity",
	}
	product := &catalog.Product{ID: "w", Name: "weather"}
	var x profile.FieldTokens
	profile.GenericV3.Tokenize(&x, text.GenericV3, tool, product)
	require.Equal(t, []string{"return", "temperatur", "return temperatur", "humid", "temperatur humid", "humid weather", "weather humid"}, x.Fields[profile.Parameters])

	profile.GenericV2.Tokenize(&x, text.GenericV2, tool, product)
	require.Empty(t, x.Fields[profile.Parameters])

	whole := *profile.GenericV3
	whole.ExtraText = profile.ExtraWhole
	whole.Tokenize(&x, text.GenericV3, tool, product)
	require.Equal(t, text.GenericV3.AppendTokens(nil, tool.Extra), x.Fields[profile.Parameters])
}

// TestGenericV2IsUnchanged pins what generic-v2 does not do, so that its
// stored snapshots answer the same forever.
func TestGenericV2IsUnchanged(t *testing.T) {
	p := profile.GenericV2
	require.Equal(t, "generic-v2", p.Tokenizer)
	require.False(t, p.DedupeSentences)
	require.Equal(t, profile.ExtraNone, p.ExtraText)
	require.Zero(t, p.TermFrequencyCap)
	require.Zero(t, p.DeprecatedPenalty)
	v3, ok := profile.Lookup("generic-v3")
	require.True(t, ok)
	require.Equal(t, profile.GenericV3, v3)
}

// FuzzTokenizeExtra: under generic-v3 the terms a tool's extra text adds to
// the parameters field are terms of that text, each once, found in no
// other field and not among the parameters' own; the other fields are
// what they are without extra text.
func FuzzTokenizeExtra(f *testing.F) {
	f.Add("Get the weather.", "city", "returns: temperature, humidity")
	f.Add("查询天气", "城市", "返回温度和湿度 温度")
	f.Add("a. a.", "", "a a b b")
	f.Fuzz(func(t *testing.T, description, param, extra string) {
		tool := &catalog.Tool{
			Identity:    catalog.Identity{Name: "tool", ProductID: "p", CanonicalPath: "p.tool"},
			Description: description,
			Parameters:  []catalog.Parameter{{Name: "x", Description: param}},
			Extra:       extra,
		}
		product := &catalog.Product{ID: "p", Name: "p"}
		var with, without profile.FieldTokens
		profile.GenericV3.Tokenize(&with, text.GenericV3, tool, product)
		bare := *tool
		bare.Extra = ""
		profile.GenericV3.Tokenize(&without, text.GenericV3, &bare, product)
		own := without.Fields[profile.Parameters]
		added := with.Fields[profile.Parameters][len(own):]
		require.Equal(t, own, with.Fields[profile.Parameters][:len(own)])
		elsewhere := map[string]bool{}
		for f := range without.Fields {
			require.Equal(t, without.Fields[f], with.Fields[f][:len(without.Fields[f])])
			if profile.Field(f) != profile.Parameters {
				require.Equal(t, without.Fields[f], with.Fields[f])
			}
			for _, term := range without.Fields[f] {
				elsewhere[term] = true
			}
		}
		extraTerms := map[string]bool{}
		for _, term := range text.GenericV3.AppendTokens(nil, profile.DedupeSentences(strings.TrimSpace(extra))) {
			extraTerms[term] = true
		}
		seen := map[string]bool{}
		for _, term := range added {
			require.True(t, extraTerms[term], "%q is not a term of the extra text", term)
			require.False(t, elsewhere[term], "%q is already indexed", term)
			require.False(t, seen[term], "%q added twice", term)
			seen[term] = true
		}
	})
}
