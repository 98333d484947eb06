package text

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestGenericV3Examples(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"请帮我查一下明天的天气", []string{"请帮", "帮我", "我查", "查", "查一", "一下", "下", "下明", "明", "明天", "天", "天的", "的天", "天", "天气", "气"}},
		{"会议", []string{"会议", "议"}},
		{"的", nil},
		{"get weather 的天气", []string{"get", "weather", "get weather", "的天", "天", "天气", "气"}},
	} {
		if got := GenericV3.AppendTokens(nil, c.in); !slices.Equal(got, c.want) {
			t.Errorf("GenericV3(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

func TestGenericV3Registered(t *testing.T) {
	tok, ok := Lookup("generic-v3")
	if !ok || tok.Name() != "generic-v3" || tok != GenericV3 {
		t.Fatalf("Lookup(generic-v3) = %v, %v", tok, ok)
	}
	if memo := Memoized(GenericV3); memo.Name() != "generic-v3" {
		t.Fatalf("Memoized(GenericV3) is %s", memo.Name())
	}
	// The list and the switch say the same.
	n := 0
	for r := rune(0x3000); r <= 0x9FFF; r++ {
		if isHanStop(r) {
			n++
		}
	}
	if n != utf8.RuneCountInString(HanStopWords) {
		t.Fatalf("isHanStop holds %d characters, HanStopWords %d", n, utf8.RuneCountInString(HanStopWords))
	}
	for _, r := range HanStopWords {
		if !isHanStop(r) {
			t.Fatalf("isHanStop(%q) is false", r)
		}
	}
}

// checkGenericV3 checks GenericV3's definition: GenericV2's tokens less the
// unigrams of HanStopWords, for plain and memoized tokenizers alike.
func checkGenericV3(t *testing.T, in string) {
	t.Helper()
	var want []string
	for _, tok := range GenericV2.AppendTokens(nil, in) {
		if r, n := utf8.DecodeRuneInString(tok); n == len(tok) && isHanStop(r) {
			continue
		}
		want = append(want, tok)
	}
	if got := GenericV3.AppendTokens(nil, in); !slices.Equal(got, want) {
		t.Fatalf("GenericV3(%q)\n got  %q\n want %q", in, got, want)
	}
	if got := Memoized(GenericV3).AppendTokens(nil, in); !slices.Equal(got, want) {
		t.Fatalf("Memoized(GenericV3)(%q)\n got  %q\n want %q", in, got, want)
	}
}

func TestGenericV3Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 6))
	alphabet := append(slices.Clone(genericAlphabet), "的", "我", "请", "会", "议", "了吗")
	for range 20000 {
		var b []byte
		for n := rng.IntN(24); n > 0; n-- {
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		checkGenericV3(t, string(b))
	}
}

// FuzzGenericV3 checks the definition on fuzzed input.
func FuzzGenericV3(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"请帮我查一下明天的天气", "我的文件", "的", "get 的 weather", "会议纪要"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkGenericV3(t, s) })
}
