package engine

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
)

// Pattern mode: a request with "pattern" instead of "query" selects the
// tools whose text a regular expression matches, as Anthropic's regex tool
// search does, but with the engine's filters, limits and budget, and in a
// fixed order. The expression is RE2 (Go's regexp), matched
// case-insensitively (an implicit (?i)) anywhere in each of a tool's name,
// description, parameter names and parameter descriptions. RE2 runs in time
// linear in the text, but also in the compiled program, and a pattern of a
// few bytes can compile to thousands of instructions ([^x]{0,1000}x): so
// the program is bounded (wire.MaxPatternInstructions) and so is the work of
// one search (wire.MaxPatternWork: instructions × bytes of every text the
// search may read), both checked before anything is compiled or matched,
// and what exceeds them is refused as pattern_too_complex. The price of RE2
// is the syntax Python's re has and it has not: backreferences (\1),
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

// searchPattern answers a pattern request: validate → bound → hard filters
// → bound the work → compile → match in field order → cut → finalize under
// the byte budget.
func (e *Engine) searchPattern(r wire.SearchRequest, dst []byte) (*wire.SearchResponse, []byte, *wire.Error) {
	// 1. and 2.: validate and bound the pattern, apply the hard filters and
	// bound the work they leave, before anything is compiled or matched.
	re, q, eligible, werr := e.admitPattern(r)
	if werr != nil {
		return nil, nil, werr
	}

	// 3. The match: each eligible tool in document (canonical path) order
	// goes into the bucket of its best field.
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

// admitPattern validates a pattern request and returns its compiled
// pattern, filters and eligible tools, or refuses it.
func (e *Engine) admitPattern(r wire.SearchRequest) (*regexp.Regexp, query, []bool, *wire.Error) {
	// 1. Validate: a pattern excludes a query and subqueries; its size and
	// characters are checked before it is parsed, and the program its tree
	// compiles to (the tree is as small as the pattern: RE2's parser bounds
	// it) before it is compiled.
	if strings.TrimSpace(r.Query) != "" || len(r.Subqueries) > 0 {
		return nil, query{}, nil, wire.Validation("pattern_with_query", "a request has either a query (with subqueries) or a pattern, not both")
	}
	if len(r.Pattern) > wire.MaxPatternBytes {
		return nil, query{}, nil, wire.Validation("pattern_too_long", fmt.Sprintf("the pattern is longer than %d UTF-8 bytes", wire.MaxPatternBytes))
	}
	if problem := e.unsafeText(r.Pattern); problem != "" {
		return nil, query{}, nil, wire.Validation("dangerous_pattern_unicode", "the pattern contains "+problem)
	}
	tree, err := syntax.Parse(patternFlags+r.Pattern, syntax.Perl)
	if err != nil {
		return nil, query{}, nil, invalidPattern(err)
	}
	instructions := programSize(tree, wire.MaxPatternInstructions)
	if instructions > wire.MaxPatternInstructions {
		return nil, query{}, nil, wire.Validation("pattern_too_complex", fmt.Sprintf("the pattern compiles to more than %d instructions; use fewer or smaller repetition counts", wire.MaxPatternInstructions))
	}
	q, werr := e.validateFilters(query{}, r)
	if werr != nil {
		return nil, query{}, nil, werr
	}

	// 2. Hard filters, and the work they leave.
	eligible := e.eligibility(q)
	if werr := e.patternWork(eligible, instructions); werr != nil {
		return nil, query{}, nil, werr
	}
	re, err := regexp.Compile(patternFlags + r.Pattern)
	if err != nil {
		return nil, query{}, nil, invalidPattern(err)
	}
	return re, q, eligible, nil
}

// patternFlags makes every pattern case-insensitive.
const patternFlags = "(?i)"

func invalidPattern(err error) *wire.Error {
	return wire.Validation("invalid_pattern", "the pattern is not an RE2 regular expression: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "))
}

// patternWork refuses a search whose work bound, instructions × (bytes +
// 1) of each text patternMatch may read in the eligible tools, exceeds
// wire.MaxPatternWork. RE2 does at most a bounded amount of work per
// instruction and byte (its backtracker visits each pair once, its NFA keeps
// at most one thread per instruction), so this bounds the search's time.
func (e *Engine) patternWork(eligible []bool, instructions int) *wire.Error {
	budget := wire.MaxPatternWork / instructions // bytes the search may read
	read := 0
	for doc, ok := range eligible {
		if !ok {
			continue
		}
		tool := e.tools[doc]
		read += len(tool.Identity.Name) + 1 + len(tool.Description) + 1
		for _, p := range tool.Params() {
			read += len(p.Name) + 1 + len(p.Description) + 1
		}
		if read > budget {
			return wire.Validation("pattern_too_complex", fmt.Sprintf(
				"the pattern compiles to %d instructions and the tools it would read hold more than %d bytes of text: a pattern search does at most %d instructions × bytes of work; narrow it with product_ids or effects, or simplify the pattern",
				instructions, budget, wire.MaxPatternWork))
		}
	}
	return nil
}

// programSize is an upper bound on the number of instructions RE2 compiles
// tree to (regexp/syntax's Compile of tree.Simplify(), as regexp.Compile
// does), saturating at limit+1 so that no count overflows and no repetition
// is expanded.
func programSize(tree *syntax.Regexp, limit int) int {
	return min(2+treeSize(tree, limit), limit+1) // 2: the program's fail and match
}

func treeSize(re *syntax.Regexp, limit int) int {
	over := limit + 1
	switch re.Op {
	case syntax.OpLiteral:
		return min(len(re.Rune), over)
	case syntax.OpCapture:
		return min(2+treeSize(re.Sub[0], limit), over)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		// One alternation, two where a star's body may match empty
		// (compiled as (x+)?).
		return min(2+treeSize(re.Sub[0], limit), over)
	case syntax.OpRepeat:
		// Simplify writes x{n,m} as n copies of x then m-n optional ones
		// (each behind an alternation), x{n,} as n-1 copies then x+ (or
		// x*), and x{0} as an empty match. The parser bounds n and m by
		// 1,000, so no product here overflows.
		sub := treeSize(re.Sub[0], limit)
		if re.Max < 0 {
			return min(max(re.Min, 1)*sub+2, over)
		}
		return min(max(re.Min*sub+(re.Max-re.Min)*(sub+1), 1), over)
	case syntax.OpConcat, syntax.OpAlternate:
		total := len(re.Sub) // an alternation's branch instructions, at most one per branch
		for _, sub := range re.Sub {
			total += treeSize(sub, limit)
			if total > limit {
				return over
			}
		}
		return total
	default: // a character class, any character, an empty-width assertion, an empty or no match
		return 1
	}
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
