package hostapi

import (
	"fmt"
	"runtime"

	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/wasm"
)

// Option configures Open, BuildSnapshot, the provider imports
// (FromOpenAITools, …) and ModuleVersion.
type Option func(*config)

// EngineKind is what answers an Engine's calls and builds snapshots: the
// module on wazero (ModuleEngine, the default) or the Go core in this
// process (NativeEngine). Both give the same bytes for every call (the
// tests replay every golden vector through both); they differ in cost and
// isolation. See WithEngine.
type EngineKind int

const (
	// ModuleEngine runs toolsearch.wasm on wazero: sandboxed, memory-capped,
	// stoppable by a context, the same module every other host runs.
	ModuleEngine EngineKind = iota
	// NativeEngine runs the Go core the module is compiled from, in this
	// process (native.go): no compile, no instance pool, no copy of the
	// snapshot per instance; a build of 3,608 MCP tools takes 0.17–0.21 s CPU
	// against 0.72–0.98 s in the module on wazero (docs/BENCHMARKS.md,
	// "Building a snapshot"), in a fraction of the memory.
	NativeEngine
)

// String is the engine's name on a command line: "wasm" or "native".
func (k EngineKind) String() string {
	if k == NativeEngine {
		return "native"
	}
	return "wasm"
}

// ParseEngine reads an engine's name ("wasm" or "native", as String gives
// it); another name is a *wire.Error with Reason "invalid_engine".
func ParseEngine(name string) (EngineKind, error) {
	switch name {
	case "wasm":
		return ModuleEngine, nil
	case "native":
		return NativeEngine, nil
	}
	return ModuleEngine, wire.Validation("invalid_engine", fmt.Sprintf("unknown engine %q (wasm or native)", name))
}

// WithEngine chooses the engine (the one place the choice is made; the
// default is ModuleEngine). With NativeEngine, Open serves the snapshot with
// the Go core, BuildSnapshot and the provider imports build with it, and the
// options about the module (cache, instances, memory limit, interruptible
// calls) have no effect; ModuleVersion always reads the module.
func WithEngine(kind EngineKind) Option {
	return func(c *config) { c.engine = kind }
}

// WithProfile makes BuildSnapshot rank with the named profile (Profiles
// lists them) instead of the catalog format's own. The module's build takes
// no import options: with ModuleEngine it is refused (unsupported_option).
func WithProfile(name string) Option {
	return func(c *config) { c.importProfile = name }
}

// WithStrictImport makes BuildSnapshot refuse the catalog when one tool is
// malformed, instead of repairing the detail or skipping the tool (and
// listing it in the import report). NativeEngine only, as WithProfile.
func WithStrictImport() Option {
	return func(c *config) { c.importStrict = true }
}

// WithDefaultProduct names the product of the tools whose input names none
// (a plain MCP tools/list, OpenAI tools outside a namespace, Anthropic
// tools) instead of "tools". NativeEngine only, as WithProfile.
func WithDefaultProduct(name string) Option {
	return func(c *config) { c.importProduct = name }
}

// WithImportReport has report called with the import report of a
// BuildSnapshot that succeeds with NativeEngine. The module's build returns
// no report (the snapshot stores it, except DWS's: StoredImportReport reads
// it back), so with ModuleEngine report is not called.
func WithImportReport(report func(*ImportReport)) Option {
	return func(c *config) { c.onImportReport = report }
}

const (
	pageSize           = 64 << 10
	maxPages           = 1 << 16 // wasm32: 4 GiB
	defaultMemoryLimit = 512 << 20
)

type config struct {
	engine EngineKind
	// The import options of a build (WithProfile, WithStrictImport,
	// WithDefaultProduct) and where its report goes (WithImportReport).
	importProfile  string
	importStrict   bool
	importProduct  string
	onImportReport func(*ImportReport)

	cache        wazero.CompilationCache
	cacheSet     bool
	maxInstances int
	// compileWorkers is how many goroutines compile the module; see
	// WithCompilationWorkers.
	compileWorkers int
	memoryLimit    uint64
	module         []byte
	// moduleConfig lets tests alter the per-instance module configuration
	// (clocks, randomness). Never set outside tests.
	moduleConfig func(wazero.ModuleConfig) wazero.ModuleConfig
	// wasiCallObserver, if set, is called with the name of every WASI
	// function the module calls (tests only: how often a call could be
	// stopped).
	wasiCallObserver func(name string)
	// interruptible compiles the module with wazero's termination checks
	// (WithCloseOnContextDone(true)); see WithInterruptibleCalls.
	interruptible bool
	// onCacheError is told when the compilation cache failed and the module
	// was compiled without it; see WithCacheErrorHandler.
	onCacheError func(error)
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	if c.maxInstances < 1 {
		c.maxInstances = runtime.GOMAXPROCS(0)
	}
	if c.compileWorkers < 1 {
		c.compileWorkers = runtime.GOMAXPROCS(0)
	}
	if c.memoryLimit == 0 {
		c.memoryLimit = defaultMemoryLimit
	}
	return c
}

// importOptions reports whether a build was given import options, which
// only the native build takes.
func (c *config) importOptions() bool {
	return c.importProfile != "" || c.importStrict || c.importProduct != ""
}

// moduleBytes is the module to run: WithModule's, else the embedded one.
func (c *config) moduleBytes() []byte {
	if c.module == nil {
		return wasm.Binary
	}
	return c.module
}

