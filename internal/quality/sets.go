package quality

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds what every evaluator of the repository builds its query
// sets from (wasmhost eval, make bench's toolsiftbench prep, make quality's
// scorerun), so that "the same queries as wasmhost eval" is one function
// rather than a copy kept in step by hand.

// FitQuery cuts a benchmark query to a request budget (some benchmark
// queries are whole dialogues): at most maxRunes runes and maxBytes bytes,
// cut at a rune boundary, as an agent would have to. cut reports whether
// anything was dropped.
func FitQuery(text string, maxRunes, maxBytes int) (fitted string, cut bool) {
	runes := 0
	for i, r := range text {
		if runes == maxRunes || i+utf8.RuneLen(r) > maxBytes {
			return text[:i], true
		}
		runes++
	}
	return text, false
}

// WithinBudget reports whether q fits a request budget as it is.
func WithinBudget(q string, maxRunes, maxBytes int) bool {
	return len(q) <= maxBytes && utf8.RuneCountInString(q) <= maxRunes
}

// Relevant counts the judged documents with a grade above 0: a query with
// none is left out of every average (the reference's rule).
func Relevant(judged map[string]int) int {
	n := 0
	for _, grade := range judged {
		if grade > 0 {
			n++
		}
	}
	return n
}

// ProxyTool is what the DWS reference's proxy sets read of one tool. It is
// a plain struct so that any view of a catalog (the core's, a host's) can
// feed it.
type ProxyTool struct {
	CanonicalPath string
	Description   string
	UseWhen       []string
	AvoidWhen     []string
}

// ProxyCase is one query of a proxy set and the tool it is about: the gold
// of an intent, the tool that must not appear for a forbidden sentence.
type ProxyCase struct {
	Query       string
	Tool        string
	Description string // the tool's, for the copied-from-description slice
}

// ProxySets derives the DWS reference's two proxy sets from a catalog's
// tools, in catalog order: every non-empty use_when sentence is an intent
// whose gold is its own tool, every non-empty avoid_when sentence a
// forbidden case. A sentence over the budget is counted and left out, not
// cut (the reference's evaluator does the same). Intents are sorted by tool,
// then by query (byte order), so the set is the same whatever order the
// catalog lists its tools in; forbidden cases keep catalog order.
func ProxySets(tools []ProxyTool, maxRunes, maxBytes int) (intents, forbidden []ProxyCase, intentsOver, forbiddenOver int) {
	for i := range tools {
		t := &tools[i]
		for _, q := range t.UseWhen {
			if q == "" {
				continue
			}
			if !WithinBudget(q, maxRunes, maxBytes) {
				intentsOver++
				continue
			}
			intents = append(intents, ProxyCase{Query: q, Tool: t.CanonicalPath, Description: t.Description})
		}
		for _, q := range t.AvoidWhen {
			if q == "" {
				continue
			}
			if !WithinBudget(q, maxRunes, maxBytes) {
				forbiddenOver++
				continue
			}
			forbidden = append(forbidden, ProxyCase{Query: q, Tool: t.CanonicalPath, Description: t.Description})
		}
	}
	slices.SortStableFunc(intents, func(a, b ProxyCase) int {
		if c := strings.Compare(a.Tool, b.Tool); c != 0 {
			return c
		}
		return strings.Compare(a.Query, b.Query)
	})
	return intents, forbidden, intentsOver, forbiddenOver
}

// CopiedSlice names the slice of an intent by whether its sentence is
// copied from the gold tool's description: those a lexical ranker finds by
// the copy, the others are the harder test.
func CopiedSlice(query, description string) string {
	if strings.Contains(description, query) {
		return "in_description"
	}
	return "not_in_description"
}

// ReadRun reads a ranking made elsewhere: "query-id TAB rank TAB corpus-id"
// lines (rank from 1; blank lines skipped), and returns each query's corpus
// ids best first. Lines of one query may come in any order; two lines with
// the same rank keep their order in the file.
func ReadRun(r io.Reader) (map[string][]string, error) {
	type entry struct {
		rank int
		id   string
	}
	byQuery := map[string][]entry{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimRight(scanner.Text(), "\r")
		if line == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("run line %d: want 3 tab-separated fields, got %d", n, len(fields))
		}
		rank, err := strconv.Atoi(fields[1])
		if err != nil || rank < 1 {
			return nil, fmt.Errorf("run line %d: rank %q is not a positive integer", n, fields[1])
		}
		byQuery[fields[0]] = append(byQuery[fields[0]], entry{rank, fields[2]})
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	ranked := make(map[string][]string, len(byQuery))
	for q, entries := range byQuery {
		slices.SortStableFunc(entries, func(a, b entry) int { return a.rank - b.rank })
		ids := make([]string, len(entries))
		for i, e := range entries {
			ids[i] = e.id
		}
		ranked[q] = ids
	}
	return ranked, nil
}
