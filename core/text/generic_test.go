package text

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func genericTokens(s string) []string { return GenericV2.AppendTokens(nil, s) }

// TestGenericV2Examples pins the tokenizer's documented rules on one input
// each. Every expected list was worked out by hand from the doc comment of
// GenericV2; stems were checked against the Snowball vocabulary
// (testdata/porter2) or, for words it lacks, by running Porter2's steps by
// hand (users → user, beta, trending → trend, today's → today, http, xml,
// api unchanged).
func TestGenericV2Examples(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		// Names split into words, with a pair after each word but the first.
		{"snake", "get_weather", []string{"get", "weather", "get weather"}},
		{"camel", "getWeatherForecast", []string{"get", "weather", "get weather", "forecast", "weather forecast"}},
		{"acronym first", "HTTPServerError", []string{"http", "server", "http server", "error", "server error"}},
		{"acronym then camel", "XMLHttpRequest", []string{"xml", "http", "xml http", "request", "http request"}},
		{"dotted", "api.v2.users", []string{"api", "v2", "api v2", "user", "v2 user"}},
		{"kebab and slash", "get-user/list", []string{"get", "user", "get user", "list", "user list"}},
		{"trailing digits stay", "mp3", []string{"mp3"}},
		{"inner digits stay", "base64", []string{"base64"}},
		{"upper after digit splits", "v2Beta", []string{"v2", "beta", "v2 beta"}},
		{"digits are words", "book 2 tickets", []string{"book", "2", "book 2", "ticket", "2 ticket"}},
		// Apostrophes between letters stay, and the stemmer takes the
		// possessive off.
		{"possessive", "today's", []string{"today"}},
		{"possessive U+2019", "today’s", []string{"today"}},
		{"contraction U+2019 is a stop word", "don’t", nil},
		{"contraction then word", "don’t stop", []string{"stop"}},
		{"curly possessive in a stretch", "user’s files", []string{"user", "file", "user file"}},
		{"quotes around a word separate", "'quoted'", []string{"quot"}},
		// Stop words go, and do not break a stretch.
		{"stop words", "the weather of the city please", []string{"weather", "citi", "weather citi"}},
		{"only stop words", "the of please", nil},
		{"stop word in a name", "get_the_file", []string{"get", "file", "get file"}},
		{"punctuation does not end a stretch", "weather, city.", []string{"weather", "citi", "weather citi"}},
		// Porter2 stems of ASCII words.
		{"stems", "running files searches trending", []string{"run", "file", "run file", "search", "file search", "trend", "search trend"}},
		{"stems upper case", "RUNNING Files", []string{"run", "file", "run file"}},
		// NFKC first.
		{"fullwidth camel", "ＧｅｔＵｓｅｒ", []string{"get", "user", "get user"}},
		{"fullwidth acronym", "ＨＴＴＰＳｅｒｖｅｒ", []string{"http", "server", "http server"}},
		{"ligature", "ﬁles", []string{"file"}},
		// Han and kana: unigrams interleaved with bigrams, no pairs.
		{"chinese", "查询天气预报", []string{"查", "查询", "询", "询天", "天", "天气", "气", "气预", "预", "预报", "报"}},
		{"hiragana", "てんき", []string{"て", "てん", "ん", "んき", "き"}},
		{"katakana", "テスト", []string{"テ", "テス", "ス", "スト", "ト"}},
		{"halfwidth katakana", "ﾃｽﾄ", []string{"テ", "テス", "ス", "スト", "ト"}},
		{"kanji and kana one run", "東京タワー", []string{"東", "東京", "京", "京タ", "タ", "タワ", "ワ", "ワー", "ー"}},
		{"katakana middle dot separates", "データ・ベース", []string{"デ", "デー", "ー", "ータ", "タ", "ベ", "ベー", "ー", "ース", "ス"}},
		{"mixed", "查询weather预报", []string{"查", "查询", "询", "weather", "预", "预报", "报"}},
		{"han ends a stretch", "get 天气 weather", []string{"get", "天", "天气", "气", "weather"}},
		{"stretch restarts after han", "天气 weather forecast", []string{"天", "天气", "气", "weather", "forecast", "weather forecast"}},
		{"stop word after han", "天气 the city", []string{"天", "天气", "气", "citi"}},
		// Other scripts: lower-cased, split at case changes, not stemmed.
		{"cyrillic", "ПолучитьПогоду Файлы", []string{"получить", "погоду", "получить погоду", "файлы", "погоду файлы"}},
		{"greek", "ΚΑΙΡΟΣ καιρός", []string{"καιροσ", "καιρός", "καιροσ καιρός"}},
		{"latin with accents not stemmed", "Cafés naïve", []string{"cafés", "naïve", "cafés naïve"}},
		{"hangul is words", "한국어 텍스트", []string{"한국어", "텍스트", "한국어 텍스트"}},
		// Nothing to emit, and bad bytes.
		{"empty", "", nil},
		{"white space", " \t\n\r\u3000 ", nil},
		{"punctuation only", "._-/ ,;:!?", nil},
		{"invalid bytes separate", "\xffget\xfeWeather\xff", []string{"get", "weather", "get weather"}},
		{"truncated han", "中\xe4\xb8", []string{"中"}},
		{"lone continuation", "x\xc3y\x80z", []string{"x", "y", "x y", "z", "y z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := genericTokens(c.in)
			if !slices.Equal(got, c.want) {
				t.Fatalf("GenericV2(%q)\n got  %q\n want %q", c.in, got, c.want)
			}
			checkGenericProperties(t, c.in, got)
		})
	}
}