// compilationCache is WithCompilationCache's cache (nil: none), else the
// process-wide one.
func (c *config) compilationCache() wazero.CompilationCache {
	if !c.cacheSet {
		return sharedCache()
	}
	return c.cache
}

// memoryLimitPages is the memory limit in whole 64 KiB wasm pages, at least
// one and at most 65,536 (4 GiB).
func (c *config) memoryLimitPages() uint32 {
	pages := c.memoryLimit / pageSize
	switch {
	case pages < 1:
		return 1
	case pages > maxPages:
		return maxPages
	}
	return uint32(pages)
}

// WithCompilationCache sets the wazero compilation cache the module is
// compiled through. The caller owns the cache (hostapi never closes it) and may
// share it between engines and processes (wazero.NewCompilationCacheWithDir
// persists compiled code on disk, which saves the compile on the next process
// start).
//
// Without this option a process-wide in-memory cache is used: the module is
// compiled once per process (the first Open, BuildSnapshot or ModuleVersion
// pays it, later ones reuse the machine code), and that code stays resident
// for the life of the process. WithCompilationCache(nil) disables caching: each
// Open, BuildSnapshot and ModuleVersion compiles the module afresh and frees
// the machine code when it is done.
func WithCompilationCache(cache wazero.CompilationCache) Option {
	return func(c *config) {
		c.cache = cache
		c.cacheSet = true
	}
}

// WithCacheErrorHandler has handle called when compiling the module through
// the compilation cache failed (a corrupted cache file, for one: wazero gives
// up on it with an error rather than compiling) and the module was compiled
// without the cache instead, which costs the compile and nothing else: the
// call goes on. A cache entry that failed stays in the cache until removed,
// so handle is the place to remove it (wazero keeps the entries of a
// NewCompilationCacheWithDir cache in a subdirectory of its own) or to say
// so. Without this option the fallback is silent.
func WithCacheErrorHandler(handle func(err error)) Option {
	return func(c *config) { c.onCacheError = handle }
}

// WithCompilationWorkers sets how many goroutines compile the module when
// it is not in the compilation cache (wazero compiles its functions side by
// side; the machine code is the same). The default is runtime.GOMAXPROCS(0);
// n < 1 means the default. Compiling toolsearch.wasm (6.7 MB) with the
// optimizing compiler takes about 2 s on one goroutine and 1.1–1.3 s on two
// (docs/BENCHMARKS.md, "ninth step"); each worker holds its own compiler's
// buffers while it runs.
func WithCompilationWorkers(n int) Option {
	return func(c *config) { c.compileWorkers = n }
}

// WithMaxInstances bounds how many module instances an Engine runs at once,
// which is how many requests it serves in parallel; further calls wait for a
// free instance (or their context). Each instance holds its own copy of the
// opened snapshot in its linear memory. The default is runtime.GOMAXPROCS(0);
// n < 1 means the default.
func WithMaxInstances(n int) Option {
	return func(c *config) { c.maxInstances = n }
}

// WithMemoryLimit caps each instance's linear memory, in bytes (rounded down
// to whole 64 KiB pages, at most 4 GiB). A call that needs more traps: it
// fails with an error and its instance is discarded. For scale: an instance
// serving the DWS catalog starts at about 23 MiB, and BuildSnapshot of the
// DWS catalog peaks near 300 MiB. The default is 512 MiB; 0 means the
// default.
func WithMemoryLimit(bytes uint64) Option {
	return func(c *config) { c.memoryLimit = bytes }
}

// WithModule runs another build of toolsearch.wasm instead of the one embedded
// in package github.com/toolsift/toolsift/wasm (for tests and for pinning a
// module release). The bytes are not copied and must not change afterwards.
func WithModule(wasm []byte) Option {
	return func(c *config) { c.module = wasm }
}

// withModuleConfig alters the module configuration of every instance (tests
// only: clocks and randomness must not change answers).
func withModuleConfig(f func(wazero.ModuleConfig) wazero.ModuleConfig) Option {
	return func(c *config) { c.moduleConfig = f }
}

// withWASICallObserver has observe called with the name of every WASI
// function the module calls (tests only).
func withWASICallObserver(observe func(name string)) Option {
	return func(c *config) { c.wasiCallObserver = observe }
}

// WithInterruptibleCalls makes a context that ends while the module runs stop
// the module within one loop iteration (wazero's WithCloseOnContextDone)
// rather than at its next WASI call: the instance is closed and discarded,
// and the call returns an error wrapping ctx.Err().
//
// Cost: the module is compiled with a termination check in every loop, which
// makes each search 5.4x to 6x slower (BenchmarkWasmSearchChineseQuery went
// from 261 µs to 1,494 µs, docs/BENCHMARKS.md "Deadlines"; building the DWS
// snapshot from 4 s to 20 s), and the compiled code
// is cached separately from the default build.
//
// Without it (the default) a module whose call's context ends is stopped at
// its next WASI call, and its instance discarded: the Go runtime in the
// module reads the clock often while it works (measured on DWS: at most 3 to
// 23 ms apart during runs of searches, 45 ms while opening a snapshot, 0.8 s
// while building one). A single search (under a millisecond) may finish
// first; it then returns the context's error and keeps its instance.
// BuildSnapshot and ModuleVersion return at the deadline without waiting for
// the module to stop.
func WithInterruptibleCalls() Option {
	return func(c *config) { c.interruptible = true }
}
