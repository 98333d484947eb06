package wire

import "github.com/toolsift/toolsift/core/internal/jsonw"

// limitFields are the budgets of tool-search.v1 (core/wire) the module
// reports, in this order.
var limitFields = []struct {
	name  string
	value int
}{
	{"max_request_bytes", MaxRequestBytes},
	{"max_response_bytes", MaxResponseBytes},
	{"default_limit", DefaultLimit},
	{"max_limit", MaxLimit},
	{"default_candidate_limit", DefaultCandidateLimit},
	{"max_candidate_limit", MaxCandidateLimit},
	{"max_query_runes", MaxQueryRunes},
	{"max_query_bytes", MaxQueryBytes},
	{"max_subqueries", MaxSubqueries},
	{"max_subqueries_bytes", MaxSubqueriesBytes},
	{"max_summary_runes", MaxSummaryRunes},
	{"max_pattern_bytes", MaxPatternBytes},
	{"max_pattern_instructions", MaxPatternInstructions},
	{"max_pattern_work", MaxPatternWork},
}

// limitErrors are the errors a host gives in the module's place, by key: a
// request over max_request_bytes is refused before it is copied into an
// instance (copying 60 MB in grew the instance's memory for good), with the
// module's own words. "request_too_large" is a CLI's refusal of a line.
var limitErrors = []struct{ key, what string }{
	{"search_request_too_large", SearchVersion},
	{"inspect_request_too_large", InspectVersion},
	{"provider_request_too_large", "provider"},
	{"request_too_large", "the"},
}

// AppendLimits appends the toolsift_limits JSON: the budgets, then under
// "errors" each error a host gives in the module's place, as the whole
// status-1 payload ({"error":{…}}) the module would answer.
func AppendLimits(out []byte) []byte {
	out = append(out, '{')
	for _, f := range limitFields {
		out = jsonw.AppendString(out, f.name, false)
		out = append(out, ':')
		out = jsonw.AppendInt(out, int64(f.value))
		out = append(out, ',')
	}
	out = append(out, `"errors":{`...)
	for i, e := range limitErrors {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonw.AppendString(out, e.key, false)
		out = append(out, ':')
		out = RequestTooLarge(e.what).AppendJSON(out)
	}
	return append(out, "}}"...)
}
