package hostapi

import (
	"context"
	"encoding/json"

	"github.com/toolsift/toolsift/core/lint"
)

// LintExpectation is one query and the tool (canonical path, or any name
// a query resolves exactly) it should find; Lint reports the rank it gets.
type LintExpectation = lint.Expectation

// LintReport is the decoded toolsift.lint.v1 report (core/lint), with
// WriteTable (the table `wasmhost lint` prints) and FailsAt (a CI's
// --fail-on).
type LintReport = lint.Report

// Lint returns the served catalog's toolsift.lint.v1 report (core/lint;
// docs/CATALOGS.md): unreachable tools, confusable pairs, thin
// descriptions, safety hints and the rank of each expectation, as compact
// JSON, computed from the catalog and index the engine serves (the same
// bytes from the module and the native engine, and in every host). It runs
// about three searches per tool: for the 1,122 DWS tools about 1.1 s in the
// module and 0.21 s natively (docs/BENCHMARKS.md, "wasmhost lint"). An expectation naming no tool, or an empty
// query, is a validation *wire.Error (unknown_tool, invalid_expectation);
// the whole request, expectations included, is at most 64 KiB.
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

// LintReport is Lint decoded.
func (e *Engine) LintReport(ctx context.Context, expect []LintExpectation) (*LintReport, error) {
	out, err := e.Lint(ctx, expect)
	if err != nil {
		return nil, err
	}
	var report LintReport
	if err := json.Unmarshal(out, &report); err != nil {
		return nil, abiErrorf("the lint report does not decode: %v", err)
	}
	return &report, nil
}
