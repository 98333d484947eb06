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
}

// Lookup returns the tokenizer registered under name, and whether there is
// one. Cost: one map lookup, no allocation.
func Lookup(name string) (Tokenizer, bool) {
	t, ok := registry[name]
	return t, ok
}
