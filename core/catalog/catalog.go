// Package catalog is the typed model of a tool catalog: products, their tools,
// and each tool's identity, text, parameters, safety, interface and selection
// hints. Importers (one per source format) produce a Catalog; the snapshot
// builder and the engine consume it. Nothing here knows about ranking.
//
// A Catalog is plain data. Slices are kept sorted (products by ID, tools by
// canonical path, parameters by name) so that every consumer that walks them
// walks them in the same order, and no map ever decides an output.
package catalog

//go:generate go run github.com/tinylib/msgp@v1.6.5 -io=false -tests=false -unexported
//go:generate perl -pi -e "s/msgp\\.ReadStringBytes\\(/readStringView(/g" catalog_gen.go

// Snapshots encode these structs as MessagePack arrays (msgp "tuple"), not
// maps: no field names to store or compare when a snapshot opens. The
// snapshot format version covers the field order.
//msgp:tuple Catalog VersionRef Product Identity Parameter Safety Interface InterfaceRef Selection

// Tool's codec is written by hand (tool_codec.go) over the generated one of
// toolFields, its twin: a tool without an original definition is stored as
// the array every earlier snapshot stored, one element shorter.
//msgp:ignore Tool
//msgp:vartuple toolFields

// A decoder allocates an array before it reads the elements, so a hostile
// length must be refused first: no list in a catalog may declare more than
// 131,072 entries (tools per product included), which caps that up-front
// allocation near 80 MB; every other allocation is bounded by the bytes
// actually present.
//msgp:limit arrays:131072 maps:64

import (
	"strings"

	"github.com/toolsift/toolsift/core/internal/strcmp"
)

// Catalog is one immutable generation of a tool catalog.
type Catalog struct {
	// Format names the importer that produced the catalog ("dws", …).
	Format string `msg:"format"`
	// Version binds search results and Inspect answers to this generation.
	Version VersionRef `msg:"version"`
	// Products sorted by ID; each holds its tools sorted by canonical path.
	Products []Product `msg:"products"`
}

// VersionRef identifies one catalog generation. SourceHash covers everything
// delivered; SurfaceHash covers command identity only.
type VersionRef struct {
	SourceHash  string `msg:"source_hash"`
	SurfaceHash string `msg:"surface_hash"`
}

// Product groups tools. Name is the display name (for DWS, Chinese prose such
// as 「群聊 / 消息 / 机器人」); Description may repeat it.
type Product struct {
	ID          string    `msg:"id"`
	Name        string    `msg:"name"`
	Description string    `msg:"description"`
	Runtime     bool      `msg:"runtime"`
	Selection   Selection `msg:"selection"`
	Tools       []Tool    `msg:"tools"`
}

// Tool is one callable command.
type Tool struct {
	Identity    Identity    `msg:"identity"`
	Title       string      `msg:"title"`
	Display     string      `msg:"display"` // the product's display string as shown beside the tool
	Description string      `msg:"description"`
	Parameters  []Parameter `msg:"parameters"` // sorted by Name; read them through Params
	Safety      Safety      `msg:"safety"`
	Interface   Interface   `msg:"interface"`
	Selection   Selection   `msg:"selection"`

	// Contract data that Inspect returns verbatim: compact JSON values, keys
	// sorted, no HTML escaping, or nil when absent.
	Constraints RawJSON `msg:"constraints,allownil"`
	Positionals RawJSON `msg:"positionals,allownil"`
	DryRun      RawJSON `msg:"dry_run,allownil"`
	Result      RawJSON `msg:"result,allownil"`
	Pagination  RawJSON `msg:"pagination,allownil"`

	// InputSchema is the JSON Schema of a generic tool's arguments (MCP
	// inputSchema, OpenAI parameters, Anthropic input_schema), returned by
	// Inspect verbatim; nil for DWS tools, whose parameters are CLI flags.
	InputSchema RawJSON `msg:"input_schema,allownil"`

	// Original is the tool's definition as its provider format gives it
	// (an OpenAI Responses function or custom tool, an Anthropic tool, an
	// MCP tool), compact JSON with keys sorted, kept when the catalog was
	// imported for provider tool search (core/provider returns it to the
	// model verbatim); nil otherwise, and then not stored at all.
	Original RawJSON `msg:"original,allownil"`

	// Extra is the tool's text that no other field has a role for (return
	// value descriptions, tags, metadata, a BEIR record's rendering…),
	// space-joined by the importer. Ranking profiles may index it; Inspect
	// does not show it.
	Extra string `msg:"-"`
	// Deprecated marks a tool its source calls deprecated (OpenAPI's
	// deprecated flag, a deprecated field or annotation, a description that
	// says so); ranking profiles may demote it.
	Deprecated bool `msg:"-"`

	// stored is set on a tool decoded from a snapshot: its parameters,
	// still encoded, decoded the first time Params asks (see
	// tool_codec.go). Parameters is then nil.
	stored *storedParameters `msg:"-"`
}

