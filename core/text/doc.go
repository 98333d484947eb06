// Package text owns every step that turns raw catalog or request text into
// search terms: Unicode normalisation, the unsafe-character checks applied to
// requests, and the tokenizers.
//
// The tokenizer pipeline is
//
//	NFKC normalise → identifier pass → camelCase split → Han unigram+bigram / word
//
// 1. NFKC folds full-width ASCII, compatibility ideographs, ligatures and
// superscripts into their plain forms, so "ｃｈａｔ．ｓｅｎｄ" and "chat.send"
// tokenize identically.
//
// 2. The identifier pass emits whole dotted/underscored/hyphenated ASCII
// identifiers ("chat.send", "task_id", "2026-08-12") lower-cased, so exact
// identifier queries score on a single rare term.
//
// 3. The camelCase split separates "openConversationId" into "open
// Conversation Id" (a lower-case letter or digit followed by an upper-case
// letter starts a new word; runs of capitals such as "HTTPServer" stay whole).
//
// 4. The final scan emits each maximal run of Han characters as overlapping
// unigrams and bigrams (Chinese has no spaces, so bigrams approximate words
// while unigrams keep recall) and every other run of letters or digits as one
// lower-cased word.
//
// Tokenizers are registered under a name (see [Lookup]). A name is a promise:
// a ranking profile that says "dws-v1" must get byte-for-byte the same tokens
// forever, because index and query have to agree and because results are
// compared against a reference engine. Any change of output, however small,
// needs a new name. The output also depends on the Unicode tables of the Go
// toolchain and of golang.org/x/text; the tests pin those versions so an
// upgrade that would silently change dws-v1 fails loudly instead.
//
// Nothing here uses regexp or reflection: both are slow and bulky once
// compiled to WebAssembly (GOOS=wasip1 GOARCH=wasm).
package text
