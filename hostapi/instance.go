package hostapi

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// sharedCache is the process-wide in-memory compilation cache used when no
// WithCompilationCache option is given. It only ever holds machine code for
// module bytes, keyed by their hash; it never changes an answer.
var sharedCache = sync.OnceValue(wazero.NewCompilationCache)

// compileMu serialises compiles through a cache, so that engines opened at the
// same time compile the module once instead of racing (wazero checks its cache
// before compiling, not under a lock).
var compileMu sync.Mutex

// moduleRuntime is one wazero runtime with WASI and the compiled module.
type moduleRuntime struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	cfg      *config
	// opened is the size of the linear memory of the last instance that
	// opened a snapshot: new instances reserve that much at once.
	opened atomic.Uint64
	// limits: the module's toolsift_limits, read by its first instance.
	limits atomic.Pointer[moduleLimits]
}

func newModuleRuntime(ctx context.Context, cfg *config) (*moduleRuntime, error) {
	module, cache := cfg.moduleBytes(), cfg.compilationCache()
	if len(module) == 0 {
		return nil, errors.New("toolsift: no module: the wasm package embeds an empty toolsearch.wasm")
	}
	mr, err := compileRuntime(ctx, cfg, module, cache)
	if err == nil || cache == nil || ctx.Err() != nil {
		return mr, err
	}
	// A compilation cache only saves time, so a cache that fails (a cache
	// file truncated or with a flipped byte: wazero reports
	// "compilationcache: unexpected EOF" or "checksum mismatch" and gives
	// up) must not fail the call: compile without it. If that works, the
	// cache was at fault, and the caller is told (WithCacheErrorHandler) so
	// that it can drop the bad entry.
	mr, plainErr := compileRuntime(ctx, cfg, module, nil)
	if plainErr != nil {
		return nil, err
	}
	if cfg.onCacheError != nil {
		cfg.onCacheError(err)
	}
	return mr, nil
}

// compileRuntime makes a runtime with WASI and compiles module in it,
// through cache unless it is nil.
func compileRuntime(ctx context.Context, cfg *config, module []byte, cache wazero.CompilationCache) (*moduleRuntime, error) {
	rc := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(cfg.interruptible).
		WithMemoryLimitPages(cfg.memoryLimitPages())
	if cache != nil {
		rc = rc.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	// The listener goes on the WASI host functions only (the context carrying
	// it is used for this host module alone), so the module's own compiled
	// code is unchanged.
	wasiCtx := experimental.WithFunctionListenerFactory(ctx, stopAtHostCall{observe: cfg.wasiCallObserver})
	if _, err := wasi_snapshot_preview1.Instantiate(wasiCtx, rt); err != nil {
		_ = rt.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("toolsift: instantiate WASI: %w", err)
	}
	if cache != nil {
		compileMu.Lock()
	}
	compiled, err := rt.CompileModule(experimental.WithCompilationWorkers(ctx, cfg.compileWorkers), module)
	if cache != nil {
		compileMu.Unlock()
	}
	if err != nil {
		_ = rt.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("toolsift: compile module: %w", err)
	}
	return &moduleRuntime{rt: rt, compiled: compiled, cfg: cfg}, nil
}

// stopAtHostCall stops a call whose context is done when the module next
// calls a WASI function, without the cost of WithInterruptibleCalls (wazero's
// check on every loop iteration, 5.4x to 6x per search). The Go runtime in
// the module calls clock_time_get often enough for this to bound a long call,
// and a snapshot build, whose collector is paused, reads the clock at its
// checkpoints (calls.AppendSnapshot); TestWASICallGaps measures how often. The instance is closed and the call
// fails with a *sys.ExitError carrying wazero's exit code for the context's
// error, as WithInterruptibleCalls would; the caller discards the instance.
// It uses wazero's experimental function listener API: a wazero upgrade that
// changes it fails TestDeadlineStopsLongCall.
type stopAtHostCall struct {
	observe func(name string) // tests only: sees every WASI call
}

func (l stopAtHostCall) NewFunctionListener(api.FunctionDefinition) experimental.FunctionListener {
	return l
}

func (l stopAtHostCall) Before(ctx context.Context, caller api.Module, def api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	if l.observe != nil {
		l.observe(def.Name())
	}
	err := ctx.Err()
	if err == nil {
		return
	}
	code := sys.ExitCodeContextCanceled
	if errors.Is(err, context.DeadlineExceeded) {
		code = sys.ExitCodeDeadlineExceeded
	}
	_ = caller.CloseWithExitCode(context.WithoutCancel(ctx), code)
	// wazero turns a host function's panic with an ExitError into the
	// call's error, as it does for proc_exit.
	panic(sys.NewExitError(code))
}

func (stopAtHostCall) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (stopAtHostCall) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// close closes every instance and the runtime. The compiled code stays in a
// compilation cache if one is configured (that is the cache's purpose).
func (m *moduleRuntime) close(ctx context.Context) error {
	return m.rt.Close(context.WithoutCancel(ctx))
}

// The exports of ABI version 1, with their signatures.
const (
	fnAlloc = iota
	fnFree
	fnVersion
	fnSetMemoryLimit
	fnOpenOwned
	fnClose
	fnInfo
	fnSearch
	fnInspect
	fnBuildSnapshot
	fnLimits
	numFns
)

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

var exports = [numFns]struct {
	name            string
	params, results []api.ValueType
}{
	fnAlloc:          {"toolsift_alloc", []api.ValueType{i32}, []api.ValueType{i32}},
	fnFree:           {"toolsift_free", []api.ValueType{i32}, nil},
	fnVersion:        {"toolsift_version", nil, []api.ValueType{i64}},
	fnSetMemoryLimit: {"toolsift_set_memory_limit", []api.ValueType{i64}, []api.ValueType{i64}},
	fnOpenOwned:      {"toolsift_open_owned", []api.ValueType{i32, i32}, []api.ValueType{i64}},
	fnClose:          {"toolsift_close", []api.ValueType{i32}, []api.ValueType{i32}},
	fnInfo:           {"toolsift_info", []api.ValueType{i32}, []api.ValueType{i64}},
	fnSearch:         {"toolsift_search", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}},
	fnInspect:        {"toolsift_inspect", []api.ValueType{i32, i32, i32}, []api.ValueType{i64}},
	fnBuildSnapshot:  {"toolsift_build_snapshot", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}},
	fnLimits:         {"toolsift_limits", nil, []api.ValueType{i64}},
}

