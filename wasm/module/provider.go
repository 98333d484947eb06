//go:build wasip1

package main

import (
	"github.com/toolsift/toolsift/core/provider"
	"github.com/toolsift/toolsift/core/wire"
)

// importTools builds the snapshot of a provider tool list for tool search
// (core/provider.Import): fmt is "openai", "anthropic" or "mcp". The ok
// payload is the import report's length (u32 little-endian), the report's
// JSON, then the snapshot bytes.
//
//go:wasmexport toolsift_import_tools
func importTools(formatPtr, formatSize, ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		format, werr := input(formatPtr, formatSize)
		if werr != nil {
			return nil, werr
		}
		data, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		out, err := provider.AppendImport(out, string(format), data)
		return out, wire.ErrorOf(err)
	})
}

// providerCall answers one provider request (core/provider.Do) over an
// open snapshot: the OpenAI tool_search tool and tool_search_output, the
// Anthropic search tool and tool_result, the definitions.
//
//go:wasmexport toolsift_provider
func providerCall(handle, ptr, size uint32) uint64 {
	return guard(func(out []byte) ([]byte, *wire.Error) {
		open, werr := lookup(handle)
		if werr != nil {
			return nil, werr
		}
		request, werr := input(ptr, size)
		if werr != nil {
			return nil, werr
		}
		out, err := provider.Do(out, open.Engine, request)
		return out, wire.ErrorOf(err)
	})
}
