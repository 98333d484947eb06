package hostapi

import (
	"errors"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/wire"
)

// Native builds. BuildSnapshot builds in the module, so that a host needs
// no Go toolchain; a Go host has the core compiled in already, and builds
// the same bytes with it several times faster (no instance to make, and
// native code: 0.3 to 0.4 s for 3,608 MCP tools against 2.2 s on wazero,
// docs/BENCHMARKS.md; in a gateway rebuild the build is most of the cost).
// Both run the one path from catalog bytes to a snapshot (import, index,
// encode), with the default options: a bad tool is skipped and reported,
// the format's own profile ranks.

// BuildCatalog imports catalog bytes of the named format ("mcp", "dws",
// "openai", …: the formats BuildSnapshot takes) and builds their snapshot
// natively in this process, returning the snapshot with the view of its
// catalog, so that a caller that acts on the tools (routes them, checks
// their safety) needs no second decode. The snapshot is the bytes
// BuildSnapshot makes in the module from the same catalog; open or swap it
// into an Engine to serve it.
//
// A catalog the importer refuses is a *wire.Error with the module's
// reasons: unknown_format, invalid_catalog, or the snapshot's own
// (snapshot_too_large). Cost: the import, tokenising, indexing and encoding
// of the whole catalog on the calling goroutine, then a native decode of
// the snapshot for the view (DecodeCatalog); it is not interrupted once
// begun, and holds the catalog, the engine it indexes and the snapshot in
// memory meanwhile.
func BuildCatalog(format string, catalog []byte) ([]byte, *Catalog, error) {
	snap, _, err := compile.FromCatalog(format, catalog, importer.Options{})
	if err != nil {
		return nil, nil, buildError(err)
	}
	view, err := DecodeCatalog(snap)
	if err != nil {
		return nil, nil, err
	}
	return snap, view, nil
}

// CheckCatalog imports catalog bytes as BuildCatalog does, without indexing
// or encoding them: nil when they import (a bad tool is skipped, not an
// error), else the *wire.Error BuildCatalog would give. It is the cheap
// test of one part of a catalog before the whole is built (the gateway
// imports each server's tools alone, so that one server's list that does
// not import is left out and the others serve); a catalog that imports may
// still be refused by the build, for its size.
func CheckCatalog(format string, catalog []byte) error {
	if _, _, _, err := importer.ImportWith(format, catalog, importer.Options{}); err != nil {
		return buildError(err)
	}
	return nil
}

// buildError is the module's refusal of a catalog (the build export's), so
// that a refused catalog reads the same built either way.
func buildError(err error) error {
	var unknown *importer.UnknownFormatError
	var werr *wire.Error
	switch {
	case errors.As(err, &unknown):
		return wire.Validation("unknown_format", err.Error())
	case errors.As(err, &werr):
		return werr
	}
	return wire.Validation("invalid_catalog", err.Error())
}
