package provider

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/wire"
)

// ImportFormats are the formats Import takes: the tool lists users already
// pass to a provider (or get from MCP tools/list).
var ImportFormats = []string{"openai", "anthropic", "mcp"}

// Import builds the snapshot of a provider tool list for tool search
// (importer.Options.ToolSearch: definitions kept, only the deferred tools
// indexed when any are marked), with the import's report as JSON, which
// names the always-loaded tools. A bad tool is skipped and reported, as in
// every build without --strict. Errors are *wire.Error: unknown_format,
// invalid_catalog.
func Import(format string, data []byte) (snap, report []byte, err error) {
	known := false
	for _, f := range ImportFormats {
		known = known || f == format
	}
	if !known {
		return nil, nil, wire.Validation("unknown_format", fmt.Sprintf("unknown tool list format %q (known: openai, anthropic, mcp)", format))
	}
	snap, r, err := compile.FromCatalog(format, data, importer.Options{ToolSearch: true})
	if err != nil {
		var werr *wire.Error
		if errors.As(err, &werr) {
			return nil, nil, werr
		}
		return nil, nil, wire.Validation("invalid_catalog", err.Error())
	}
	report, err = json.Marshal(r)
	if err != nil {
		return nil, nil, wire.Internal("encode_report", err.Error())
	}
	return snap, report, nil
}

// AppendImport appends Import's result as the module returns it: the
// report's length (u32 little-endian), the report, then the snapshot.
func AppendImport(dst []byte, format string, data []byte) ([]byte, error) {
	snap, report, err := Import(format, data)
	if err != nil {
		return dst, err
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(report)))
	dst = append(dst, report...)
	return append(dst, snap...), nil
}
