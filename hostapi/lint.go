package hostapi

import (
	"context"
	"encoding/json"
)

// LintExpectation is one query and the tool (canonical path, or any name
// a query resolves exactly) it should find; Lint reports the rank it gets.
type LintExpectation struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

// Lint returns the served catalog's toolsift.lint.v1 report (core/lint;
// docs/CATALOGS.md): unreachable tools, confusable pairs, thin
// descriptions, safety hints and the rank of each expectation, as compact
// JSON, computed in the module from the catalog and index it serves (the
// same bytes as every host). It runs about three searches per tool: for
// the 1,122 DWS tools about a second in the module. An expectation naming
// no tool, or an empty query, is the module's typed validation error
// (unknown_tool, invalid_expectation); the whole request, expectations
// included, is at most 64 KiB.
func (e *Engine) Lint(ctx context.Context, expect []LintExpectation) ([]byte, error) {
	request := struct {
		Op     string            `json:"op"`
		Expect []LintExpectation `json:"expect,omitempty"`
	}{Op: "lint", Expect: expect}
	body, err := json.Marshal(request)
	if err != nil {
		return nil, err // plain strings always encode
	}
	return e.ProviderRaw(ctx, body)
}
