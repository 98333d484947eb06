package dws

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/internal/jsonread"
)

func decodeProduct(object map[string]any) (catalog.Product, error) {
	f := jsonread.Fields{Object: object}
	product := catalog.Product{
		ID:          f.Str("id"),
		Name:        f.Str("name"),
		Description: f.Str("description"),
		Runtime:     f.Bool("runtime"),
		Selection: catalog.Selection{
			AgentSummary: f.Str("agent_summary"),
			UseWhen:      f.Strs("use_when"),
			AvoidWhen:    f.Strs("avoid_when"),
		},
	}
	if f.Err == nil && product.ID == "" {
		f.Err = fmt.Errorf("field \"id\" is empty")
	}
	return product, f.Err
}

func decodeTool(object map[string]any) (catalog.Tool, error) {
	f := jsonread.Fields{Object: object}
	tool := catalog.Tool{
		Identity: catalog.Identity{
			CanonicalPath:   f.Str("canonical_path"),
			Path:            f.Str("path"),
			Name:            f.Str("name"),
			CLIName:         f.Str("cli_name"),
			CLIPath:         f.Str("cli_path"),
			PrimaryCLIPath:  f.Str("primary_cli_path"),
			Group:           f.Str("group"),
			ProductID:       f.Str("product_id"),
			SourceProductID: f.Str("source_product_id"),
			Aliases:         catalog.SortedUnique(f.Strs("aliases")),
			Visibility:      f.Str("visibility"),
		},
		Title:       f.Str("title"),
		Display:     f.Str("display"),
		Description: f.Str("description"),
		Safety: catalog.Safety{
			Effect:       f.Str("effect"),
			Risk:         f.Str("risk"),
			Confirmation: f.Str("confirmation"),
			Idempotency:  f.Str("idempotency"),
		},
		Interface: catalog.Interface{
			Mode:         f.Str("interface_mode"),
			Availability: f.Str("availability"),
			Reason:       f.Str("interface_reason"),
		},
		Selection: catalog.Selection{
			AgentSummary: f.Str("agent_summary"),
			UseWhen:      f.Strs("use_when"),
			AvoidWhen:    f.Strs("avoid_when"),
			Examples:     f.Strs("examples"),
		},
		Constraints: f.Raw("constraints"),
		Positionals: f.Raw("positionals"),
		DryRun:      f.Raw("dry_run"),
		Result:      f.Raw("result"),
		Pagination:  f.Raw("pagination"),
	}
	if ref := f.Obj("interface_ref"); ref != nil {
		r := jsonread.Fields{Object: ref}
		tool.Interface.Ref = &catalog.InterfaceRef{ProductID: r.Str("product_id"), RPCName: r.Str("rpc_name")}
		if r.Err != nil && f.Err == nil {
			f.Err = fmt.Errorf("interface_ref: %w", r.Err)
		}
	}
	parameters := f.Obj("parameters")
	for _, name := range slices.Sorted(maps.Keys(parameters)) { // the first error must not depend on map order
		object, ok := parameters[name].(map[string]any)
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
	if f.Err == nil && tool.Identity.CanonicalPath == "" {
		f.Err = fmt.Errorf("field \"canonical_path\" is empty")
	}
	return tool, f.Err
}

func decodeParameter(name string, object map[string]any) (catalog.Parameter, error) {
	f := jsonread.Fields{Object: object}
	parameter := catalog.Parameter{
		Name:                 name,
		Property:             f.Str("property"),
		Type:                 f.Str("type"),
		Description:          f.Str("description"),
		InterfaceDescription: f.Str("interface_description"),
		InterfaceType:        f.Str("interface_type"),
		Required:             f.Bool("required"),
		CLIRequired:          f.Bool("cli_required"),
		RequiredWhen:         f.Str("required_when"),
		Format:               f.Str("format"),
		Enum:                 f.Strs("enum"),
		Default:              f.Raw("default"),
		InterfaceDefault:     f.Raw("interface_default"),
		Example:              f.Raw("example"),
	}
	return parameter, f.Err
}
