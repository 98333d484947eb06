package hostapi

// The native engine (WithEngine(NativeEngine)) and the calls into the Go
// core it makes: this file is where the two engines meet, so that the rest
// of the package runs the module and does not care which engine answers.
// (The catalog view, catalog.go, the name rules, text.go, and lint, lint.go,
// call the core too.)
//
// The module is this same core compiled to WebAssembly (wasm/module), so
// the native engine answers with the same bytes: searches, inspects and
// provider calls go through the same core functions the module's exports
// call, and a build goes through the same compile.FromCatalog with the
// same error mapping (wasm/internal/calls.AppendSnapshot).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/provider"
	"github.com/toolsift/toolsift/core/snapshot"
	"github.com/toolsift/toolsift/core/wire"
)

// MaxSnapshotBytes is the largest snapshot, header included, that any host
// opens and any build writes (a build over it is refused with
// snapshot_too_large): 1 GiB.
const MaxSnapshotBytes = snapshot.MaxBytes

// Formats lists the catalog formats a build reads, in the module's order
// (its toolsift_version "formats").
func Formats() []string { return importer.Formats() }

// Profiles lists the ranking profiles a build may name (WithProfile), in
// the module's order (its toolsift_version "profiles").
func Profiles() []string { return profile.Names() }

// ImportReport is what a build's import did: tools read, imported, skipped
// and why, and where each source field went.
type ImportReport struct {
	// JSON is the report's exact JSON, as the module's provider imports and
	// StoredImportReport give it.
	JSON json.RawMessage
	// Summary is the report for people: one line of counts, one per skipped
	// tool, and the fields used and ignored.
	Summary string
}

// StoredImportReport returns the import report a snapshot stores (as
// ImportReport.JSON), or nil when it stores none (a DWS snapshot, or one
// built from an already imported catalog). A snapshot that does not decode
// is a *wire.Error (invalid_snapshot). Cost: the snapshot is decoded in this
// process, the whole of it.
func StoredImportReport(snap []byte) (json.RawMessage, error) {
	_, report, err := snapshotDecode(snap)
	if err != nil || report == nil {
		return nil, err
	}
	return json.Marshal(report)
}

// DWSDumpBundle reads a DWS catalog dump directory (catalog.json and
// tools/<product>.json) into the one JSON object of file name → content that
// BuildSnapshot's "dws" format takes besides a .tar.gz.
func DWSDumpBundle(dump fs.FS) ([]byte, error) {
	files, err := dws.FilesFromFS(dump)
	if err != nil {
		return nil, err
	}
	bundle := map[string]json.RawMessage{}
	for name, data := range files {
		bundle[filepath.ToSlash(name)] = data
	}
	return json.Marshal(bundle) // encoding/json sorts the keys
}

// nativeServer serves an Engine's calls with the Go core. The engine of one
// snapshot is immutable and safe for concurrent use, so every call reads
// the current one and runs on the caller's goroutine: no pool, no limit.
type nativeServer struct {
	current atomic.Pointer[nativeGeneration]
	closed  atomic.Bool
}

// nativeGeneration is one opened snapshot, with the explaining twin the
// module also keeps (wasm/internal/calls.Open).
type nativeGeneration struct {
	engine, explain *engine.Engine
	info            Info
	report          *importer.Report // the snapshot's stored import report (nil: none)
	view            struct {
		once sync.Once
		view *Catalog
	}
}

func openNative(ctx context.Context, snap []byte) (*nativeServer, error) {
	g, err := newNativeGeneration(ctx, snap)
	if err != nil {
		return nil, err
	}
	n := &nativeServer{}
	n.current.Store(g)
	return n, nil
}

// newNativeGeneration opens snap (copied: snapshot.Open keeps a private copy
// of the body, so the caller may reuse snap, as with the module).
func newNativeGeneration(ctx context.Context, snap []byte) (*nativeGeneration, error) {
	if ctx.Err() != nil {
		return nil, finish(ctx, "open", nil, "")
	}
	// The report is read while the body is decoded (compile.Open checks it
	// too, but keeps only the engine), for the catalog view.
	var report *importer.Report
	keepReport := snapshot.Then(func(body *snapshot.Body) (err error) {
		report, err = compile.Report(body)
		return err
	})
	e, err := compile.Open(snap, keepReport)
	if err != nil {
		return nil, wire.ErrorOf(err)
	}
	v := e.Version()
	return &nativeGeneration{engine: e, explain: e.WithExplain(true), report: report, info: Info{
		Engine: NativeEngine, Profile: e.Profile().Name, Format: e.Catalog().Format,
		SourceHash: v.SourceHash, SurfaceHash: v.SurfaceHash,
		ToolCount: e.ToolCount(), ProductCount: len(e.Catalog().Products), SnapshotBytes: len(snap),
	}}, nil
}

