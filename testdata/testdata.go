// Package testdata exposes the data files shared by every host's tests, so
// that nothing outside this repository is needed to build or test it. It is
// for tests: programs get the DWS snapshot from catalogs/dws. See dws/NOTICE and dws/LICENSE for the catalog's
// licence (Apache-2.0).
package testdata

import (
	"compress/gzip"
	"embed"
	"io"

	"github.com/toolsift/toolsift/catalogs/dws"
)

// DWSCatalog is the DingTalk Workspace CLI catalog dump (catalog.json and
// tools/<product>.json, 27 products, 1,122 tools) as a gzip'd tar.
//
//go:embed dws/catalog.tar.gz
var DWSCatalog []byte

// DWSSnapshot is a copy of the snapshot of DWSCatalog under the dws-v1
// profile (catalogs/dws, the default of every host), for tests.
// core/snapshot's tests rebuild it and fail when it is stale.
var DWSSnapshot = dws.Snapshot()

// GitHubSlackMCP is the tools/list results of two MCP servers from npm
// (GitHub, 26 tools; Slack, 8), as {"servers": {…}} (MIT, see mcp/LICENSE).
//
//go:embed mcp/github-slack.json
var GitHubSlackMCP []byte

// FilesystemMCP is the tools/list result of the reference filesystem MCP
// server (@modelcontextprotocol/server-filesystem 2026.8.31, 14 tools) as
// {"servers": {"filesystem": …}} (MIT, see mcp/LICENSE). Its read_file says
// it is deprecated in favour of read_text_file.
//
//go:embed mcp/filesystem.json
var FilesystemMCP []byte

// Golden holds the reference engine's request → response vectors, gzip'd
// JSONL, under dws/golden/.
//
//go:embed dws/golden
var Golden embed.FS

// ReadGolden returns the decompressed bytes of dws/golden/<name>; a name
// ending in .gz is decompressed.
func ReadGolden(name string) ([]byte, error) {
	f, err := Golden.Open("dws/golden/" + name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if len(name) < 3 || name[len(name)-3:] != ".gz" {
		return io.ReadAll(f)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
