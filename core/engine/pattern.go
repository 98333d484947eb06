package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
)

// Pattern mode: a request with "pattern" instead of "query" selects the
// tools whose text a regular expression matches, as Anthropic's regex tool
// search does, but with the engine's filters, limits and budget, and in a
// fixed order. The expression is RE2 (Go's regexp), matched
// case-insensitively (an implicit (?i)) anywhere in each of a tool's name,
// description, parameter names and parameter descriptions. RE2 runs in time
// linear in the text, so no pattern can make a search slow; the price is
// the syntax Python's re has and RE2 has not: backreferences (\1),
// lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)), possessive
// quantifiers and atomic groups are refused as invalid_pattern; \d, \w, \s
// and \b are ASCII-only (re's are Unicode by default), and a repetition
// count is at most 1000.
//
// Order: tools whose name matches first, then those matched in their
// description, then in a parameter's name, then in a parameter's
// description; within each, canonical path ascending. There are no scores.

// patternFields names the fields a pattern is matched against, in the
// order that ranks a match.
var patternFields = [...]string{"name", "description", "parameter_names", "parameter_descriptions"}

// searchPattern answers a pattern request: validate → compile → hard
// filters → match in field order → cut → finalize under the byte budget.
func (e *Engine) searchPattern(r wire.SearchRequest, dst []byte) (*wire.SearchResponse, []byte, *wire.Error) {
	// 1. Validate: a pattern excludes a query and subqueries; its size and
	// characters are checked before it is compiled.
	if strings.TrimSpace(r.Query) != "" || len(r.Subqueries) > 0 {
		return nil, nil, wire.Validation("pattern_with_query", "a request has either a query (with subqueries) or a pattern, not both")
	}
	if len(r.Pattern) > wire.MaxPatternBytes {
		return nil, nil, wire.Validation("pattern_too_long", fmt.Sprintf("the pattern is longer than %d UTF-8 bytes", wire.MaxPatternBytes))
	}
	if problem := e.unsafeText(r.Pattern); problem != "" {
		return nil, nil, wire.Validation("dangerous_pattern_unicode", "the pattern contains "+problem)
	}
	re, err := regexp.Compile("(?i)" + r.Pattern)
	if err != nil {
		return nil, nil, wire.Validation("invalid_pattern", "the pattern is not an RE2 regular expression: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	q, werr := e.validateFilters(query{}, r)
	if werr != nil {
		return nil, nil, werr
	}

	// 2. Hard filters, then 3. the match: each eligible tool in document
	// (canonical path) order goes into the bucket of its best field.
	eligible := e.eligibility(q)
	var buckets [len(patternFields)][]int
	var matched [len(patternFields)][][]string
	for doc, ok := range eligible {
		if !ok {
			continue
		}
		fields := e.patternMatch(re, doc)
		if len(fields) == 0 {
			continue
		}
		best := fieldIndex(fields[0])
		buckets[best] = append(buckets[best], doc)
		matched[best] = append(matched[best], fields)
	}

	// 4. Cut to the limit in field order and number the ranks.
	response := e.newResponse("", wire.StrategyPattern)
	response.Pattern = r.Pattern
	sources := []string{wire.StrategyPattern}
	for f := range buckets {
		for i, doc := range buckets[f] {
			if len(response.Candidates) == q.limit {
				break
			}
			reference := e.reference(doc, matched[f][i], sources)
			reference.Rank = len(response.Candidates) + 1
			response.Candidates = append(response.Candidates, reference)
		}
	}
	return e.finalize(response, dst)
}

// patternMatch lists the fields of a tool the pattern matches, in
// patternFields order.
func (e *Engine) patternMatch(re *regexp.Regexp, doc int) []string {
	tool := e.tools[doc]
	var fields []string
	if re.MatchString(tool.Identity.Name) {
		fields = append(fields, patternFields[0])
	}
	if re.MatchString(tool.Description) {
		fields = append(fields, patternFields[1])
	}
	for _, p := range tool.Params() {
		if re.MatchString(p.Name) {
			fields = append(fields, patternFields[2])
			break
		}
	}
	for _, p := range tool.Params() {
		if re.MatchString(p.Description) {
			fields = append(fields, patternFields[3])
			break
		}
	}
	return fields
}

func fieldIndex(name string) int {
	for i, f := range patternFields {
		if f == name {
			return i
		}
	}
	return len(patternFields) - 1
}
