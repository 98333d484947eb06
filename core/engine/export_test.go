package engine

import "github.com/toolsift/toolsift/core/wire"

// Exhaustive returns a view of e that scores every eligible document even
// where index.TopBM25F would find the best k without (the path the top-k
// tests compare it with).
func Exhaustive(e *Engine) *Engine {
	view := *e
	view.exhaustive = true
	return &view
}

// PatternAdmitted runs a pattern request's validation and bounds without
// matching anything: nil where Search would match.
func PatternAdmitted(e *Engine, r wire.SearchRequest) error {
	_, _, _, err := e.admitPattern(r)
	return wire.AsError(err)
}

// WorstPatterns: see worstPatterns.
var WorstPatterns = worstPatterns
