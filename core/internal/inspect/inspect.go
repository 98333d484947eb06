// Package inspect renders schema-inspect.v1 documents: the compact,
// agent-facing view of one tool (or of a product or a command group), bound to
// the catalog version it came from.
//
// The compact view is a positive list: a field reaches an agent only if it is
// named here, so adding audit data to the catalog never silently grows the
// agent's context. Output is the reference's: JSON objects with keys in byte
// order, two-space indentation, no HTML escaping.
package inspect

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/internal/jsonw"
)

// Document wraps a rendered spec (compact JSON from the Render functions) in
// {"version","catalog","tool_spec"} and indents it with two spaces.
func Document(version catalog.VersionRef, spec []byte) []byte {
	compact := make([]byte, 0, len(spec)+256)
	compact = append(compact, `{"version":"schema-inspect.v1","catalog":{"source_hash":`...)
	compact = jsonw.AppendString(compact, version.SourceHash, false)
	compact = append(compact, `,"surface_hash":`...)
	compact = jsonw.AppendString(compact, version.SurfaceHash, false)
	compact = append(compact, `},"tool_spec":`...)
	compact = append(compact, spec...)
	compact = append(compact, '}')
	var out bytes.Buffer
	out.Grow(len(compact) * 2)
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		// Every piece was produced by this package's encoder; a failure here
		// is a bug, and the compact form is still valid JSON.
		return compact
	}
	return out.Bytes()
}

// object is a jsonw.Object with the Inspect view's rules for optional
// values.
type object struct{ jsonw.Object }

func newObject(dst []byte) *object { return &object{jsonw.StartObject(dst, false)} }

// optStr writes the trimmed value unless it is empty.
func (o *object) optStr(k, v string) {
	if v = strings.TrimSpace(v); v != "" {
		o.String(k, v)
	}
}

// optStrs writes the trimmed, de-duplicated list unless the list is absent
// (an explicitly empty list is written as []).
func (o *object) optStrs(k string, values []string) {
	if values = catalog.StableUnique(values); values != nil {
		o.Strings(k, values)
	}
}

// RenderTool appends the compact spec of one tool. cliPath replaces the
// tool's cli_path when the caller addressed it by an alias ("" keeps it).
func RenderTool(dst []byte, tool *catalog.Tool, cliPath string) []byte {
	return renderTool(dst, tool, cliPath, true)
}

// renderTool writes the whitelisted keys in byte order. A summary (full =
// false) leaves out parameters, constraints, positionals, result and
// examples, as the reference's progressive summaries do.
func renderTool(dst []byte, tool *catalog.Tool, cliPath string, full bool) []byte {
	if cliPath == "" {
		cliPath = tool.Identity.CLIPath
	}
	o := newObject(dst)
	o.optStr("agent_summary", tool.Selection.AgentSummary)
	o.optStr("availability", tool.Interface.Availability)
	o.optStrs("avoid_when", tool.Selection.AvoidWhen)
	o.String("canonical_path", tool.Identity.CanonicalPath)
	if cliPath != "" { // generic tools have no CLI path: their canonical path is their identity
		o.String("cli_path", cliPath)
	}
	o.optStr("confirmation", tool.Safety.Confirmation)
	if full {
		o.Raw("constraints", tool.Constraints)
	}
	o.String("description", tool.Description)
	o.Raw("dry_run", tool.DryRun)
	o.optStr("effect", tool.Safety.Effect)
	if full {
		o.optStrs("examples", tool.Selection.Examples)
	}
	o.optStr("idempotency", tool.Safety.Idempotency)
	if full {
		o.Raw("input_schema", tool.InputSchema)
	}
	o.optStr("interface_mode", tool.Interface.Mode)
	o.optStr("interface_reason", tool.Interface.Reason)
	o.Raw("pagination", tool.Pagination)
	if full {
		o.Key("parameters")
		o.Buf = renderParameters(o.Buf, tool.Params())
		o.Raw("positionals", tool.Positionals)
		o.Raw("result", tool.Result)
	}
	o.optStr("risk", tool.Safety.Risk)
	o.optStrs("use_when", tool.Selection.UseWhen)
	return o.End()
}

func renderParameters(dst []byte, parameters []catalog.Parameter) []byte {
	o := newObject(dst) // parameters are sorted by name
	for i := range parameters {
		p := &parameters[i]
		o.Key(p.Name)
		po := newObject(o.Buf)
		if p.CLIRequired {
			po.Bool("cli_required", true)
		}
		po.Raw("default", p.Default)
		po.String("description", p.Description)
		if enum := catalog.StableUnique(p.Enum); len(enum) > 0 {
			po.optStrs("enum", enum)
		}
		po.Raw("example", p.Example)
		po.optStr("format", p.Format)
		po.Raw("interface_default", p.InterfaceDefault)
		po.Bool("required", p.Required)
		po.optStr("required_when", p.RequiredWhen)
		po.String("type", strings.TrimSpace(p.Type))
		o.Buf = po.End()
	}
	return o.End()
}

// RenderProduct appends the compact product view: the product's envelope and
// a summary of each of its tools.
func RenderProduct(dst []byte, product *catalog.Product) []byte {
	o := newObject(dst)
	o.Int("count", int64(len(product.Tools)))
	o.String("kind", "schema")
	o.String("level", "product")
	o.Key("product")
	p := newObject(o.Buf)
	p.optStr("agent_summary", product.Selection.AgentSummary)
	p.optStrs("avoid_when", product.Selection.AvoidWhen)
	p.String("description", product.Description)
	p.String("id", product.ID)
	if product.Runtime {
		p.Bool("runtime", true)
	}
	p.Int("tool_count", int64(len(product.Tools)))
	p.Key("tools")
	p.Buf = renderSummaries(p.Buf, product.Tools, nil)
	p.optStrs("use_when", product.Selection.UseWhen)
	o.Buf = p.End()
	return o.End()
}

// RenderGroup appends the compact view of a command group: the summaries of
// the tools whose CLI path starts with it.
func RenderGroup(dst []byte, tools []catalog.Tool, members []int) []byte {
	o := newObject(dst)
	o.Int("count", int64(len(members)))
	o.String("kind", "schema")
	o.String("level", "group")
	o.Key("tools")
	o.Buf = renderSummaries(o.Buf, tools, members)
	return o.End()
}

// renderSummaries writes tools[i] for i in members (all when members is nil).
func renderSummaries(dst []byte, tools []catalog.Tool, members []int) []byte {
	dst = append(dst, '[')
	n := len(tools)
	if members != nil {
		n = len(members)
	}
	for i := 0; i < n; i++ {
		t := i
		if members != nil {
			t = members[i]
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = renderTool(dst, &tools[t], "", false)
	}
	return append(dst, ']')
}
