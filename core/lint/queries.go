package lint

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
)

// Checks, as a finding names them.
const (
	CheckUnreachable                   = "unreachable"
	CheckConfusable                    = "confusable"
	CheckNotExecutable                 = "not_executable"
	CheckExpectation                   = "expectation"
	CheckDescriptionEmpty              = "description_empty"
	CheckDescriptionShort              = "description_short"
	CheckDescriptionRepeatsName        = "description_repeats_name"
	CheckNoActionWord                  = "no_action_word"
	CheckParametersUndocumented        = "parameters_undocumented"
	CheckEnumUnexplained               = "enum_unexplained"
	CheckUnannotated                   = "unannotated"
	CheckDeletingNameReadOnly          = "deleting_name_read_only"
	CheckDeprecated                    = "deprecated"
	CheckDeprecatedOutranksReplacement = "deprecated_outranks_replacement"
	CheckAddressesModel                = "addresses_model"
	CheckDirectsOtherTool              = "directs_other_tool"
	CheckHiddenCharacters              = "hidden_characters"
)

// Kinds of self-query.
const (
	KindSummary       = "summary"        // the tool's agent summary
	KindTitle         = "title"          // its title, when it has no summary
	KindFirstSentence = "first_sentence" // its description's first sentence
	KindNameWords     = "name_words"     // its name split into words
)

// selfQuery is one search made from a tool's own text, with its ranking.
type selfQuery struct {
	kind, query string
	docs        []int // ranked, at most RankLimit
	rank        int   // the tool's, 1-based; 0: not ranked
}

// selfQueries builds and runs every executable tool's self-queries. A
// tool an agent may not run is never returned by a search without filters:
// it gets a not_executable finding instead.
func (l *linter) selfQueries() {
	l.queries = make([][]selfQuery, len(l.paths))
	maxRunes, maxBytes := l.e.Profile().QueryBudget()
	for doc, tool := range l.e.Tools() {
		if !l.e.Executable(doc) {
			reason := strings.TrimSpace(tool.Interface.Reason)
			if reason == "" {
				reason = fmt.Sprintf("mode %q, availability %q", tool.Interface.Mode, tool.Interface.Availability)
			}
			l.add(Finding{Level: Info, Check: CheckNotExecutable, Tool: l.paths[doc],
				Message: "search never returns it: its interface does not let an agent run it (" + reason + ")"})
			continue
		}
		for _, q := range toolQueries(tool, maxRunes, maxBytes) {
			docs, _, err := l.e.Rank(q.query, RankLimit)
			if err != nil {
				continue // a text the engine refuses as a query (hidden_characters reports it)
			}
			q.docs, q.rank = docs, slices.Index(docs, doc)+1
			l.queries[doc] = append(l.queries[doc], q)
		}
	}
}

// toolQueries are a tool's self-queries, each text once, cut to the
// profile's query budget.
func toolQueries(tool *catalog.Tool, maxRunes, maxBytes int) []selfQuery {
	var out []selfQuery
	add := func(kind, q string) {
		q = clip(cleanQuery(q), maxRunes, maxBytes)
		if q == "" {
			return
		}
		for _, have := range out {
			if strings.EqualFold(have.query, q) {
				return
			}
		}
		out = append(out, selfQuery{kind: kind, query: q})
	}
	if s := strings.TrimSpace(tool.Selection.AgentSummary); s != "" {
		add(KindSummary, s)
	} else if t := strings.TrimSpace(tool.Title); t != "" {
		add(KindTitle, t)
	}
	add(KindFirstSentence, FirstSentence(tool.Description))
	add(KindNameWords, strings.Join(NameWords(tool.Identity.Name), " "))
	return out
}

