package wire

import "strconv"

// The budgets of tool-search.v1, the one place that knows them.
const (
	DefaultLimit          = 5
	DefaultCandidateLimit = 20
	MaxLimit              = 20
	MaxCandidateLimit     = 100
	MaxQueryRunes         = 256
	MaxQueryBytes         = 2 << 10
	MaxSubqueries         = 8
	MaxSubqueriesBytes    = 2 << 10 // all subqueries together
	MaxSummaryRunes       = 256     // title and agent_summary in a reference
	MaxResponseBytes      = 8 << 10 // compact JSON plus one newline
	MaxRequestBytes       = 64 << 10
	MaxPatternBytes       = 256 // a pattern request's regular expression
	// A pattern's compiled program has at most MaxPatternInstructions
	// instructions, and one search at most MaxPatternWork units of work:
	// instructions × (bytes + 1) of every text it may scan. RE2 is linear in
	// the text but also in the program, and a pattern of 19 bytes compiles to
	// 2,000 instructions; these bound the product (docs/INTEGRATIONS.md has
	// the measured cost of the slowest pattern they admit).
	MaxPatternInstructions = 1000
	MaxPatternWork         = 1 << 25
)

// Wire versions.
const (
	SearchVersion  = "tool-search.v1"
	InspectVersion = "schema-inspect.v1"
)

// RequestTooLarge is the refusal of a request over MaxRequestBytes; what
// names it ("tool-search.v1", "schema-inspect.v1", "provider", or "the" for a
// line a CLI reads). The module reports these words (toolsift_limits), so
// that a host refusing a request before copying it in says exactly what the
// module would.
func RequestTooLarge(what string) *Error {
	return Validation("request_too_large", what+" request is larger than "+strconv.Itoa(MaxRequestBytes)+" bytes")
}