func TestGenericV2Registered(t *testing.T) {
	tok, ok := Lookup("generic-v2")
	if !ok || tok.Name() != "generic-v2" || tok != GenericV2 {
		t.Fatalf("Lookup(generic-v2) = %v, %v", tok, ok)
	}
}

func TestIsWordPair(t *testing.T) {
	for term, want := range map[string]bool{
		"get weather": true,
		"get":         false,
		"天气":          false,
		"":            false,
		"get_weather": false,
	} {
		if got := IsWordPair(term); got != want {
			t.Errorf("IsWordPair(%q) = %v, want %v", term, got, want)
		}
	}
	if PairSeparator != " " {
		t.Fatalf("PairSeparator = %q: the separator is released behaviour", PairSeparator)
	}
}

// TestGenericV2KeepsDst checks that tokens are appended after what dst holds.
func TestGenericV2KeepsDst(t *testing.T) {
	dst := []string{"keep"}
	got := GenericV2.AppendTokens(dst, "getUser")
	if want := []string{"keep", "get", "user", "get user"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// isHanClass reports whether r belongs to a Han or kana run (the kana
// blocks, less the katakana middle dot, which separates).
func isHanClass(r rune) bool {
	return unicode.Is(unicode.Han, r) || r >= 0x3040 && r <= 0x30FF && r != 0x30FB
}

// checkGenericProperties checks what holds for every output of GenericV2,
// whatever the input:
//   - no empty token, no upper-case ASCII letter, no U+2019;
//   - a token is a word pair exactly when it holds PairSeparator, and then
//     it is two words joined by it;
//   - a word holds no white space, punctuation (but an apostrophe) or
//     symbol, and a token is wholly Han/kana or holds none of it;
//   - pairs appear exactly after each word that follows another word with
//     no Han run between them, and join those two words;
//   - the output is the same on a second call.
func checkGenericProperties(t *testing.T, in string, got []string) {
	t.Helper()
	last := "" // the last word, while no Han token followed it
	for i := 0; i < len(got); i++ {
		tok := got[i]
		if tok == "" {
			t.Fatalf("input %q: empty token at %d in %q", in, i, got)
		}
		if strings.ContainsFunc(tok, func(r rune) bool { return 'A' <= r && r <= 'Z' || r == '’' }) {
			t.Fatalf("input %q: token %q is not lower-cased", in, tok)
		}
		if strings.Contains(tok, PairSeparator) {
			t.Fatalf("input %q: pair %q at %d does not follow its second word (%q)", in, tok, i, got)
		}
		han := strings.ContainsFunc(tok, isHanClass)
		for _, r := range tok {
			if han != isHanClass(r) {
				t.Fatalf("input %q: token %q mixes Han/kana and other runes", in, tok)
			}
			if !han && r != '\'' && (unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsControl(r) || r == utf8.RuneError) {
				t.Fatalf("input %q: word %q holds separator %U", in, tok, r)
			}
		}
		if han {
			if n := utf8.RuneCountInString(tok); n > 2 {
				t.Fatalf("input %q: Han token %q has %d runes", in, tok, n)
			}
			last = ""
			continue
		}
		if last != "" {
			want := last + PairSeparator + tok
			if i+1 >= len(got) || got[i+1] != want {
				t.Fatalf("input %q: want pair %q after %q at %d in %q", in, want, tok, i, got)
			}
			if !IsWordPair(got[i+1]) {
				t.Fatalf("input %q: IsWordPair(%q) is false", in, got[i+1])
			}
			i++ // the pair
		}
		last = tok
	}
	again := GenericV2.AppendTokens([]string{"x"}, in)
	if again[0] != "x" || !slices.Equal(again[1:], got) {
		t.Fatalf("input %q: second call gives %q, first %q", in, again[1:], got)
	}
}

// genericAlphabet is what random inputs are made of: every class the
// tokenizer treats differently, and bytes that are not UTF-8.
var genericAlphabet = []string{
	"a", "e", "s", "y", "g", "B", "Z", "Q", "0", "7", "'", "’", "‘",
	"_", ".", "-", "/", " ", "\t", "\n", ",", "(", "]",
	"the", "of", "please", "don't", "ing", "ies", "ed", "ation", "HTTP", "Server", "getUser",
	"查", "询", "天", "気", "て", "ん", "テ", "ー", "・", "ﾃ", "゛",
	"П", "и", "Σ", "ς", "é", "e\u0301", "ß", "İ", "ǅ", "한", "\u0915\u093f",
	"Ａ", "ｂ", "１", "ﬁ", "①", "²", "Ⅻ", "😀", "\u200b", "\ufeff",
	"\xff", "\xe4\xb8", "\xc3", "\x80",
}

func randomGenericInput(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(24); n > 0; n-- {
		b.WriteString(genericAlphabet[rng.IntN(len(genericAlphabet))])
	}
	return b.String()
}

// TestGenericV2Properties checks the properties on random strings.
func TestGenericV2Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	for range 20000 {
		in := randomGenericInput(rng)
		checkGenericProperties(t, in, genericTokens(in))
	}
}

// FuzzGenericV2 checks the same properties on fuzzed input.
func FuzzGenericV2(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"getWeatherForecast", "HTTPServerError", "api.v2.users", "today’s don't", "查询weather预报", "the weather of the city"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkGenericProperties(t, s, genericTokens(s))
	})
}