// cleanQuery replaces what a query may not hold (controls, invisible and
// direction-changing characters) with spaces and collapses white space.
func cleanQuery(s string) string {
	s = strings.Map(func(r rune) rune {
		if hidden(r) || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// clip cuts s to at most maxRunes runes and maxBytes bytes, at a space
// where one is in its second half.
func clip(s string, maxRunes, maxBytes int) string {
	if utf8.RuneCountInString(s) <= maxRunes && len(s) <= maxBytes {
		return s
	}
	end, runes := 0, 0
	for i, r := range s {
		if runes == maxRunes || i+utf8.RuneLen(r) > maxBytes {
			break
		}
		end, runes = i+utf8.RuneLen(r), runes+1
	}
	cut := s[:end]
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)/2 {
		cut = cut[:sp]
	}
	return strings.TrimSpace(cut)
}

// FirstSentence is the text up to its first sentence end: . ! ? followed
// by white space or the end, a full-width 。！？, or a line break.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i, r := range s {
		switch r {
		case '\n', '。', '！', '？':
			return strings.TrimSpace(s[:i])
		case '.', '!', '?':
			rest := s[i+1:]
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n' {
				return strings.TrimSpace(s[:i])
			}
		}
	}
	return s
}

// NameWords splits an identifier into lower-case words: at _ - . / : and
// spaces, and where a lower-case letter or digit meets an upper-case one
// (createPullRequest, HTTPServer → http server).
func NameWords(name string) []string {
	var words []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			words = append(words, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		word = append(word, r)
	}
	flush()
	return words
}

// reachability reports every tool none of whose self-queries ranks it
// within TopK.
func (l *linter) reachability() {
	for doc, queries := range l.queries {
		if len(queries) == 0 {
			continue
		}
		reached := false
		for _, q := range queries {
			reached = reached || q.rank >= 1 && q.rank <= TopK
		}
		if reached {
			continue
		}
		var results []QueryResult
		var parts []string
		for _, q := range queries {
			rank, winners := l.rankOf(doc, q.query, q.docs)
			results = append(results, QueryResult{Of: l.paths[doc], Kind: q.kind, Query: q.query, Rank: rank, Winners: winners})
			parts = append(parts, fmt.Sprintf("%q (%s) ranks it %s after %s", q.query, q.kind, rankText(rank), winnerList(winners)))
		}
		l.add(Finding{Level: Warning, Check: CheckUnreachable, Tool: l.paths[doc],
			Message: fmt.Sprintf("no query made of its own text ranks it in the top %d: %s", TopK, strings.Join(parts, "; ")),
			Queries: results})
	}
}

// confusables reports pairs of tools that each rank first for a
// self-query of the other, and pairs whose term sets are near-duplicates,
// one finding per pair (Tool < Other).
func (l *linter) confusables() {
	type pair struct{ a, b int }
	// firstFor[a] lists the tools ranked first by a self-query of a that
	// does not rank a first, with those queries.
	firstFor := make([]map[int][]selfQuery, len(l.queries)) // lookup only, never iterated
	for doc, queries := range l.queries {
		for _, q := range queries {
			if len(q.docs) == 0 || q.docs[0] == doc {
				continue
			}
			if firstFor[doc] == nil {
				firstFor[doc] = map[int][]selfQuery{}
			}
			firstFor[doc][q.docs[0]] = append(firstFor[doc][q.docs[0]], q)
		}
	}
	var mutual []pair
	for a, queries := range l.queries {
		seen := map[int]bool{}
		for _, q := range queries {
			if len(q.docs) == 0 || q.docs[0] == a || seen[q.docs[0]] {
				continue
			}
			b := q.docs[0]
			seen[b] = true
			if a < b && firstFor[b] != nil && len(firstFor[b][a]) > 0 {
				mutual = append(mutual, pair{a, b})
			}
		}
	}
	near := l.terms.nearDuplicates()
	// Merge both lists (each sorted by (a, b)) into one finding per pair.
	slices.SortFunc(mutual, func(p, q pair) int {
		if p.a != q.a {
			return p.a - q.a
		}
		return p.b - q.b
	})
	i, j := 0, 0
	for i < len(mutual) || j < len(near) {
		var p pair
		isMutual, nearPermille := false, -1
		switch {
		case j == len(near) || i < len(mutual) && (mutual[i].a < near[j].a || mutual[i].a == near[j].a && mutual[i].b < near[j].b):
			p, isMutual = mutual[i], true
			i++
		case i == len(mutual) || near[j].a < mutual[i].a || near[j].a == mutual[i].a && near[j].b < mutual[i].b:
			p, nearPermille = pair{near[j].a, near[j].b}, near[j].permille
			j++
		default:
			p, isMutual, nearPermille = mutual[i], true, near[j].permille
			i++
			j++
		}
		l.confusable(p.a, p.b, isMutual, nearPermille, firstFor)
	}
}

