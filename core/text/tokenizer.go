package text

// Tokenizer turns text into index and query terms.
//
// Implementations are immutable and safe for concurrent use. The same
// tokenizer must be used for the index and for queries against it.
type Tokenizer interface {
	// Name returns the registered name, e.g. "dws-v1". A name never changes
	// meaning once released: new behaviour gets a new name.
	Name() string
	// AppendTokens appends the tokens of text to dst and returns the
	// extended slice. Duplicates are kept and order matters (callers count
	// term frequencies). Passing a reused dst[:0] avoids growing a new slice.
	AppendTokens(dst []string, text string) []string
}

// registry maps released names to tokenizers. It is fixed at init time and
// only read afterwards, so lookups need no locking.
var registry = map[string]Tokenizer{
	DWSV1.Name():     DWSV1,
	GenericV2.Name(): GenericV2,
	GenericV3.Name(): GenericV3,
}

// Lookup returns the tokenizer registered under name, and whether there is
// one. Cost: one map lookup, no allocation.
func Lookup(name string) (Tokenizer, bool) {
	t, ok := registry[name]
	return t, ok
}

// Memoized returns a tokenizer that gives exactly t's tokens and remembers
// the costliest per-word work (for generic-v2: lower-casing, the stop list
// and the Porter2 stem of each distinct word) across calls. Building an
// index tokenizes the same words again and again: tokenizing every field of
// 3,608 MCP tools natively took 53 ms with the memo and its pair arena
// against 112 ms without, and 7,689 allocations against 229,278 (medians of
// three, GOMAXPROCS=1, 2026-12-02). Unlike t
// it is not safe for concurrent use, and it grows with the vocabulary; make
// one per build and drop it. Tokenizers with nothing to remember are
// returned as they are.
func Memoized(t Tokenizer) Tokenizer { return memoized(t, 0) }

// MemoizedUpTo is Memoized for query after query: it remembers at most
// words distinct words, and copies what it keeps (a query's text may not
// outlive the call: the module reads requests in place), so it neither
// grows without bound nor holds on to requests. Like Memoized it is not
// safe for concurrent use: keep one per query scratch. Why: in WebAssembly
// tokenizing was 22% of a StableToolBench query, lower-casing, the stop
// list and the Porter2 stem 13% (a Node CPU profile), and an agent's
// queries reuse their words.
func MemoizedUpTo(t Tokenizer, words int) Tokenizer { return memoized(t, max(words, 1)) }

func memoized(t Tokenizer, limit int) Tokenizer {
	if g, ok := t.(genericV2); ok {
		return genericV2{memo: &wordMemo{tokens: map[string]string{}, limit: limit}, hanStops: g.hanStops}
	}
	return t
}
