// Package catalog is the typed model of a tool catalog: products, their tools,
// and each tool's identity, text, parameters, safety, interface and selection
// hints. Importers (one per source format) produce a Catalog; the snapshot
// builder and the engine consume it. Nothing here knows about ranking.
//
// A Catalog is plain data. Slices are kept sorted (products by ID, tools by
// canonical path, parameters by name) so that every consumer that walks them
// walks them in the same order, and no map ever decides an output.
package catalog

// Catalog is one immutable generation of a tool catalog.
type Catalog struct {
	// Format names the importer that produced the catalog ("dws", …).
	Format string
	// Version binds search results and Inspect answers to this generation.
	Version VersionRef
	// Products sorted by ID; each holds its tools sorted by canonical path.
	Products []Product
}

// VersionRef identifies one catalog generation. SourceHash covers everything
// delivered; SurfaceHash covers command identity only.
type VersionRef struct {
	SourceHash  string
	SurfaceHash string
}

// Product groups tools. Name is the display name (for DWS, Chinese prose such
// as 「群聊 / 消息 / 机器人」); Description may repeat it.
type Product struct {
	ID          string
	Name        string
	Description string
	Runtime     bool
	Selection   Selection
	Tools       []Tool
}

// Tool is one callable command.
type Tool struct {
	Identity    Identity
	Title       string
	Display     string // the product's display string as shown beside the tool
	Description string
	Parameters  []Parameter // sorted by Name
	Safety      Safety
	Interface   Interface
	Selection   Selection

	// Contract data that Inspect returns verbatim: compact JSON values, keys
	// sorted, no HTML escaping, or nil when absent.
	Constraints RawJSON
	Positionals RawJSON
	DryRun      RawJSON
	Result      RawJSON
	Pagination  RawJSON
}

// Identity holds every name a tool can be addressed by. CanonicalPath is
// "<product>.<name>"; CLIPath and PrimaryCLIPath are space-separated command
// paths without a leading program name; Aliases are reviewed alternative CLI
// paths.
type Identity struct {
	CanonicalPath   string
	Path            string
	Name            string
	CLIName         string
	CLIPath         string
	PrimaryCLIPath  string
	Group           string
	ProductID       string
	SourceProductID string
	Aliases         []string // sorted, unique
	Visibility      string   // "" means public
}

// Parameter is one input of a tool, keyed by its CLI flag name.
type Parameter struct {
	Name                 string
	Property             string
	Type                 string
	Description          string
	InterfaceDescription string
	InterfaceType        string
	Required             bool
	CLIRequired          bool
	RequiredWhen         string
	Format               string
	Enum                 []string
	Default              RawJSON
	InterfaceDefault     RawJSON
	Example              RawJSON
}

// Safety is the reviewed risk vocabulary of a tool.
type Safety struct {
	Effect       string // read | write | destructive
	Risk         string // low | medium | high
	Confirmation string // not_required | user_required
	Idempotency  string // idempotent | non_idempotent | unknown
}

// Interface says how a tool is implemented and whether an agent may run it.
type Interface struct {
	Mode         string // mcp | local | composite
	Availability string // available | …
	Reason       string
	Ref          *InterfaceRef
}

// InterfaceRef names the remote procedure behind an MCP-mode tool.
type InterfaceRef struct {
	ProductID string
	RPCName   string
}

// Selection is reviewed prose that helps an agent choose (or avoid) a tool.
type Selection struct {
	AgentSummary string
	UseWhen      []string
	AvoidWhen    []string
	Examples     []string
}

// RawJSON is one compact JSON value (object keys sorted, no HTML escaping).
type RawJSON []byte

// Interface modes and the availability value that permits execution.
const (
	ModeMCP       = "mcp"
	ModeLocal     = "local"
	ModeComposite = "composite"
	Available     = "available"
)

// AgentExecutable reports whether an agent may invoke the tool: it must be
// available, and its mode must be consistent with its interface reference (an
// MCP tool names its procedure; a local tool has none; a composite tool has
// none but states why).
func (i Interface) AgentExecutable() bool {
	if trimSpace(i.Availability) != Available {
		return false
	}
	switch trimSpace(i.Mode) {
	case ModeMCP:
		return i.Ref != nil
	case ModeLocal:
		return i.Ref == nil
	case ModeComposite:
		return i.Ref == nil && trimSpace(i.Reason) != ""
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
