package profile

import (
	"strings"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
)

// FieldTokens holds the terms a profile indexes for one tool, field by
// field. Reuse one across the tools of a build: its buffers and its set of
// seen terms are kept between calls.
type FieldTokens struct {
	Fields [NumFields][]string
	seen   map[string]struct{}
}

// Tokenize fills x with the terms of each indexed field of tool: the
// projection (Project), tokenized by tok (the profile's tokenizer, possibly
// memoized), filtered (IndexTokens), then the tool's Extra text as the
// profile's ExtraText says. (TermFrequencyCap is applied by the index
// builder, which counts each term's frequency anyway.)
func (p *Profile) Tokenize(x *FieldTokens, tok text.Tokenizer, tool *catalog.Tool, product *catalog.Product) {
	fields := p.Project(tool, product)
	for f := Field(0); f < NumFields; f++ {
		x.Fields[f] = p.IndexTokens(f, tok.AppendTokens(x.Fields[f][:0], fields[f]))
	}
	if extra := strings.TrimSpace(tool.Extra); extra != "" && p.ExtraText != ExtraNone {
		if p.DedupeSentences {
			extra = DedupeSentences(extra)
		}
		x.Fields[p.ExtraField] = p.appendExtra(x, tok, extra)
	}
}

// appendExtra appends extra's terms to the profile's ExtraField: all of
// them (ExtraWhole), or only those no field of the tool holds yet, each
// once (ExtraNovel). Extra text is everything of a tool's record without a
// role, much of it a second rendering of what the fields say (a BEIR
// record's text, a return value's description of the parameters): indexed
// whole it counts those words again, which lost on every public set;
// its novel terms are words the tool is otherwise not found by.
func (p *Profile) appendExtra(x *FieldTokens, tok text.Tokenizer, extra string) []string {
	dst := x.Fields[p.ExtraField]
	n := len(dst)
	dst = tok.AppendTokens(dst, extra)
	if p.ExtraText == ExtraWhole {
		return dst
	}
	if x.seen == nil {
		x.seen = map[string]struct{}{}
	}
	clear(x.seen)
	for f := range x.Fields {
		terms := x.Fields[f]
		if Field(f) == p.ExtraField {
			terms = dst[:n]
		}
		for _, t := range terms {
			x.seen[t] = struct{}{}
		}
	}
	kept := dst[:n]
	for _, t := range dst[n:] {
		if _, ok := x.seen[t]; !ok {
			x.seen[t] = struct{}{}
			kept = append(kept, t)
		}
	}
	return kept
}

// DedupeSentences returns s without each sentence that repeats an earlier
// one: a hostile copy of a tool that says its description twice (or ten
// times) then indexes what the original does. A sentence ends after '.',
// '!', '?', ';', their fullwidth forms (。！？；) or a line break; two
// sentences are the same when they are equal after trimming white space
// and the end mark, ignoring the case of ASCII letters. What is kept is s's
// own text, a dropped sentence leaving one space, so a text without
// repeats is returned as it is, without allocating.
func DedupeSentences(s string) string {
	// Most fields hold a few sentences: each is compared with those before
	// it. Past dedupeLinear, an index by a hash of their case-folded bytes
	// finds the candidates (a collision falls back to comparing with all).
	// Either way nothing is allocated until a sentence repeats, but for
	// the index and the list of a field's sentences past dedupeLinear.
	var small [dedupeLinear]string
	kept := small[:0]
	var byHash map[uint64]string
	var b strings.Builder
	start, copied := 0, 0
	for start < len(s) {
		end := sentenceEnd(s, start)
		if key := sentenceKey(s[start:end]); key != "" {
			var h uint64
			dup := false
			if byHash == nil {
				dup = containsFold(kept, key)
			} else {
				h = foldHash(key)
				if k, ok := byHash[h]; ok {
					dup = asciiEqualFold(k, key) || containsFold(kept, key)
				}
			}
			switch {
			case dup:
				if b.Cap() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[copied:start])
				b.WriteByte(' ')
				copied = end
			case byHash != nil:
				kept = append(kept, key)
				if _, ok := byHash[h]; !ok {
					byHash[h] = key
				}
			default:
				kept = append(kept, key)
				if len(kept) == dedupeLinear {
					byHash = make(map[uint64]string, 4*dedupeLinear)
					for _, k := range kept {
						if h := foldHash(k); byHash[h] == "" {
							byHash[h] = k
						}
					}
				}
			}
		}
		start = end
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// containsFold: some sentence of kept equals key but for ASCII case.
func containsFold(kept []string, key string) bool {
	for _, k := range kept {
		if asciiEqualFold(k, key) {
			return true
		}
	}
	return false
}

// foldHash is FNV-1a over s with ASCII letters lower-cased.
func foldHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(asciiLowerByte(s[i]))
		h *= 1099511628211
	}
	return h
}

// dedupeLinear is the most sentences DedupeSentences compares pairwise.
const dedupeLinear = 16

// sentenceEnd is the index just past the sentence that starts at start.
func sentenceEnd(s string, start int) int {
	for i := start; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch r {
		case '.', '!', '?', ';', '\n', '。', '！', '？', '；':
			return i
		}
	}
	return len(s)
}

// sentenceKey is the sentence without its end mark and trimmed of white
// space ("" for a sentence of white space alone): a description said twice
// matches itself even when its last sentence has no full stop.
func sentenceKey(sentence string) string {
	return strings.TrimSpace(strings.TrimRight(sentence, ".!?;\n。！？；"))
}

// asciiEqualFold: a and b are equal but for the case of ASCII letters.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if x, y := a[i], b[i]; x != y && asciiLowerByte(x) != asciiLowerByte(y) {
			return false
		}
	}
	return true
}

func asciiLowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
