package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tetratelabs/wazero"

	dwscatalog "github.com/toolsift/toolsift/catalogs/dws"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// catalogInfo is what `wasmhost info` prints about the engine serving:
// hostapi.Info with the engine's name and the JSON names of every host.
type catalogInfo struct {
	Engine        string `json:"engine"`
	Profile       string `json:"profile"`
	Format        string `json:"format"`
	SourceHash    string `json:"source_hash"`
	SurfaceHash   string `json:"surface_hash"`
	ToolCount     int    `json:"tool_count"`
	ProductCount  int    `json:"product_count"`
	SnapshotBytes int    `json:"snapshot_bytes"`
}

func infoOf(e *hostapi.Engine) catalogInfo {
	i := e.Info()
	return catalogInfo{
		Engine: i.Engine.String(), Profile: i.Profile, Format: i.Format, SourceHash: i.SourceHash, SurfaceHash: i.SurfaceHash,
		ToolCount: i.ToolCount, ProductCount: i.ProductCount, SnapshotBytes: i.SnapshotBytes,
	}
}

// engineFlags are the flags every command shares.
type engineFlags struct {
	engine      string
	buildEngine string
	snapshot    string
	snapshotSet bool // --snapshot was given, perhaps empty
	catalog     string
	format      string
	cacheDir    string
	memoryMiB   uint64
	explain     bool
	// diagnostics is where warnings go (the flag set's output: stderr).
	diagnostics io.Writer
	cacheWarned bool
}

// defaultBuildEngine builds snapshots in this process: the same bytes as
// the module (the conformance tests compare them), several times faster
// and in a fraction of the memory (3,608 MCP tools: 0.17–0.21 s CPU against
// 0.72–0.98 s on wazero, docs/BENCHMARKS.md "Building a snapshot").
// The module stays the path for hosts without a Go toolchain.
const defaultBuildEngine = "native"

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "wasm", "engine: wasm (the WebAssembly module on wazero) or native (the Go core in this process)")
	fs.Var(&setString{value: &f.snapshot, set: &f.snapshotSet}, "snapshot", "snapshot file to serve (default: the built-in DWS snapshot)")
	fs.StringVar(&f.cacheDir, "cache-dir", defaultCacheDir(), `where compiled module code is cached between runs ("" disables the cache)`)
	fs.StringVar(&f.catalog, "catalog", "", "catalog to index instead of a snapshot (see --format)")
	fs.StringVar(&f.format, "format", "dws", "format of --catalog: "+strings.Join(hostapi.Formats(), ", ")+" (dws: a dump directory or .tar.gz)")
	fs.StringVar(&f.buildEngine, "build-engine", defaultBuildEngine, "engine that indexes --catalog: native (the Go core) or wasm (the module); the bytes are the same")
	f.registerMemoryLimit(fs)
}

// registerMemoryLimit adds --memory-limit, the module's memory cap in MiB,
// which hostOptions passes on.
func (f *engineFlags) registerMemoryLimit(fs *flag.FlagSet) {
	f.diagnostics = fs.Output()
	fs.Uint64Var(&f.memoryMiB, "memory-limit", 0, "cap on each module instance's memory, in MiB (0: the host's default, 512; at most 4096)")
}

// snapshotBytes returns the snapshot to serve: --snapshot, a snapshot built
// from --catalog, or the built-in one.
func (f *engineFlags) snapshotBytes(ctx context.Context) ([]byte, error) {
	switch {
	case (f.snapshot != "" || f.snapshotSet) && f.catalog != "":
		return nil, wire.Validation("ambiguous_input", "--snapshot and --catalog are mutually exclusive")
	case f.snapshot != "" || f.snapshotSet:
		return f.storedSnapshot()
	case f.catalog != "":
		engineName := f.buildEngine
		if engineName == "" {
			engineName = defaultBuildEngine
		}
		return buildSnapshot(ctx, engineName, f.format, f.catalog, f.hostOptions()...)
	}
	return dwscatalog.Snapshot(), nil
}

// maxSnapshotFileBytes caps what --snapshot and --catalog/--in read: the
// snapshot format's limit (snapshot build refuses to write a larger one);
// a catalog of the documented 131,072 tools is far smaller.
const maxSnapshotFileBytes = hostapi.MaxSnapshotBytes

