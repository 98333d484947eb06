package dws

import (
	"fmt"
	"sort"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/jsonw"
)

// fields reads typed values out of one decoded JSON object and remembers the
// first type error, so a decoder reads as a list of assignments.
type fields struct {
	object map[string]any
	err    error
}

func (f *fields) fail(key, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("field %q: want %s, got %T", key, want, f.object[key])
	}
}

func (f *fields) str(key string) string {
	v, ok := f.object[key]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		f.fail(key, "a string")
	}
	return s
}

func (f *fields) boolean(key string) bool {
	v, ok := f.object[key]
	if !ok || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		f.fail(key, "a boolean")
	}
	return b
}

func (f *fields) strs(key string) []string {
	v, ok := f.object[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		f.fail(key, "an array of strings")
		return nil
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			f.fail(key, "an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

// raw re-encodes a value as compact JSON without HTML escaping, the form
// Inspect prints; nil when absent.
func (f *fields) raw(key string) catalog.RawJSON {
	v, ok := f.object[key]
	if !ok {
		return nil
	}
	out, err := jsonw.AppendValue(nil, v, false)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("field %q: %w", key, err)
	}
	return out
}

func (f *fields) obj(key string) map[string]any {
	v, ok := f.object[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.fail(key, "an object")
	}
	return m
}

func decodeProduct(object map[string]any) (catalog.Product, error) {
	f := fields{object: object}
	product := catalog.Product{
		ID:          f.str("id"),
		Name:        f.str("name"),
		Description: f.str("description"),
		Runtime:     f.boolean("runtime"),
		Selection: catalog.Selection{
			AgentSummary: f.str("agent_summary"),
			UseWhen:      f.strs("use_when"),
			AvoidWhen:    f.strs("avoid_when"),
		},
	}
	if f.err == nil && product.ID == "" {
		f.err = fmt.Errorf("field \"id\" is empty")
	}
	return product, f.err
}

func decodeTool(object map[string]any) (catalog.Tool, error) {
	f := fields{object: object}
	tool := catalog.Tool{
		Identity: catalog.Identity{
			CanonicalPath:   f.str("canonical_path"),
			Path:            f.str("path"),
			Name:            f.str("name"),
			CLIName:         f.str("cli_name"),
			CLIPath:         f.str("cli_path"),
			PrimaryCLIPath:  f.str("primary_cli_path"),
			Group:           f.str("group"),
			ProductID:       f.str("product_id"),
			SourceProductID: f.str("source_product_id"),
			Aliases:         catalog.SortedUnique(f.strs("aliases")),
			Visibility:      f.str("visibility"),
		},
		Title:       f.str("title"),
		Display:     f.str("display"),
		Description: f.str("description"),
		Safety: catalog.Safety{
			Effect:       f.str("effect"),
			Risk:         f.str("risk"),
			Confirmation: f.str("confirmation"),
			Idempotency:  f.str("idempotency"),
		},
		Interface: catalog.Interface{
			Mode:         f.str("interface_mode"),
			Availability: f.str("availability"),
			Reason:       f.str("interface_reason"),
		},
		Selection: catalog.Selection{
			AgentSummary: f.str("agent_summary"),
			UseWhen:      f.strs("use_when"),
			AvoidWhen:    f.strs("avoid_when"),
			Examples:     f.strs("examples"),
		},
		Constraints: f.raw("constraints"),
		Positionals: f.raw("positionals"),
		DryRun:      f.raw("dry_run"),
		Result:      f.raw("result"),
		Pagination:  f.raw("pagination"),
	}
	if ref := f.obj("interface_ref"); ref != nil {
		r := fields{object: ref}
		tool.Interface.Ref = &catalog.InterfaceRef{ProductID: r.str("product_id"), RPCName: r.str("rpc_name")}
		if r.err != nil && f.err == nil {
			f.err = fmt.Errorf("interface_ref: %w", r.err)
		}
	}
	for name, raw := range f.obj("parameters") {
		object, ok := raw.(map[string]any)
		if !ok {
			return tool, fmt.Errorf("parameter %q is not an object", name)
		}
		parameter, err := decodeParameter(name, object)
		if err != nil {
			return tool, fmt.Errorf("parameter %q: %w", name, err)
		}
		tool.Parameters = append(tool.Parameters, parameter)
	}
	sort.Slice(tool.Parameters, func(i, j int) bool { return tool.Parameters[i].Name < tool.Parameters[j].Name })
	if f.err == nil && tool.Identity.CanonicalPath == "" {
		f.err = fmt.Errorf("field \"canonical_path\" is empty")
	}
	return tool, f.err
}

func decodeParameter(name string, object map[string]any) (catalog.Parameter, error) {
	f := fields{object: object}
	parameter := catalog.Parameter{
		Name:                 name,
		Property:             f.str("property"),
		Type:                 f.str("type"),
		Description:          f.str("description"),
		InterfaceDescription: f.str("interface_description"),
		InterfaceType:        f.str("interface_type"),
		Required:             f.boolean("required"),
		CLIRequired:          f.boolean("cli_required"),
		RequiredWhen:         f.str("required_when"),
		Format:               f.str("format"),
		Enum:                 f.strs("enum"),
		Default:              f.raw("default"),
		InterfaceDefault:     f.raw("interface_default"),
		Example:              f.raw("example"),
	}
	return parameter, f.err
}