// BenchmarkGenericV2 tokenizes a tool description in English and one in
// Chinese into a reused slice.
func BenchmarkGenericV2(b *testing.B) {
	inputs := []struct{ name, text string }{
		{"english", "getWeatherForecast: Returns the current weather and a 5-day forecast for a city, " +
			"including temperature, humidity and wind speed. Use it when the user asks what the weather will be like."},
		{"chinese", "查询指定城市的天气预报，返回未来五天的温度、湿度和风速；当用户询问天气时使用。"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			dst := make([]string, 0, 128)
			b.ReportAllocs()
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				dst = GenericV2.AppendTokens(dst[:0], in.text)
			}
			benchSink = dst
		})
	}
}

// TestGenericV2KanaEdges checks the kana rule at the edges of the kana
// blocks, where the code's block test and the doc comment part: the doc
// says runs of kana characters are unigrams+bigrams and punctuation
// separates. U+30A0 (゠, a punctuation mark in the Katakana block) is no
// kana; U+31F0–U+31FF (Katakana Phonetic Extensions, ㇰ…ㇿ) are katakana
// letters outside U+3040–U+30FF.
func TestGenericV2KanaEdges(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"テ゠ス", []string{"テ", "ス"}},
		{"トㇰ", []string{"ト", "トㇰ", "ㇰ"}},
	}
	for _, c := range cases {
		if got := genericTokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("GenericV2(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

// A memoized tokenizer gives exactly the tokens of the plain one, the first
// time a word is seen and every time after, for words and stop words in any
// case, camel-case splits, pairs, apostrophes, CJK runs and text of other
// scripts; its memo keeps copies, not the texts the words were cut from.
func TestMemoizedGenericV2GivesTheSameTokens(t *testing.T) {
	texts := []string{
		"Create a pull request in the GitHub repository",
		"createPullRequest HTTPServerError PDFs IPv6 today's don’t",
		"THE the The running runs ran",
		"查询日历 schedule 的会议 meeting",
		"Ünïcödé straße ΑΘΗΝΑ русский текст",
		"",
		"a b c d e",
	}
	memo := Memoized(GenericV2)
	for round := 0; round < 3; round++ {
		for _, s := range texts {
			if got, want := memo.AppendTokens(nil, s), GenericV2.AppendTokens(nil, s); !slices.Equal(got, want) {
				t.Fatalf("round %d, %q: memoized %q, plain %q", round, s, got, want)
			}
		}
	}
	if memo.Name() != GenericV2.Name() {
		t.Fatalf("name %q", memo.Name())
	}
	if Memoized(DWSV1) != DWSV1 {
		t.Fatal("dws-v1 has nothing to remember and comes back as it is")
	}
}

// A memo for queries gives the plain tokens too, keeps no more words than
// its limit, and keeps copies: a request read in place may be overwritten
// by the next one, and the words remembered from it must not change.
func TestMemoizedUpToCopiesAndStops(t *testing.T) {
	memo := MemoizedUpTo(GenericV2, 3)
	buffer := []byte("Running Servers today's")
	request := unsafe.String(&buffer[0], len(buffer)) // as the module reads a request
	want := GenericV2.AppendTokens(nil, "Running Servers today's")
	require.Equal(t, want, memo.AppendTokens(nil, request))
	copy(buffer, "XXXXXXXXXXXXXXXXXXXXXXX")
	require.Equal(t, want, memo.AppendTokens(nil, "Running Servers today's"), "remembered tokens must not view the first request")
	for _, s := range []string{"creating many distinct words here", "Running Servers today's"} {
		require.Equal(t, GenericV2.AppendTokens(nil, s), memo.AppendTokens(nil, s), "past its limit: %q", s)
	}
	require.Len(t, memo.(genericV2).memo.tokens, 3)
	require.Equal(t, MemoizedUpTo(DWSV1, 10), DWSV1, "dws-v1 has nothing to remember")
}

func FuzzMemoizedGenericV2(f *testing.F) {
	f.Add("Create a pull request", "createPullRequest the PDFs")
	f.Add("查询 日历", "ÜNÏCÖDÉ straße")
	f.Fuzz(func(t *testing.T, a, b string) {
		memo := Memoized(GenericV2)
		for _, s := range []string{a, b, a + " " + b, b, a} {
			if got, want := memo.AppendTokens(nil, s), GenericV2.AppendTokens(nil, s); !slices.Equal(got, want) {
				t.Fatalf("%q: memoized %q, plain %q", s, got, want)
			}
		}
	})
}

// Strings from the arena keep their text while later joins fill their block
// and start new ones, a join longer than a block included.
func TestStringArenaStringsNeverChange(t *testing.T) {
	var a stringArena
	long := strings.Repeat("x", arenaBlock+1)
	type joined struct{ got, want string }
	var all []joined
	for i := 0; i < 20000; i++ {
		x, y := fmt.Sprint("w", i), fmt.Sprint(i*7)
		if i == 5000 {
			y = long
		}
		all = append(all, joined{a.join(x, PairSeparator, y), x + PairSeparator + y})
	}
	for i, j := range all {
		if j.got != j.want {
			t.Fatalf("join %d: %q, want %q", i, j.got, j.want)
		}
	}
	if got := a.join("", "", ""); got != "" {
		t.Fatalf("empty join: %q", got)
	}
}