// storedSnapshot reads --snapshot, which was given: an empty path is refused
// (an unset variable in a script would otherwise serve the built-in
// catalog), as are anything but a regular file (/dev/zero, a FIFO, a
// directory) and a file over maxSnapshotFileBytes, before it is read.
func (f *engineFlags) storedSnapshot() ([]byte, error) {
	if f.snapshot == "" {
		return nil, wire.Validation("invalid_snapshot_path", `--snapshot "" names no file (leave the flag out to serve the built-in DWS snapshot)`)
	}
	return readSnapshotFile(f.snapshot)
}

func readSnapshotFile(path string) ([]byte, error) { return readInputFile("snapshot", path) }

// readInputFile reads the file a flag names (kind "snapshot" or "catalog"):
// a regular file of at most maxSnapshotFileBytes, refused before it is read
// otherwise (/dev/zero would be read until memory ran out, and opening a FIFO
// blocks until someone writes to it), with reasons read_<kind>_failed and
// <kind>_too_large.
func readInputFile(kind, path string) ([]byte, error) {
	// Stat first: opening a FIFO would block until someone writes to it.
	st, err := os.Stat(path)
	if err != nil {
		return nil, stage("read "+kind, "read_"+kind+"_failed", err)
	}
	if err := regularInput(kind, path, st); err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, stage("read "+kind, "read_"+kind+"_failed", err)
	}
	defer file.Close()
	if st, err = file.Stat(); err != nil { // the file opened, which may not be the one stat saw
		return nil, stage("read "+kind, "read_"+kind+"_failed", err)
	}
	if err := regularInput(kind, path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(file, maxSnapshotFileBytes+1))
	if err != nil {
		return nil, stage("read "+kind, "read_"+kind+"_failed", err)
	}
	if len(data) > maxSnapshotFileBytes { // it grew while being read
		return nil, inputTooLarge(kind, path)
	}
	return data, nil
}

func regularInput(kind, path string, st os.FileInfo) error {
	switch {
	case !st.Mode().IsRegular():
		return wire.Validation("read_"+kind+"_failed", fmt.Sprintf("read %s: %s is not a regular file (%s)", kind, path, fileKind(st.Mode())))
	case st.Size() > maxSnapshotFileBytes:
		return inputTooLarge(kind, path)
	}
	return nil
}

func inputTooLarge(kind, path string) error {
	return wire.Validation(kind+"_too_large", fmt.Sprintf("read %s: %s is larger than %d bytes", kind, path, maxSnapshotFileBytes))
}

func fileKind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&os.ModeCharDevice != 0:
		return "a character device"
	case mode&os.ModeDevice != 0:
		return "a device"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

func (f *engineFlags) open(ctx context.Context) (*hostapi.Engine, error) {
	snap, err := f.snapshotBytes(ctx)
	if err != nil {
		return nil, err
	}
	return f.openBytes(ctx, snap)
}

// openBytes serves the snapshot snap with the engine --engine names.
func (f *engineFlags) openBytes(ctx context.Context, snap []byte) (*hostapi.Engine, error) {
	kind, err := parseEngine(f.engine)
	if err != nil {
		return nil, err
	}
	e, err := hostapi.Open(ctx, snap, append(f.hostOptions(), hostapi.WithEngine(kind))...)
	if err != nil {
		what := "open snapshot in the module"
		if kind == hostapi.NativeEngine {
			what = "open snapshot"
		}
		return nil, stage(what, "", err)
	}
	return e, nil
}

// parseEngine reads --engine (or snapshot build's --engine, or
// --build-engine): wasm or native.
func parseEngine(name string) (hostapi.EngineKind, error) {
	kind, err := hostapi.ParseEngine(name)
	if err != nil {
		return kind, wire.Validation("invalid_engine", fmt.Sprintf("unknown --engine %q (wasm or native)", name))
	}
	return kind, nil
}

// buildSnapshot imports a catalog (a file, or for dws also a dump
// directory) with the default options and indexes it with the chosen
// engine; both give the same bytes.
func buildSnapshot(ctx context.Context, engineName, format, path string, opts ...hostapi.Option) ([]byte, error) {
	snap, _, err := buildSnapshotReporting(ctx, engineName, format, path, nil, nil, opts...)
	return snap, err
}