// toolFields is Tool field for field (a conversion between the two checks
// that they stay alike): msgp generates its codec, and Tool's methods below
// wrap it (tool_codec.go).
type toolFields struct {
	Identity    Identity          `msg:"identity"`
	Title       string            `msg:"title"`
	Display     string            `msg:"display"`
	Description string            `msg:"description"`
	Parameters  []Parameter       `msg:"parameters"`
	Safety      Safety            `msg:"safety"`
	Interface   Interface         `msg:"interface"`
	Selection   Selection         `msg:"selection"`
	Constraints RawJSON           `msg:"constraints,allownil"`
	Positionals RawJSON           `msg:"positionals,allownil"`
	DryRun      RawJSON           `msg:"dry_run,allownil"`
	Result      RawJSON           `msg:"result,allownil"`
	Pagination  RawJSON           `msg:"pagination,allownil"`
	InputSchema RawJSON           `msg:"input_schema,allownil"`
	Original    RawJSON           `msg:"original,allownil"`
	Extra       string            `msg:"-"` // written by hand after Original (tool_codec.go)
	Deprecated  bool              `msg:"-"`
	stored      *storedParameters `msg:"-"`
}

// Identity holds every name a tool can be addressed by. CanonicalPath is
// "<product>.<name>"; CLIPath and PrimaryCLIPath are space-separated command
// paths without a leading program name; Aliases are reviewed alternative CLI
// paths.
type Identity struct {
	CanonicalPath   string   `msg:"canonical_path"`
	Path            string   `msg:"path"`
	Name            string   `msg:"name"`
	CLIName         string   `msg:"cli_name"`
	CLIPath         string   `msg:"cli_path"`
	PrimaryCLIPath  string   `msg:"primary_cli_path"`
	Group           string   `msg:"group"`
	ProductID       string   `msg:"product_id"`
	SourceProductID string   `msg:"source_product_id"`
	Aliases         []string `msg:"aliases,allownil"` // sorted, unique
	Visibility      string   `msg:"visibility"`       // "" means public
}

// Parameter is one input of a tool, keyed by its CLI flag name.
type Parameter struct {
	Name                 string   `msg:"name"`
	Property             string   `msg:"property"`
	Type                 string   `msg:"type"`
	Description          string   `msg:"description"`
	InterfaceDescription string   `msg:"interface_description"`
	InterfaceType        string   `msg:"interface_type"`
	Required             bool     `msg:"required"`
	CLIRequired          bool     `msg:"cli_required"`
	RequiredWhen         string   `msg:"required_when"`
	Format               string   `msg:"format"`
	Enum                 []string `msg:"enum,allownil"`
	Default              RawJSON  `msg:"default,allownil"`
	InterfaceDefault     RawJSON  `msg:"interface_default,allownil"`
	Example              RawJSON  `msg:"example,allownil"`
}

// Safety is the reviewed risk vocabulary of a tool.
type Safety struct {
	Effect       string `msg:"effect"`       // read | write | destructive
	Risk         string `msg:"risk"`         // low | medium | high
	Confirmation string `msg:"confirmation"` // not_required | user_required
	Idempotency  string `msg:"idempotency"`  // idempotent | non_idempotent | unknown
}

// Interface says how a tool is implemented and whether an agent may run it.
type Interface struct {
	Mode         string        `msg:"mode"`         // mcp | local | composite
	Availability string        `msg:"availability"` // available | …
	Reason       string        `msg:"reason"`
	Ref          *InterfaceRef `msg:"ref,allownil"`
}

// InterfaceRef names the remote procedure behind an MCP-mode tool.
type InterfaceRef struct {
	ProductID string `msg:"product_id"`
	RPCName   string `msg:"rpc_name"`
}

// Selection is reviewed prose that helps an agent choose (or avoid) a tool.
type Selection struct {
	AgentSummary string   `msg:"agent_summary"`
	UseWhen      []string `msg:"use_when,allownil"`
	AvoidWhen    []string `msg:"avoid_when,allownil"`
	Examples     []string `msg:"examples,allownil"`
	// Keywords are a tool's labels that are not prose (categories, tags,
	// metadata values): sorted, unique.
	Keywords []string `msg:"keywords,allownil"`
}

// RawJSON is one compact JSON value (object keys sorted, no HTML escaping).
type RawJSON []byte

// Interface modes and the availability value that permits execution.
const (
	ModeMCP       = "mcp"
	ModeLocal     = "local"
	ModeComposite = "composite"
	ModeFunction  = "function" // a generic function tool the agent's runtime executes
	Available     = "available"
)

// AgentExecutable reports whether an agent may invoke the tool: it must be
// available, and its mode must be consistent with its interface reference (an
// MCP tool names its procedure; a local or function tool has none; a
// composite tool has none but states why).
//
// An engine asks it of every tool when it opens: the values are compared as
// they are first, and trimmed only when that fails (TrimSpace on both was
// 3% of opening 100,000 tools in the module), and with strcmp.Equal, eight
// bytes at a time in the module (see the package).
func (i Interface) AgentExecutable() bool {
	if !strcmp.Equal(i.Availability, Available) && strings.TrimSpace(i.Availability) != Available {
		return false
	}
	mode := i.Mode
	if !strcmp.Equal(mode, ModeFunction) && !strcmp.Equal(mode, ModeMCP) && !strcmp.Equal(mode, ModeLocal) && !strcmp.Equal(mode, ModeComposite) {
		mode = strings.TrimSpace(mode)
	}
	switch {
	case strcmp.Equal(mode, ModeMCP):
		return i.Ref != nil
	case strcmp.Equal(mode, ModeLocal), strcmp.Equal(mode, ModeFunction):
		return i.Ref == nil
	case strcmp.Equal(mode, ModeComposite):
		return i.Ref == nil && strings.TrimSpace(i.Reason) != ""
	}
	return false
}

// ToolCount is the number of tools over all products.
func (c *Catalog) ToolCount() int {
	n := 0
	for i := range c.Products {
		n += len(c.Products[i].Tools)
	}
	return n
}