func (l *linter) confusable(a, b int, isMutual bool, nearPermille int, firstFor []map[int][]selfQuery) {
	ta, tb := l.terms.doc[a], l.terms.doc[b]
	shared := l.terms.intersect(ta, tb)
	f := Finding{Level: Warning, Check: CheckConfusable, Tool: l.paths[a], Other: l.paths[b],
		SharedTerms: l.terms.names(shared, MaxTerms, a, b),
		OnlyTool:    l.terms.names(l.withoutNames(l.terms.minus(ta, tb), a), MaxTerms, a),
		OnlyOther:   l.terms.names(l.withoutNames(l.terms.minus(tb, ta), b), MaxTerms, b),
	}
	if union := len(ta) + len(tb) - len(shared); union > 0 {
		f.SimilarityPermille = 1000 * len(shared) / union
	}
	var why []string
	if isMutual {
		f.Items = append(f.Items, "mutual_first")
		for _, q := range firstFor[a][b] {
			f.Queries = append(f.Queries, QueryResult{Of: l.paths[a], Kind: q.kind, Query: q.query, Rank: q.rank, Winners: l.winnersAbove(a, q)})
		}
		for _, q := range firstFor[b][a] {
			f.Queries = append(f.Queries, QueryResult{Of: l.paths[b], Kind: q.kind, Query: q.query, Rank: q.rank, Winners: l.winnersAbove(b, q)})
		}
		why = append(why, "each ranks first for a query made of the other's text")
	}
	if nearPermille >= 0 {
		f.Items = append(f.Items, "near_duplicate")
		why = append(why, fmt.Sprintf("their indexed words are %d‰ the same", nearPermille))
	}
	separated := "nothing but their names separates them: every other indexed word of one is a word of the other"
	if len(f.OnlyTool)+len(f.OnlyOther) > 0 {
		separated = fmt.Sprintf("words only %s has: %s; only %s has: %s",
			l.paths[a], listOrNone(f.OnlyTool), l.paths[b], listOrNone(f.OnlyOther))
	}
	f.Message = strings.Join(why, ", and ") + "; " + separated
	l.add(f)
}

// withoutNames drops the terms that are one of doc's own names whole
// (name, canonical path, CLI paths, aliases): two tools' names always
// differ, which tells an author nothing.
func (l *linter) withoutNames(ids []int32, doc int) []int32 {
	identity := l.e.Tools()[doc].Identity
	names := append([]string{identity.Name, identity.CanonicalPath, identity.Path, identity.CLIName, identity.CLIPath, identity.PrimaryCLIPath}, identity.Aliases...)
	out := ids[:0:0]
	for _, id := range ids {
		term := l.terms.vocab[id]
		own := false
		for _, name := range names {
			own = own || name != "" && strings.EqualFold(name, term)
		}
		if !own {
			out = append(out, id)
		}
	}
	return out
}

func (l *linter) winnersAbove(doc int, q selfQuery) []Winner {
	_, winners := l.rankOf(doc, q.query, q.docs)
	return winners
}

func listOrNone(words []string) string {
	if len(words) == 0 {
		return "none"
	}
	return strings.Join(words, ", ")
}

// hidden reports a rune that displays as nothing or changes direction:
// what text.CheckUnsafeStrict refuses in a query, besides the C0 controls
// that prose legitimately holds (\t, \n, \r).
func hidden(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return text.CheckUnsafeStrict(string(r)) != text.Safe
}