// buildSnapshotReporting is buildSnapshot with import options
// (hostapi.WithProfile, WithStrictImport, WithDefaultProduct), printing its
// phases to progress (see buildProgress; nil prints nothing). It returns
// the import report of a native build (the module's build call returns
// none, though its snapshot stores the same report). The module's build
// takes no import options: a build with any runs natively.
func buildSnapshotReporting(ctx context.Context, engineName, format, path string, importOpts []hostapi.Option, progress io.Writer, opts ...hostapi.Option) ([]byte, *hostapi.ImportReport, error) {
	kind, err := parseEngine(engineName)
	if err != nil {
		return nil, nil, err
	}
	phases := newBuildProgress(progress)
	defer phases.done()
	phases.begin("read")
	data, err := readCatalog(format, path)
	if err != nil {
		return nil, nil, err
	}
	if kind == hostapi.ModuleEngine && len(importOpts) == 0 {
		phases.begin("import, index and encode in the module")
		snap, err := hostapi.BuildSnapshot(ctx, format, data, opts...)
		return snap, nil, err
	}
	phases.begin("import, index and encode")
	var report *hostapi.ImportReport
	opts = append(append(opts, importOpts...), hostapi.WithEngine(hostapi.NativeEngine), hostapi.WithImportReport(func(r *hostapi.ImportReport) { report = r }))
	snap, err := hostapi.BuildSnapshot(ctx, format, data, opts...)
	if err != nil {
		return nil, nil, stage("import catalog", "invalid_catalog", err)
	}
	return snap, report, nil
}

// hostOptions turns the flags into module host options: the compilation
// cache makes every run after the first skip compiling the module.
func (f *engineFlags) hostOptions() []hostapi.Option {
	var opts []hostapi.Option
	if f.memoryMiB > 0 {
		opts = append(opts, hostapi.WithMemoryLimit(min(f.memoryMiB, 4096)<<20))
	}
	if f.cacheDir == "" {
		return opts
	}
	cache, err := wazero.NewCompilationCacheWithDir(f.cacheDir)
	if err != nil {
		return opts // an unusable cache only costs time
	}
	return append(opts, hostapi.WithCompilationCache(cache), hostapi.WithCacheErrorHandler(f.cacheFailed))
}

// cacheFailed is told that the compiled-module cache failed (a truncated
// or corrupted file) and the module was compiled without it: it removes the
// cache's files, so that the next compile writes a good entry, and says so
// once.
func (f *engineFlags) cacheFailed(err error) {
	// wazero keeps its files in <dir>/wazero-<version>-<arch>-<os>/; the
	// directories stay, as a cache opened on them expects them.
	dirs, _ := filepath.Glob(filepath.Join(f.cacheDir, "wazero-*-"+runtime.GOARCH+"-"+runtime.GOOS))
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Type().IsRegular() {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if f.cacheWarned || f.diagnostics == nil {
		return
	}
	f.cacheWarned = true
	fmt.Fprintf(f.diagnostics, "wasmhost: the compiled-module cache in %s failed (%v); compiled the module without it and cleared the cache\n", f.cacheDir, err)
}

func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "toolsift", "wazero")
}

// readCatalog reads the bytes the importer of format takes. A DWS dump
// directory becomes one JSON object of file name → content, the form the
// module accepts besides a .tar.gz. Failures are typed (read_catalog_failed,
// catalog_too_large).
func readCatalog(format, path string) ([]byte, error) {
	failed := func(err error) error { return stage("read catalog", "read_catalog_failed", err) }
	st, err := os.Stat(path)
	if err != nil {
		return nil, failed(err)
	}
	if !st.IsDir() {
		return readInputFile("catalog", path)
	}
	if format != "dws" {
		return nil, failed(fmt.Errorf("%s is a directory; a %s catalog is one file", path, format))
	}
	bundle, err := hostapi.DWSDumpBundle(os.DirFS(path))
	if err != nil {
		return nil, failed(err)
	}
	return bundle, nil
}

// typed turns an engine's error into the wire error it carries (the
// module's or the native core's), or an internal one for a host failure
// such as a trap or a deadline.
func typed(err error) *wire.Error {
	if err == nil {
		return nil
	}
	var werr *wire.Error
	if errors.As(err, &werr) {
		return werr
	}
	reason := "host_failure"
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		reason = "deadline_exceeded"
	}
	return wire.Internal(reason, strings.TrimSpace(err.Error()))
}

// search answers one tool-search.v1 request, with a score breakdown on
// every candidate when --explain was given.
func (f *engineFlags) search(ctx context.Context, e *hostapi.Engine, request []byte) ([]byte, *wire.Error) {
	search := e.Search
	if f.explain {
		search = e.SearchExplain
	}
	out, err := search(ctx, request)
	return out, typed(err)
}
