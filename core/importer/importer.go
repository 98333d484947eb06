// Package importer turns catalog bytes of a named format into a catalog and
// the profile that ranks it. It is the one entry point the snapshot-building
// ABI call, the command-line host and the tests use, so that every host can
// import every format.
//
//	format     input                                         profile
//	dws        DWS dump: gzip'd tar or JSON object of files   dws-v1
//	toolsift   this project's toolsift-catalog.v1 JSON        generic-v1
//	mcp        MCP tools/list result(s)                       generic-v1
//	openai     OpenAI function tools (both API shapes)        generic-v1
//	anthropic  Anthropic tools                                generic-v1
//	beir       BEIR corpus.jsonl (benchmarks)                 generic-v1
package importer

import (
	"fmt"
	"strings"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/importer/anthropic"
	"github.com/toolsift/toolsift/core/importer/beir"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/importer/mcp"
	"github.com/toolsift/toolsift/core/importer/native"
	"github.com/toolsift/toolsift/core/importer/openai"
	"github.com/toolsift/toolsift/core/profile"
)

// generic lists the formats that translate into a native document, in the
// order Formats reports them.
var generic = []struct {
	name      string
	translate func([]byte) (*native.Document, error)
}{
	{native.Format, native.Decode},
	{mcp.Format, mcp.Import},
	{openai.Format, openai.Import},
	{anthropic.Format, anthropic.Import},
	{beir.Format, beir.Import},
}

// Formats lists the format names Import accepts.
func Formats() []string {
	names := []string{dws.Format}
	for _, g := range generic {
		names = append(names, g.name)
	}
	return names
}

// UnknownFormatError is the error of Import for a format it does not know.
type UnknownFormatError struct{ Format string }

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown catalog format %q (known: %s)", e.Format, strings.Join(Formats(), ", "))
}

// Import imports data in the named format. Any other error means the input
// is not a valid catalog of that format; its message names the entry and
// the field.
func Import(format string, data []byte) (*catalog.Catalog, *profile.Profile, error) {
	if format == dws.Format {
		files, err := dws.FilesFromBytes(data)
		if err != nil {
			return nil, nil, err
		}
		cat, err := dws.Import(files)
		return cat, profile.DWSV1, err
	}
	for _, g := range generic {
		if g.name != format {
			continue
		}
		doc, err := g.translate(data)
		if err != nil {
			return nil, nil, err
		}
		cat, err := native.Build(doc, format)
		return cat, profile.GenericV1, err
	}
	return nil, nil, &UnknownFormatError{Format: format}
}
