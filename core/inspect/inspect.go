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
	"github.com/toolsift/toolsift/core/jsonw"
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

// object writes one JSON object whose keys the caller adds in byte order.
type object struct {
	buf   []byte
	first bool
}

func newObject(dst []byte) *object { return &object{buf: append(dst, '{'), first: true} }

func (o *object) key(k string) {
	if !o.first {
		o.buf = append(o.buf, ',')
	}
	o.first = false
	o.buf = jsonw.AppendString(o.buf, k, false)
	o.buf = append(o.buf, ':')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.buf = jsonw.AppendString(o.buf, v, false)
}

// optStr writes the trimmed value unless it is empty.
func (o *object) optStr(k, v string) {
	if v = strings.TrimSpace(v); v != "" {
		o.str(k, v)
	}
}

// optStrs writes the trimmed, de-duplicated list unless the list is absent
// (an explicitly empty list is written as []).
func (o *object) optStrs(k string, values []string) {
	values = catalog.StableUnique(values)
	if values == nil {
		return
	}
	o.key(k)
	o.buf = jsonw.AppendStrings(o.buf, values, false)
}

func (o *object) raw(k string, v catalog.RawJSON) {
	if len(v) == 0 {
		return
	}
	o.key(k)
	o.buf = append(o.buf, v...)
}

func (o *object) boolean(k string, v bool) {
	o.key(k)
	if v {
		o.buf = append(o.buf, "true"...)
	} else {
		o.buf = append(o.buf, "false"...)
	}
}

func (o *object) int(k string, v int) {
	o.key(k)
	o.buf = jsonw.AppendInt(o.buf, int64(v))
}

func (o *object) end() []byte { return append(o.buf, '}') }

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
	o.str("canonical_path", tool.Identity.CanonicalPath)
	if cliPath != "" { // generic tools have no CLI path: their canonical path is their identity
		o.str("cli_path", cliPath)
	}
	o.optStr("confirmation", tool.Safety.Confirmation)
	if full {
		o.raw("constraints", tool.Constraints)
	}
	o.str("description", tool.Description)
	o.raw("dry_run", tool.DryRun)
	o.optStr("effect", tool.Safety.Effect)
	if full {
		o.optStrs("examples", tool.Selection.Examples)
	}
	o.optStr("idempotency", tool.Safety.Idempotency)
	if full {
		o.raw("input_schema", tool.InputSchema)
	}
	o.optStr("interface_mode", tool.Interface.Mode)
	o.optStr("interface_reason", tool.Interface.Reason)
	o.raw("pagination", tool.Pagination)
	if full {
		o.key("parameters")
		o.buf = renderParameters(o.buf, tool.Parameters)
		o.raw("positionals", tool.Positionals)
		o.raw("result", tool.Result)
	}
	o.optStr("risk", tool.Safety.Risk)
	o.optStrs("use_when", tool.Selection.UseWhen)
	return o.end()
}

func renderParameters(dst []byte, parameters []catalog.Parameter) []byte {
	o := newObject(dst) // parameters are sorted by name
	for i := range parameters {
		p := &parameters[i]
		o.key(p.Name)
		po := newObject(o.buf)
		if p.CLIRequired {
			po.boolean("cli_required", true)
		}
		po.raw("default", p.Default)
		po.str("description", p.Description)
		if enum := catalog.StableUnique(p.Enum); len(enum) > 0 {
			po.optStrs("enum", enum)
		}
		po.raw("example", p.Example)
		po.optStr("format", p.Format)
		po.raw("interface_default", p.InterfaceDefault)
		po.boolean("required", p.Required)
		po.optStr("required_when", p.RequiredWhen)
		po.str("type", strings.TrimSpace(p.Type))
		o.buf = po.end()
	}
	return o.end()
}

// RenderProduct appends the compact product view: the product's envelope and
// a summary of each of its tools.
func RenderProduct(dst []byte, product *catalog.Product) []byte {
	o := newObject(dst)
	o.int("count", len(product.Tools))
	o.str("kind", "schema")
	o.str("level", "product")
	o.key("product")
	p := newObject(o.buf)
	p.optStr("agent_summary", product.Selection.AgentSummary)
	p.optStrs("avoid_when", product.Selection.AvoidWhen)
	p.str("description", product.Description)
	p.str("id", product.ID)
	if product.Runtime {
		p.boolean("runtime", true)
	}
	p.int("tool_count", len(product.Tools))
	p.key("tools")
	p.buf = renderSummaries(p.buf, product.Tools, nil)
	p.optStrs("use_when", product.Selection.UseWhen)
	o.buf = p.end()
	return o.end()
}

// RenderGroup appends the compact view of a command group: the summaries of
// the tools whose CLI path starts with it.
func RenderGroup(dst []byte, tools []catalog.Tool, members []int) []byte {
	o := newObject(dst)
	o.int("count", len(members))
	o.str("kind", "schema")
	o.str("level", "group")
	o.key("tools")
	o.buf = renderSummaries(o.buf, tools, members)
	return o.end()
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
