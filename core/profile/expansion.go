package profile

import (
	"slices"
	"strings"

	"github.com/toolsift/toolsift/core/text"
)

// Tool names are made of a few action verbs (create, get, list, delete,
// update, send, search) that users rarely type: they "open" a pull
// request, "show" their channels, "look up" a word, "remove" a file. So a
// query word that is one of those everyday verbs also asks, at a fraction
// of a word's weight, for the verbs that tool names use for the same
// action. The table goes one way (from what people say to what tools are
// named), and only between verbs that mean the same act on a tool: "add"
// does not expand to "create", "open" does not expand to "read".
//
// Keys and values are plain English words; the table is stemmed the way
// the generic-v2 tokenizer stems, so it matches its tokens.
var actionSynonymWords = [][2]string{
	{"open", "create"},
	{"make", "create"},
	{"new", "create"},
	{"start", "create, run"},
	{"show", "list, get"},
	{"display", "list, get, show"},
	{"see", "list, get, view"},
	{"view", "get, list, show"},
	{"fetch", "get, retrieve"},
	{"retrieve", "get, fetch"},
	{"obtain", "get"},
	{"find", "search, get"},
	{"look", "search, find, get"},
	{"lookup", "search, find, get"},
	{"locate", "search, find"},
	{"query", "search, get"},
	{"search", "find"},
	{"remove", "delete"},
	{"erase", "delete"},
	{"drop", "delete, remove"},
	{"delete", "remove"},
	{"change", "update, edit, modify, set"},
	{"edit", "update, modify"},
	{"modify", "update, edit"},
	{"update", "edit, modify"},
	{"rename", "update"},
	{"post", "send"},
	{"send", "post"},
	{"message", "send"},
	{"email", "send"},
	{"launch", "start, run"},
	{"execute", "run"},
	{"stop", "cancel, terminate"},
	{"cancel", "stop, delete"},
	{"terminate", "stop"},
	{"book", "reserve"},
	{"reserve", "book"},
	{"buy", "purchase, order"},
	{"purchase", "buy, order"},
	{"compute", "calculate"},
	{"calculate", "compute"},
	{"download", "get, fetch"},
	{"upload", "push"},
	{"save", "write, store"},
	{"store", "save, write"},
	{"write", "create, save"},
	{"read", "get, view"},
	{"check", "get, verify"},
	{"verify", "check, validate"},
	{"validate", "check, verify"},
	{"convert", "transform"},
	{"transform", "convert"},
}

// abbreviationWords expand the short forms of software and office nouns
// that people type and tool descriptions spell out ("what changed in PR
// 12", "list files in a folder"), and a few nouns with one common synonym.
var abbreviationWords = [][2]string{
	{"pr", "pull request"},
	{"prs", "pull request"},
	{"repo", "repository"},
	{"repos", "repository"},
	{"dir", "directory, folder"},
	{"folder", "directory"},
	{"directory", "folder"},
	{"msg", "message"},
	{"db", "database"},
	{"doc", "document"},
	{"docs", "document, documentation"},
	{"info", "information"},
	{"img", "image"},
	{"pic", "image, picture"},
	{"photo", "image, picture"},
	{"picture", "image, photo"},
	{"image", "picture, photo"},
	{"config", "configuration, settings"},
	{"settings", "configuration, config"},
	{"env", "environment"},
	{"auth", "authentication"},
	{"dm", "direct message"},
	{"ppt", "powerpoint, presentation"},
	{"slides", "presentation"},
	{"stats", "statistics"},
	{"addr", "address"},
	{"app", "application"},
	{"qty", "quantity"},
}

// querySynonyms maps a query token to the tokens of its expansions, all in
// the generic-v2 tokenizer's form (stemmed, with word pairs).
var querySynonyms = func() map[string][]string {
	tokenizer := text.GenericV2
	m := make(map[string][]string, len(actionSynonymWords)+len(abbreviationWords))
	for _, table := range [][][2]string{actionSynonymWords, abbreviationWords} {
		for _, entry := range table {
			keys := tokenizer.AppendTokens(nil, entry[0])
			if len(keys) != 1 {
				panic("profile: query synonym key " + entry[0] + " is not one generic-v2 word")
			}
			key := keys[0]
			for _, phrase := range strings.Split(entry[1], ",") {
				for _, token := range tokenizer.AppendTokens(nil, phrase) {
					if token != key && !slices.Contains(m[key], token) {
						m[key] = append(m[key], token)
					}
				}
			}
		}
	}
	return m
}()

// AppendExpansions appends the expansion terms of a tokenized query (see
// QueryExpansion) to dst. Their order does not matter: the index adds them
// in vocabulary order, once each, and not at all where the query has them.
func (p *Profile) AppendExpansions(dst, tokens []string) []string {
	if p.QueryExpansion != ExpandActionVerbs {
		return dst
	}
	for _, token := range tokens {
		if len(token) <= synonymKeyMax { // word pairs are longer: no map lookup
			dst = append(dst, querySynonyms[token]...)
		}
	}
	return dst
}

// synonymKeyMax is the length of the longest word querySynonyms has.
// AppendExpansions looks up only tokens that short: a StableToolBench query
// has about as many word pairs as words, and a map lookup per token was
// 1.7% of its instructions in the module on wazero.
var synonymKeyMax = func() int {
	n := 0
	for key := range querySynonyms {
		n = max(n, len(key))
	}
	return n
}()