// instance is one instantiated module. It is single-threaded: exactly one
// goroutine uses it at a time (the pool hands it out exclusively).
type instance struct {
	mod    api.Module
	mem    api.Memory
	fns    [numFns]api.Function
	stack  [4]uint64
	stderr *head

	// request is a buffer of the module's max_request_bytes (toolsift_limits)
	// the instance keeps for its life: every search and Inspect request fits
	// (the module refuses larger ones), so a search makes two calls into the
	// module (search, free the result) instead of four, as in the Python and
	// JS bindings.
	request      uint32
	requestBytes int

	gen        *generation // the snapshot opened in it (nil: none)
	handle     uint32
	snapshotAt uint32         // where the opened snapshot lies in its memory (0: none)
	opened     *atomic.Uint64 // its runtime's moduleRuntime.opened
	mapped     *mappedRegion  // its linear memory, when a mapping (memory_linux.go)
}

// sandboxConfig is the configuration of every module instance the host
// runs: no arguments, no environment, no preopened directory or socket (no
// WithArgs, WithEnv, WithFSConfig; wazero gives none unless asked), stdin at
// EOF, stdout discarded, stderr kept in the given head for error messages,
// wazero's default deterministic clocks and random source, _initialize run
// once. TestSandboxSeenFromInside runs a probe module with it.
func sandboxConfig(stderr *head) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStdin(eofReader{}).
		WithStdout(io.Discard).
		WithStderr(stderr)
}

// instantiateSandboxed instantiates the runtime's compiled module with
// sandboxConfig (altered only by tests, through withModuleConfig).
// The memory's mapping, if it is one, is the caller's to release once the
// module is closed and in no call.
func (m *moduleRuntime) instantiateSandboxed(ctx context.Context) (api.Module, *head, *mappedRegion, error) {
	stderr := &head{}
	mc := sandboxConfig(stderr)
	if m.cfg.moduleConfig != nil {
		mc = m.cfg.moduleConfig(mc)
	}
	// The memory allocator is taken from the context (wazero's experimental
	// hook); see memory.go.
	memory := &memorySource{reserve: m.opened.Load()}
	mod, err := m.rt.InstantiateModule(experimental.WithMemoryAllocator(ctx, memory.allocator()), m.compiled, mc)
	if err != nil {
		memory.mapped.release() // nothing runs in a module that failed to instantiate
		return nil, nil, nil, finish(ctx, "instantiate", err, stderr.String())
	}
	return mod, stderr, memory.mapped, nil
}

