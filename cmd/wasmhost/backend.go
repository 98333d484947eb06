package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/testdata"
)

// backend is what a command needs from an engine: bytes in, bytes out, so
// that every engine (native now, the wasm module later) is driven the same
// way and compared byte for byte.
type backend interface {
	SearchJSON(request []byte) ([]byte, *wire.Error)
	InspectJSON(request []byte) ([]byte, *wire.Error)
}

// engineFlags are the flags every command shares.
type engineFlags struct {
	engine  string
	catalog string
	explain bool
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "native", "engine to run: native (the Go core in this process)")
	fs.StringVar(&f.catalog, "catalog", "", "DWS catalog dump directory (catalog.json + tools/); default: the built-in DWS catalog")
}

func (f *engineFlags) open() (backend, error) {
	if f.engine != "native" {
		return nil, fmt.Errorf("unknown --engine %q (available: native)", f.engine)
	}
	var files dws.Files
	var err error
	if f.catalog == "" {
		files, err = dws.FilesFromTarGz(testdata.DWSCatalog)
	} else {
		files, err = dws.FilesFromFS(os.DirFS(f.catalog))
	}
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	cat, err := dws.Import(files)
	if err != nil {
		return nil, fmt.Errorf("import catalog: %w", err)
	}
	e, err := engine.New(cat, profile.DWSV1)
	if err != nil {
		return nil, fmt.Errorf("build engine: %w", err)
	}
	return e.WithExplain(f.explain), nil
}
