package lint

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteTable writes the report for a person: a summary line, one block per
// finding, errors first (level, check, tool, its message, and each search
// behind it with the words the winning tools share with the query), then
// the expectations. Findings that differ only in their tool (the same
// check and message, no queries, no second tool) share one block that
// lists the tools. The JSON is the contract; this layout may change.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d tools (format %s, profile %s), %d self-queries\n", r.Schema, r.Catalog.Tools, r.Catalog.Format, r.Catalog.Profile, r.Summary.SelfQueries)
	fmt.Fprintf(&b, "%d errors, %d warnings, %d infos; %d unreachable, %d confusable pairs", r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, r.Summary.Unreachable, r.Summary.ConfusablePairs)
	if len(r.Expectations) > 0 {
		fmt.Fprintf(&b, "; %d of %d expectations in the top %d", r.Summary.ExpectationsMet, len(r.Expectations), r.Thresholds.TopK)
	}
	b.WriteString("\n")
	findings := slices.Clone(r.Findings)
	slices.SortStableFunc(findings, func(a, b Finding) int { return LevelRank(b.Level) - LevelRank(a.Level) })
	groupable := func(f Finding) bool { return f.Other == "" && len(f.Queries) == 0 }
	used := make([]bool, len(findings))
	for i, f := range findings {
		if used[i] {
			continue
		}
		tool := f.Tool
		if f.Other != "" {
			tool += " ~ " + f.Other
		}
		if groupable(f) {
			tools := []string{f.Tool}
			for j := i + 1; j < len(findings); j++ {
				g := findings[j]
				if !used[j] && groupable(g) && g.Level == f.Level && g.Check == f.Check && g.Message == f.Message {
					used[j] = true
					tools = append(tools, g.Tool)
				}
			}
			if len(tools) > 1 {
				tool = fmt.Sprintf("%d tools: %s", len(tools), strings.Join(tools, ", "))
			}
		}
		fmt.Fprintf(&b, "\n%-7s  %-31s  %s\n", f.Level, f.Check, tool)
		fmt.Fprintf(&b, "         %s\n", f.Message)
		for _, q := range f.Queries {
			fmt.Fprintf(&b, "         · %q (%s of %s): %s\n", q.Query, q.Kind, q.Of, rankLine(q.Rank, q.Winners))
		}
		if f.SimilarityPermille > 0 && len(f.SharedTerms) > 0 {
			fmt.Fprintf(&b, "         · shared words: %s\n", strings.Join(f.SharedTerms, ", "))
		}
	}
	if len(r.Expectations) > 0 {
		b.WriteString("\nexpectations:\n")
		for _, x := range r.Expectations {
			fmt.Fprintf(&b, "  %q → %s: %s\n", x.Query, x.Tool, rankLine(x.Rank, x.Winners))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rankLine: "rank 2 after a.b (shared: x, y)".
func rankLine(rank int, winners []Winner) string {
	line := "rank " + fmt.Sprint(rank)
	if rank == 0 {
		line = fmt.Sprintf("not in the first %d", RankLimit)
	}
	if len(winners) == 0 {
		return line
	}
	parts := make([]string, len(winners))
	for i, w := range winners {
		parts[i] = w.Tool
		if len(w.SharedTerms) > 0 {
			parts[i] += " (shares " + strings.Join(w.SharedTerms, ", ") + ")"
		}
	}
	return line + ", after " + strings.Join(parts, "; ")
}