// instantiate creates a fresh, sandboxed instance of the toolsift module and
// checks its exports against ABI version 1.
func (m *moduleRuntime) instantiate(ctx context.Context) (*instance, error) {
	mod, stderr, mapped, err := m.instantiateSandboxed(ctx)
	if err != nil {
		return nil, err
	}
	in := &instance{mod: mod, stderr: stderr, mem: mod.ExportedMemory("memory"), opened: &m.opened, mapped: mapped}
	if mapped != nil {
		// An instance dropped without close (or closed by Runtime.Close
		// while in a call) unmaps when it is collected: a call in it holds
		// it until the call returns.
		runtime.AddCleanup(in, (*mappedRegion).release, mapped)
	}
	if in.mem == nil {
		in.close()
		return nil, finish(ctx, "instantiate", abiErrorf(`no exported "memory"`), "")
	}
	for i, want := range exports {
		fn := mod.ExportedFunction(want.name)
		if fn == nil {
			in.close()
			return nil, finish(ctx, "instantiate", abiErrorf("missing export %s", want.name), "")
		}
		def := fn.Definition()
		if !sameTypes(def.ParamTypes(), want.params) || !sameTypes(def.ResultTypes(), want.results) {
			in.close()
			return nil, finish(ctx, "instantiate", abiErrorf("export %s has signature %v -> %v, want %v -> %v",
				want.name, def.ParamTypes(), def.ResultTypes(), want.params, want.results), "")
		}
		in.fns[i] = fn
	}
	// The module keeps its heap a sixteenth below the limit it is told; a large
	// catalog needs more than the 256 MiB it assumes otherwise.
	if _, err := in.call(ctx, fnSetMemoryLimit, uint64(m.cfg.memoryLimitPages())*pageSize); err != nil {
		in.close()
		return nil, finish(ctx, "instantiate", err, stderr.String())
	}
	limits, err := m.readLimits(ctx, in)
	if err != nil {
		in.close()
		return nil, finish(ctx, "instantiate", err, stderr.String())
	}
	request, err := in.call(ctx, fnAlloc, uint64(limits.maxRequestBytes))
	if err == nil && uint32(request) == 0 {
		err = abiErrorf("toolsift_alloc(%d) returned 0", limits.maxRequestBytes)
	}
	if err != nil {
		in.close()
		return nil, finish(ctx, "instantiate", err, stderr.String())
	}
	in.request, in.requestBytes = uint32(request), limits.maxRequestBytes
	return in, nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// close discards the instance (its memory goes with it). It is never called
// during one of the instance's calls.
func (in *instance) close() {
	_ = in.mod.Close(context.Background())
	in.mapped.release()
}

// call runs one export with up to four i32/i64 parameters and returns its
// first result (0 if none).
func (in *instance) call(ctx context.Context, fn int, params ...uint64) (uint64, error) {
	stack := in.stack[:]
	copy(stack, params)
	if err := in.fns[fn].CallWithStack(ctx, stack); err != nil {
		return 0, fmt.Errorf("%s: %w", exports[fn].name, err)
	}
	return stack[0], nil
}

// put copies data into a fresh module buffer; (0, nil) for empty data.
func (in *instance) put(ctx context.Context, data []byte) (uint32, error) {
	if len(data) == 0 {
		return 0, nil
	}
	if uint64(len(data)) > 1<<31-1 {
		return 0, abiErrorf("buffer of %d bytes does not fit an i32 length", len(data))
	}
	r, err := in.call(ctx, fnAlloc, uint64(len(data)))
	if err != nil {
		return 0, err
	}
	ptr := uint32(r)
	if ptr == 0 {
		return 0, abiErrorf("toolsift_alloc(%d) returned 0", len(data))
	}
	if !in.mem.Write(ptr, data) {
		return 0, abiErrorf("toolsift_alloc(%d) returned %#x, outside memory of %d bytes", len(data), ptr, in.mem.Size())
	}
	return ptr, nil
}

// free releases a buffer from put (0 is a no-op).
func (in *instance) free(ctx context.Context, ptr uint32) error {
	if ptr == 0 {
		return nil
	}
	_, err := in.call(ctx, fnFree, uint64(ptr))
	return err
}

// take copies a result buffer out of linear memory, frees it, and returns
// the payload of a status-0 result or the *wire.Error of a status-1 result.
func (in *instance) take(ctx context.Context, descriptor uint64) ([]byte, error) {
	ptr, n := uint32(descriptor>>32), uint32(descriptor)
	if n == 0 {
		return nil, abiErrorf("empty result descriptor %#x", descriptor)
	}
	view, ok := in.mem.Read(ptr, n)
	if !ok {
		return nil, abiErrorf("result [%#x, +%d) is outside memory of %d bytes", ptr, n, in.mem.Size())
	}
	status := view[0]
	payload := make([]byte, n-1) // copy: the view aliases linear memory
	copy(payload, view[1:])
	if err := in.free(ctx, ptr); err != nil {
		return nil, err
	}
	switch status {
	case 0:
		return payload, nil
	case 1:
		return nil, decodeModuleError(payload)
	}
	return nil, abiErrorf("result status byte %d", status)
}

// invoke passes up to two byte buffers to fn (each as ptr, len, after the
// fixed leading parameters), then frees them and takes the result.
func (in *instance) invoke(ctx context.Context, fn int, lead []uint64, bufs [][]byte, trail ...uint64) ([]byte, error) {
	var params [4]uint64
	k := copy(params[:], lead)
	var ptrs [2]uint32 // buffers to free after the call (0: none)
	for i, b := range bufs {
		ptr := in.request
		if len(bufs) == 1 && len(b) > 0 && len(b) <= in.requestBytes {
			// The module reads a request during the call only: the
			// instance's request buffer carries it.
			if !in.mem.Write(ptr, b) {
				return nil, abiErrorf("toolsift_alloc returned %#x for the request buffer, outside memory of %d bytes", ptr, in.mem.Size())
			}
		} else {
			var err error
			if ptr, err = in.put(ctx, b); err != nil {
				return nil, err
			}
			ptrs[i] = ptr
		}
		params[k], params[k+1] = uint64(ptr), uint64(len(b))
		k += 2
	}
	k += copy(params[k:], trail)
	descriptor, err := in.call(ctx, fn, params[:k]...)
	if err != nil {
		return nil, err
	}
	for _, ptr := range ptrs[:len(bufs)] {
		if err := in.free(ctx, ptr); err != nil {
			return nil, err
		}
	}
	return in.take(ctx, descriptor)
}

// open opens snapshot bytes (g's) in the instance and records the handle.
// The module keeps the buffer the bytes are copied into
// (toolsift_open_owned): it is not freed here, and the instance holds one
// copy of the snapshot, not two, at snapshotAt.
func (in *instance) open(ctx context.Context, g *generation, snapshot []byte) error {
	if len(snapshot) == 0 {
		snapshot = []byte{} // put gives no buffer; the module refuses it
	}
	ptr, err := in.put(ctx, snapshot)
	if err != nil {
		return err
	}
	descriptor, err := in.call(ctx, fnOpenOwned, uint64(ptr), uint64(len(snapshot)))
	if err != nil {
		return err
	}
	out, err := in.take(ctx, descriptor)
	if err != nil {
		return err
	}
	if len(out) != 4 {
		return abiErrorf("toolsift_open returned %d payload bytes, want 4", len(out))
	}
	handle := binary.LittleEndian.Uint32(out)
	if handle == 0 {
		return abiErrorf("toolsift_open returned handle 0")
	}
	in.gen, in.handle, in.snapshotAt = g, handle, ptr
	in.opened.Store(uint64(in.mem.Size()))
	return nil
}

// snapshotView returns the snapshot as opened in the instance's memory,
// kept mapped until done is called, or nil when the memory is not a mapping
// (or is released). The module decodes the snapshot in place and never
// writes to it, so it may be read while the instance is in a call on
// another goroutine.
func (in *instance) snapshotView() (snapshot []byte, done func()) {
	if in.gen == nil || in.snapshotAt == 0 {
		return nil, nil
	}
	return in.mapped.view(uint64(in.snapshotAt), uint64(in.gen.size))
}

func (in *instance) info(ctx context.Context) ([]byte, error) {
	descriptor, err := in.call(ctx, fnInfo, uint64(in.handle))
	if err != nil {
		return nil, err
	}
	return in.take(ctx, descriptor)
}

func (in *instance) search(ctx context.Context, request []byte, flags uint32) ([]byte, error) {
	return in.invoke(ctx, fnSearch, []uint64{uint64(in.handle)}, [][]byte{request}, uint64(flags))
}

func (in *instance) inspect(ctx context.Context, request []byte) ([]byte, error) {
	return in.invoke(ctx, fnInspect, []uint64{uint64(in.handle)}, [][]byte{request})
}

func (in *instance) version(ctx context.Context) ([]byte, error) {
	descriptor, err := in.call(ctx, fnVersion)
	if err != nil {
		return nil, err
	}
	return in.take(ctx, descriptor)
}

func (in *instance) buildSnapshot(ctx context.Context, format string, catalog []byte) ([]byte, error) {
	return in.invoke(ctx, fnBuildSnapshot, nil, [][]byte{[]byte(format), catalog})
}
