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
	counts map[string]int
}

// Tokenize fills x with the terms of each indexed field of tool: the
// projection (Project), tokenized by tok (the profile's tokenizer, possibly
// memoized), filtered (IndexTokens), then the tool's Extra text as the
// profile's ExtraText says, and each field's term frequencies capped at
// TermFrequencyCap when it is set.
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
	if p.TermFrequencyCap > 0 {
		for f := range x.Fields {
			x.Fields[f] = x.capFrequencies(x.Fields[f], p.TermFrequencyCap)
		}
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

// capFrequencies keeps at most limit occurrences of each term, in order.
func (x *FieldTokens) capFrequencies(terms []string, limit int) []string {
	if x.counts == nil {
		x.counts = map[string]int{}
	}
	clear(x.counts)
	kept := terms[:0]
	for _, t := range terms {
		if x.counts[t]++; x.counts[t] <= limit {
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
// and lower-casing ASCII letters. What is kept is s's own text, a dropped
// sentence leaving one space, so a text without repeats is returned as it
// is (and costs no allocation).
func DedupeSentences(s string) string {
	// Most texts have one sentence or none repeated: find the first repeat
	// before building anything.
	var seen map[string]struct{}
	var b strings.Builder
	start, copied := 0, 0
	for start < len(s) {
		end := sentenceEnd(s, start)
		key := sentenceKey(s[start:end])
		if key != "" {
			if seen == nil {
				seen = map[string]struct{}{}
			}
			if _, dup := seen[key]; dup {
				if b.Cap() == 0 {
					b.Grow(len(s))
				}
				b.WriteString(s[copied:start])
				b.WriteByte(' ')
				copied = end
			} else {
				seen[key] = struct{}{}
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

// sentenceKey is the sentence without its end mark, trimmed of white
// space, with ASCII letters lower-cased ("" for a sentence of white space
// alone): a description said twice matches itself even when its last
// sentence has no full stop.
func sentenceKey(sentence string) string {
	sentence = strings.TrimSpace(strings.TrimRight(sentence, ".!?;\n。！？；"))
	for i := 0; i < len(sentence); i++ {
		if c := sentence[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(sentence)
		}
	}
	return sentence
}
