package text

// isStopWord reports whether w (lower-case) is an English function word:
// articles, pronouns, auxiliaries, prepositions, conjunctions and the like.
// They carry no sense of what a tool does, and in long task descriptions
// they are most of the words: with them a query's score spreads over every
// tool that uses them. The list is this project's own, kept short on purpose
// (a word that names an action, such as "get", "find" or "show", is never a
// stop word: tool names are made of such words).
func isStopWord(w string) bool {
	if len(w) > 10 {
		return false
	}
	_, ok := stopWords[w]
	return ok
}

var stopWords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could",
		"did", "do", "does", "doing", "down", "during",
		"each", "either",
		"few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself",
		"just",
		"me", "might", "more", "most", "must", "my", "myself",
		"no", "nor", "not", "now",
		"of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
		"please",
		"same", "shall", "she", "should", "so", "some", "such",
		"than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this",
		"those", "through", "to", "too",
		"under", "until", "up", "us",
		"very",
		"was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will",
		"with", "would",
		"you", "your", "yours", "yourself", "yourselves",
		// Contractions (the tokenizer keeps an apostrophe between letters).
		"can't", "don't", "doesn't", "didn't", "i'd", "i'll", "i'm", "i've", "isn't", "it's", "let's", "that's",
		"there's", "we're", "we've", "what's", "won't", "you're", "you've",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()
