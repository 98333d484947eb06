package importer

//go:generate go run github.com/tinylib/msgp@v1.6.5 -io=false -tests=false
//msgp:tuple Report SkippedTool FieldCount

// A hostile snapshot must not make the decoder allocate a huge list before
// reading it: the same bound as the catalog's lists.
//msgp:limit arrays:131072 maps:64

import (
	"fmt"
	"strings"

	"github.com/toolsift/toolsift/core/importer/internal/tally"
)

// Report says what an import read and what it left out: nothing is dropped
// without a word. Snapshots store its MessagePack (MarshalMsg, without the
// fields marked "-") as a section of their own (core/compile writes and
// reads it, core/snapshot keeps the bytes), so every list is a sorted slice.
type Report struct {
	Format        string        `msg:"format" json:"format"`
	ToolsRead     int           `msg:"tools_read" json:"tools_read"`
	ToolsImported int           `msg:"tools_imported" json:"tools_imported"`
	ToolsSkipped  int           `msg:"tools_skipped" json:"tools_skipped"`
	Skipped       []SkippedTool `msg:"skipped,allownil" json:"skipped,omitempty"` // the first MaxListed, in input order
	// Fields counts each source field (dotted under a definition: "doc.tags")
	// by name: on how many tools it was used, on how many ignored. Tools
	// skipped are counted as far as they were read.
	Fields []FieldCount `msg:"fields,allownil" json:"fields,omitempty"`
	// AlwaysLoaded names, in input order, the tools an import for provider
	// tool search left out of the index because they stay in the request
	// as they are (not deferred while others are, or the provider's own
	// built-in tools). It is returned with the snapshot, not stored in it.
	AlwaysLoaded []string `msg:"-" json:"always_loaded,omitempty"`
	// Warnings lists, by field, the malformed values a lenient import
	// coerced or dropped while keeping their tools (Options.Strict refuses
	// each instead): how many, and the first. Returned with the snapshot,
	// not stored in it, like each field's To.
	Warnings []Warning `msg:"-" json:"warnings,omitempty"`
}

// Warning is one kind of malformed value a lenient import repaired.
type Warning struct {
	Field   string `json:"field"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// SkippedTool is one tool left out of the catalog and why.
type SkippedTool struct {
	Tool   string `msg:"tool" json:"tool"`
	Reason string `msg:"reason" json:"reason"`
}

// FieldCount is how many tools used or ignored one source field.
type FieldCount struct {
	Name    string `msg:"name" json:"name"`
	Used    int    `msg:"used" json:"used"`
	Ignored int    `msg:"ignored" json:"ignored"`
	// To names where the field's values went: a catalog field
	// ("description", "parameters", …), "extra" (the tool's catch-all
	// text) or "dropped: why". Not stored in a snapshot.
	To []string `msg:"-" json:"to,omitempty"`
}

// MaxListed is how many skipped tools a report names.
const MaxListed = tally.MaxListed

func newReport(format string, t *tally.Tally, imported int) *Report {
	r := &Report{Format: format, ToolsRead: t.ToolsRead(), ToolsImported: imported}
	n, listed := t.Skipped()
	r.ToolsSkipped = n
	if r.ToolsRead < imported+n { // formats that count no entries
		r.ToolsRead = imported + n
	}
	for _, s := range listed {
		r.Skipped = append(r.Skipped, SkippedTool{Tool: s.Tool, Reason: s.Reason})
	}
	for _, f := range t.Fields() {
		r.Fields = append(r.Fields, FieldCount{Name: f.Name, Used: f.Used, Ignored: f.Ignored, To: f.To})
	}
	for _, w := range t.Repairs() {
		r.Warnings = append(r.Warnings, Warning{Field: w.Field, Count: w.Count, Example: w.Example})
	}
	return r
}

// Summary is the report in a few lines for a terminal: the counts, the
// skipped tools named, and the fields some tool ignored.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "import (%s): %d tools read, %d imported, %d skipped\n", r.Format, r.ToolsRead, r.ToolsImported, r.ToolsSkipped)
	for _, s := range r.Skipped {
		// A reason is the strict import's error, which names the tool
		// itself (a strict import has no other place to say which): the
		// line names it once.
		fmt.Fprintf(&b, "  skipped %s: %s\n", s.Tool, strings.TrimPrefix(s.Reason, s.Tool+": "))
	}
	if more := r.ToolsSkipped - len(r.Skipped); more > 0 {
		fmt.Fprintf(&b, "  … and %d more skipped\n", more)
	}
	var used, ignored []string
	for _, f := range r.Fields {
		to := ""
		if len(f.To) > 0 {
			to = " → " + strings.Join(f.To, " | ")
		}
		if f.Used > 0 {
			used = append(used, fmt.Sprintf("%s %d%s", f.Name, f.Used, to))
		}
		if f.Ignored > 0 {
			ignored = append(ignored, fmt.Sprintf("%s %d%s", f.Name, f.Ignored, to))
		}
	}
	if len(used) > 0 {
		fmt.Fprintf(&b, "  fields used: %s\n", strings.Join(used, ", "))
	}
	if len(ignored) > 0 {
		fmt.Fprintf(&b, "  fields ignored: %s\n", strings.Join(ignored, ", "))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "  repaired %s on %d (tools kept; --strict refuses them), first: %s\n", w.Field, w.Count, w.Example)
	}
	return b.String()
}