// call runs one call on the current snapshot, failing as the module's pool
// does when the context is done (first) or the engine closed.
func (n *nativeServer) call(ctx context.Context, op string, f func(g *nativeGeneration) ([]byte, error)) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, finish(ctx, op, nil, "")
	}
	if n.closed.Load() {
		return nil, ErrClosed
	}
	defer recoverAsError(&err)
	out, err = f(n.current.Load())
	if err != nil {
		return nil, wire.ErrorOf(err)
	}
	return out, nil
}

// recoverAsError turns a panic in the core (a bug) into the internal error
// the module answers with instead of trapping (wasm/internal/calls.Panic),
// so that a native host is not brought down by one bad call either.
func recoverAsError(err *error) {
	if r := recover(); r != nil {
		*err = wire.Internal("panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
	}
}

func (n *nativeServer) search(ctx context.Context, request []byte, explain bool) ([]byte, error) {
	return n.call(ctx, "search", func(g *nativeGeneration) ([]byte, error) {
		if explain {
			return g.explain.SearchJSON(request)
		}
		return g.engine.SearchJSON(request)
	})
}

func (n *nativeServer) inspect(ctx context.Context, request []byte) ([]byte, error) {
	return n.call(ctx, "inspect", func(g *nativeGeneration) ([]byte, error) {
		return g.engine.InspectJSON(request)
	})
}

func (n *nativeServer) provider(ctx context.Context, request []byte) ([]byte, error) {
	return n.call(ctx, "provider", func(g *nativeGeneration) ([]byte, error) {
		return provider.Do(nil, g.engine, request)
	})
}

func (n *nativeServer) info() Info { return n.current.Load().info }

// catalog is the view of the snapshot serving now, made on first use from
// the engine's own catalog (no second decode).
func (n *nativeServer) catalog() (*Catalog, error) {
	if n.closed.Load() {
		return nil, ErrClosed
	}
	g := n.current.Load()
	g.view.once.Do(func() { g.view.view = viewOf(g.engine.Profile().Name, g.engine.Catalog(), g.report) })
	return g.view.view, nil
}

// swap opens snap and, only if it opens, serves it from the next call on;
// calls in flight finish on the engine they started with.
func (n *nativeServer) swap(ctx context.Context, snap []byte) error {
	if ctx.Err() != nil {
		return finish(ctx, "swap", nil, "")
	}
	if n.closed.Load() {
		return ErrClosed
	}
	g, err := newNativeGeneration(ctx, snap)
	if err != nil {
		return err
	}
	if n.closed.Load() {
		return ErrClosed
	}
	n.current.Store(g)
	return nil
}

// close makes later calls fail with ErrClosed; the engine's memory goes
// with the last reference to it.
func (n *nativeServer) close() { n.closed.Store(true) }

// errBuildStopped unwinds a native build whose context ended: the import
// and index call their checkpoint about once per tool and step, and it
// panics with this value, which buildNative recovers.
var errBuildStopped = errors.New("toolsift: native build stopped")

// buildNative is BuildSnapshot with NativeEngine: compile.FromCatalog, the
// module's own path, with cfg's import options, its errors mapped as the
// module maps them. A context that ends stops the build at its next
// checkpoint.
func buildNative(ctx context.Context, format string, catalog []byte, cfg *config) (snap []byte, err error) {
	if ctx.Err() != nil {
		return nil, finish(ctx, "build snapshot", nil, "")
	}
	opts := importer.Options{Strict: cfg.importStrict, Profile: cfg.importProfile, Product: cfg.importProduct}
	if ctx.Done() != nil {
		opts.Checkpoint = func() {
			if ctx.Err() != nil {
				panic(errBuildStopped)
			}
		}
	}
	defer func() {
		switch r := recover(); {
		case r == nil:
		case r == errBuildStopped:
			snap, err = nil, finish(ctx, "build snapshot", nil, "")
		default:
			snap, err = nil, wire.Internal("panic", fmt.Sprintf("%v\n%s", r, debug.Stack()))
		}
	}()
	snap, report, err := compile.FromCatalog(format, catalog, opts)
	if err != nil {
		return nil, buildError(err)
	}
	if cfg.onImportReport != nil && report != nil {
		raw, err := json.Marshal(report)
		if err != nil {
			return nil, wire.Internal("encode_failed", fmt.Sprintf("import report: %v", err))
		}
		cfg.onImportReport(&ImportReport{JSON: raw, Summary: report.Summary()})
	}
	return snap, nil
}

// importToolsNative is the provider imports (FromOpenAITools, …) with
// NativeEngine: the payload toolsift_import_tools returns, built by the same
// core function.
func importToolsNative(ctx context.Context, format string, tools []byte) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, finish(ctx, "import tools", nil, "")
	}
	defer recoverAsError(&err)
	out, err = provider.AppendImport(nil, format, tools)
	if err != nil {
		return nil, wire.ErrorOf(err)
	}
	return out, nil
}

// CheckCatalog imports catalog bytes as BuildSnapshot does, without indexing
// or encoding them: nil when they import (a bad tool is skipped, not an
// error), else the *wire.Error BuildSnapshot would give. It is the cheap
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
// that a refused catalog reads the same built either way: unknown_format,
// the snapshot's own refusal (snapshot_too_large), else invalid_catalog.
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
