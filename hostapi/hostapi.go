// Package hostapi is the Go front door to toolsift: it builds and opens
// snapshots, answers search, inspect and provider calls, and swaps the
// snapshot served. By default it runs the toolsift WebAssembly module
// (wasm/ABI.md) on wazero, so that a Go program gets exactly the bytes every
// other host (Node, browsers, Python) gets from the same module and
// snapshot; WithEngine(NativeEngine) answers with the Go core the module is
// compiled from, in the process (native.go; the catalog view in catalog.go,
// the name rules in text.go, lint in lint.go), with the same bytes. Errors the engine answers are *wire.Error.
//
// An Engine serves one snapshot at a time from a bounded pool of module
// instances; Swap replaces the snapshot atomically. The module runs sandboxed:
// no file system, environment, arguments, stdin or network; its clocks and
// randomness are wazero's deterministic defaults (answers do not depend on
// them either way).
package hostapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolsift/toolsift/core/wire"
)

// Info describes the snapshot an Engine is serving.
type Info struct {
	Engine        EngineKind // what answers: ModuleEngine or NativeEngine
	Profile       string     // ranking profile, e.g. "dws-v1"
	Format        string     // importer the catalog came from, e.g. "dws"
	SourceHash    string     // catalog.source_hash of every response
	SurfaceHash   string     // catalog.surface_hash of every response
	ToolCount     int
	ProductCount  int
	SnapshotBytes int // size of the snapshot bytes
}

// Engine answers tool-search.v1 and schema-inspect.v1 requests through the
// module. It is safe for concurrent use: each call runs on an instance of
// its own, taken from a pool bounded by WithMaxInstances (an instance is
// single-threaded and never shared by two calls).
//
// Every call takes a context. A context that is done before the call starts
// costs nothing; one that ends while the call waits for an instance, or while
// the module runs, makes the call return an error wrapping ctx.Err()
// (errors.Is(err, context.DeadlineExceeded) holds). A module still running
// when the context ends is stopped at its next WASI call (the Go runtime in
// it reads the clock often while it works; see WithInterruptibleCalls for
// how often), the call returns then, and the instance is replaced; a call
// that finishes first returns the context's error and keeps its instance.
// With WithInterruptibleCalls the module is stopped within a loop iteration
// instead, at a cost on every call. A trap (the module running out of its
// memory limit, for one) likewise fails only that call and discards its
// instance; later calls get a fresh instance.
type Engine struct {
	// native answers every call instead of the module when the engine was
	// opened WithEngine(NativeEngine) (native.go); the fields below are then
	// unused.
	native *nativeServer

	mr    *moduleRuntime
	slots chan struct{} // one token per instance in use (busy), capacity MaxInstances
	done  chan struct{} // closed by Close

	mu     sync.Mutex
	gen    *generation // the snapshot serving now; never nil after Open
	closed bool

	live    atomic.Int64 // instances alive (idle or busy), for tests
	created atomic.Int64 // instances ever created, for tests
}

// generation is one opened snapshot: every instance opened with it, and the
// Info read when it was opened.
//
// The host keeps no copy of the snapshot where it can avoid one: every
// instance holds the snapshot in its linear memory as it was opened (the
// module decodes it in place and never writes to it), and a new instance
// copies it from a live one (Engine.lend). At 100,000 tools that is 230 MiB
// the host no longer holds. Where an instance's memory is not one mapping
// (memory_linux.go: not Linux) it cannot lend, and the host keeps its copy
// as before; it also makes one from the last instance it discards while the
// generation still serves, so that the pool can grow again.
type generation struct {
	size int  // the snapshot's length in bytes
	info Info // read once its first instance opened it
	// Guarded by Engine.mu:
	idle    []*instance // only the current generation keeps any
	holders []*instance // live instances that can lend the snapshot
	copy    []byte      // the host's copy, or nil while holders lend

	view catalogView // Engine.Catalog's, made on first use (catalog.go)
}

// Open compiles the module (or reuses the compiled code; see
// WithCompilationCache), instantiates one instance, opens snapshot in it and
// returns an engine ready to serve. It fails with *wire.Error (reason
// invalid_snapshot or unsupported_snapshot_version) for a bad snapshot.
//
// Cost: the first compile of the module (about a second, once per process
// with the default cache), an instantiation and the snapshot's open in the
// module (decoding the catalog and index, no re-tokenising: about 21 ms for
// the DWS catalog's 5 MB snapshot, BenchmarkWasmOpenSnapshot). snapshot is
// copied into the instance and not kept: the caller may reuse it. Every
// instance holds the opened snapshot in its linear memory (about 20 MiB for
// DWS after the open,
// growing with use as the module's Go heap grows; a new instance reserves at
// once what the last one had after its open); further instances are created
// on demand, each paying an instantiation and an open of the snapshot copied
// from a live instance's memory. On Linux the host keeps no copy of its own
// (see generation); elsewhere it keeps one on the Go heap.
//
// With WithEngine(NativeEngine) the snapshot is opened by the Go core in
// this process instead: no compile and no instance; one copy of the body,
// shared by every call, and every call runs on its caller's goroutine.
func Open(ctx context.Context, snapshot []byte, opts ...Option) (*Engine, error) {
	if ctx.Err() != nil {
		return nil, finish(ctx, "open", nil, "")
	}
	cfg := newConfig(opts)
	if cfg.engine == NativeEngine {
		n, err := openNative(ctx, snapshot)
		if err != nil {
			return nil, err
		}
		return &Engine{native: n}, nil
	}
	mr, err := newModuleRuntime(ctx, cfg)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		mr:    mr,
		slots: make(chan struct{}, cfg.maxInstances),
		done:  make(chan struct{}),
	}
	g, in, err := e.newGeneration(ctx, snapshot)
	if err != nil {
		_ = mr.close(ctx)
		return nil, err
	}
	g.idle = append(g.idle, in)
	e.gen = g
	return e, nil
}

// Search answers one tool-search.v1 request (raw JSON bytes) with the exact
// compact response bytes, or a *wire.Error the module answered. Cost: an idle
// instance (or, if none is idle and fewer than MaxInstances exist, a new one:
// an instantiation plus a snapshot open, which proceeds even if the caller's
// context ends first so the pool still fills), a copy of the request into
// the instance and of the response out of it, and the search itself (on
// DWS: a median of 105 µs over the 1,149 intent queries of make bench, and
// 261 µs for BenchmarkWasmSearchChineseQuery's one query; docs/BENCHMARKS.md
// says when and how each was measured). A request over
// the module's max_request_bytes (64 KiB; toolsift_limits) is refused by the
// host with the module's own validation error (request_too_large) before
// anything is copied in.
func (e *Engine) Search(ctx context.Context, request []byte) ([]byte, error) {
	return e.search(ctx, request, 0)
}

// SearchExplain is Search with a score_breakdown on every candidate (for
// tuning ranking, never for agents). Same cost as Search.
func (e *Engine) SearchExplain(ctx context.Context, request []byte) ([]byte, error) {
	return e.search(ctx, request, 1)
}

func (e *Engine) search(ctx context.Context, request []byte, flags uint32) ([]byte, error) {
	if err := e.mr.refuseOversized(request, "search_request_too_large"); err != nil {
		return nil, err
	}
	if e.native != nil {
		return e.native.search(ctx, request, flags&1 != 0)
	}
	return e.run(ctx, "search", func(in *instance) ([]byte, error) {
		return in.search(ctx, request, flags)
	})
}

// Inspect answers one schema-inspect.v1 request with the exact pretty
// response bytes, or a *wire.Error (for example discovery / catalog_changed when
// the expected hashes are not the snapshot's). Same cost as Search.
func (e *Engine) Inspect(ctx context.Context, request []byte) ([]byte, error) {
	if err := e.mr.refuseOversized(request, "inspect_request_too_large"); err != nil {
		return nil, err
	}
	if e.native != nil {
		return e.native.inspect(ctx, request)
	}
	return e.run(ctx, "inspect", func(in *instance) ([]byte, error) {
		return in.inspect(ctx, request)
	})
}

// Info describes the snapshot serving now. It was read from the module when
// the snapshot was opened; the call costs a mutex.
func (e *Engine) Info() Info {
	if e.native != nil {
		return e.native.info()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gen.info
}

// Swap replaces the snapshot. It first builds a new instance with the new
// snapshot and validates it; only if that succeeds does it switch, atomically:
// calls that start afterwards are answered from the new snapshot, calls in
// flight finish on the old one (every response comes entirely from one
// snapshot). Idle instances of the old snapshot are closed at once, busy ones
// when their call returns. If the new snapshot is refused, Swap returns the
// error (a *wire.Error for a bad snapshot) and the old snapshot keeps serving,
// unchanged.
//
// Cost: one instance slot while building (Swap waits for one like a call
// does), an instantiation and an open of the new snapshot (copied into the
// instance, not kept, as with Open).
func (e *Engine) Swap(ctx context.Context, snapshot []byte) error {
	if e.native != nil {
		return e.native.swap(ctx, snapshot)
	}
	if err := e.acquireSlot(ctx, "swap"); err != nil {
		return err
	}
	defer e.releaseSlot()
	g, in, err := e.newGeneration(ctx, snapshot)
	if err != nil {
		return err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.discard(in)
		return ErrClosed
	}
	old := e.gen
	retired := old.idle
	old.idle = nil
	g.idle = append(g.idle, in)
	e.gen = g
	e.mu.Unlock()
	for _, in := range retired {
		e.discard(in)
	}
	return nil
}

// Close closes every instance and the runtime. Calls in flight are
// terminated and fail with ErrClosed; later calls fail with ErrClosed. Close
// is idempotent. It does not close a compilation cache given with
// WithCompilationCache.
func (e *Engine) Close(ctx context.Context) error {
	if e.native != nil {
		e.native.close()
		return nil
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.done)
	idle := e.gen.idle
	e.gen.idle = nil
	e.mu.Unlock()
	for _, in := range idle {
		e.discard(in)
	}
	return e.mr.close(ctx)
}

// BuildSnapshot builds snapshot bytes from a catalog in a fresh instance
// (toolsift_build_snapshot), so that a host needs no Go toolchain to make one.
// format names the importer: "dws" takes the DWS catalog dump as a gzip'd tar
// or as the JSON bundle described in wasm/ABI.md. A refused catalog is a
// *wire.Error. Cost: the module compile (unless cached), an instantiation and the
// import, tokenising and indexing of the whole catalog in wasm (for DWS:
// about 4 s, or 20 s with WithInterruptibleCalls, and a linear memory near
// 300 MiB); the instance and its memory are released afterwards. A context
// that ends first makes it return at once; the module stops at its next WASI
// call (measured on DWS: at most 0.8 s later) and is then released. Options
// other than WithMaxInstances apply.
//
// A catalog whose build needs more memory than the instance may have (see
// WithMemoryLimit) is a *wire.Error with Reason "catalog_too_large" naming the
// limit, not a trap. The catalog is copied into the instance whole; it has no
// size limit of the request kind (a catalog is much larger than a request):
// its bound is the memory limit, and one that does not fit is likewise
// catalog_too_large.
//
// With WithEngine(NativeEngine) the Go core builds it in this process: the
// same bytes (TestNativeBuildMatchesModule), several times faster and in a
// fraction of the memory (3,608 MCP tools: 0.17–0.21 s CPU against
// 0.72–0.98 s on wazero, docs/BENCHMARKS.md "Building a snapshot"), with no
// memory limit but the process's; a context that ends stops it at its next
// tool. Only the native build takes the import options (WithProfile,
// WithStrictImport, WithDefaultProduct; with ModuleEngine they are refused
// with unsupported_option) and reports its import (WithImportReport).
func BuildSnapshot(ctx context.Context, format string, catalog []byte, opts ...Option) ([]byte, error) {
	cfg := newConfig(opts)
	switch {
	case cfg.engine == NativeEngine:
		return buildNative(ctx, format, catalog, cfg)
	case cfg.importOptions():
		return nil, wire.Validation("unsupported_option", "the module's build takes no import options (profile, strict, product): build with WithEngine(NativeEngine)")
	}
	limit := uint64(cfg.memoryLimitPages()) * pageSize
	return oneShot(ctx, "build snapshot", opts, func(in *instance) ([]byte, error) {
		out, err := in.buildSnapshot(ctx, format, catalog)
		if err != nil && ranOutOfMemory(in.stderr.String()) {
			return nil, catalogTooLarge(len(catalog), limit)
		}
		return out, err
	})
}

// ranOutOfMemory reports whether the module's stderr holds the Go runtime's
// fatal error for an allocation the memory limit refused: the one way a
// build fails that the module cannot turn into an error result. The heap
// says "out of memory"; the runtime's own metadata (persistentalloc), which
// a larger build can exhaust first, says "cannot allocate memory".
func ranOutOfMemory(stderr string) bool {
	return strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory")
}

func catalogTooLarge(size int, limit uint64) *wire.Error {
	return &wire.Error{
		Category: "validation", Code: 3, Reason: "catalog_too_large",
		Message: fmt.Sprintf("building a snapshot of this catalog (%d bytes) needs more than the module's memory limit of %d MiB: "+
			"raise the limit (WithMemoryLimit; wasmhost --memory-limit) or build natively", size, limit>>20),
	}
}

// ModuleVersion returns the module's toolsift_version JSON:
// {"abi":1,"module":"toolsift","snapshot_format":N,"profiles":[…],"formats":[…]}.
// Cost: the module compile (unless cached) and one instantiation.
func ModuleVersion(ctx context.Context, opts ...Option) (string, error) {
	out, err := oneShot(ctx, "version", opts, func(in *instance) ([]byte, error) {
		return in.version(ctx)
	})
	return string(out), err
}

// abandonedCalls counts the one-shot calls whose caller has gone (its
// context ended) while the module still runs to its next WASI call; tests
// wait for them.
var abandonedCalls sync.WaitGroup

// oneShot runs f on a fresh instance, closed afterwards, of the runtime of
// its configuration (oneShotRuntime).
func oneShot(ctx context.Context, op string, opts []Option, f func(*instance) ([]byte, error)) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, finish(ctx, op, nil, "")
	}
	mr, release, err := oneShotRuntime(ctx, newConfig(opts))
	if err != nil {
		if ctx.Err() != nil {
			return nil, finish(ctx, op, err, "")
		}
		return nil, err
	}
	in, err := mr.instantiate(ctx)
	if err != nil {
		release()
		return nil, err // already decorated by instantiate
	}
	out, err, pending := mr.runUntilDone(ctx, func() ([]byte, error) { return f(in) })
	if pending != nil {
		// The module stops at its next WASI call; its instance is closed
		// once it has.
		abandonedCalls.Add(1)
		go func() {
			defer abandonedCalls.Done()
			<-pending
			in.close()
			release()
		}()
		return nil, finish(ctx, op, nil, "")
	}
	in.close()
	release()
	if err = finish(ctx, op, err, in.stderr.String()); err != nil {
		return nil, err
	}
	return out, nil
}

// newGeneration instantiates an instance, opens snapshot in it and reads its
// Info.
func (e *Engine) newGeneration(ctx context.Context, snapshot []byte) (*generation, *instance, error) {
	if uint64(len(snapshot)) >= e.mr.cfg.memoryLimit {
		return nil, nil, &wire.Error{Category: "validation", Code: 3, Reason: "invalid_snapshot",
			Message: fmt.Sprintf("snapshot of %d bytes does not fit an instance's memory limit of %d bytes", len(snapshot), e.mr.cfg.memoryLimit)}
	}
	g := &generation{size: len(snapshot)}
	in, err := e.openInstance(ctx, g, snapshot)
	if err != nil {
		return nil, nil, err
	}
	raw, err := in.info(ctx)
	if err == nil {
		err = decodeInfo(raw, &g.info)
	}
	if err != nil {
		err = finish(ctx, "info", err, in.stderr.String())
		e.discard(in)
		return nil, nil, err
	}
	g.info.SnapshotBytes = g.size
	g.info.Engine = ModuleEngine
	return g, in, nil
}

func decodeInfo(raw []byte, info *Info) error {
	var doc struct {
		Profile      string `json:"profile"`
		Format       string `json:"format"`
		SourceHash   string `json:"source_hash"`
		SurfaceHash  string `json:"surface_hash"`
		ToolCount    int    `json:"tool_count"`
		ProductCount int    `json:"product_count"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return abiErrorf("toolsift_info payload: %v", err)
	}
	*info = Info{Profile: doc.Profile, Format: doc.Format, SourceHash: doc.SourceHash, SurfaceHash: doc.SurfaceHash,
		ToolCount: doc.ToolCount, ProductCount: doc.ProductCount}
	return nil
}

// newInstance instantiates the module and opens g's snapshot in it, copied
// from an instance that holds it or from the host's copy. A generation that
// has been swapped out may have neither by then (its last instance was
// discarded after the caller chose it); the instance then opens the current
// generation, which a call that had not yet started may take (see Swap).
func (e *Engine) newInstance(ctx context.Context, g *generation) (*instance, error) {
	snapshot, done, g := e.lend(g)
	if snapshot == nil {
		return nil, errNoSnapshot
	}
	defer done()
	return e.openInstance(ctx, g, snapshot)
}

// errNoSnapshot: the generation that serves has neither an instance that
// holds its snapshot nor a host copy. forget keeps that from happening; this
// is the refusal if it did, rather than opening something else.
var errNoSnapshot = errors.New("toolsift: no instance holds the snapshot and the host kept no copy of it")

// lend returns g's snapshot bytes for a new instance to copy, and a function
// to call once they are copied: the host's copy, or a view of a holder's
// memory kept mapped until then. Without either (g swapped out and its
// instances gone), the current generation's; nil if even that has none.
// e.mu is held only while one is chosen: the copy itself runs unlocked.
func (e *Engine) lend(g *generation) ([]byte, func(), *generation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if g.copy != nil {
			return g.copy, func() {}, g
		}
		for _, holder := range g.holders {
			if view, done := holder.snapshotView(); view != nil {
				return view, done, g
			}
		}
		if g == e.gen {
			return nil, nil, g // see errNoSnapshot
		}
		g = e.gen
	}
}

// openInstance instantiates the module, opens snapshot (g's bytes) in it and
// makes it one of g's holders, or, if its memory cannot lend (not a
// mapping), keeps a host copy of snapshot for g's later instances.
func (e *Engine) openInstance(ctx context.Context, g *generation, snapshot []byte) (*instance, error) {
	in, err := e.mr.instantiate(ctx)
	if err != nil {
		return nil, e.closedOr(err) // already decorated by instantiate
	}
	e.live.Add(1)
	e.created.Add(1)
	if err := in.open(ctx, g, snapshot); err != nil {
		err = finish(ctx, "open snapshot", err, in.stderr.String())
		e.discard(in)
		return nil, e.closedOr(err)
	}
	e.mu.Lock()
	switch {
	case in.mapped != nil:
		g.holders = append(g.holders, in)
	case g.copy == nil:
		g.copy = bytes.Clone(snapshot)
	}
	e.mu.Unlock()
	return in, nil
}

// discard closes an instance that will not serve again.
func (e *Engine) discard(in *instance) {
	e.mu.Lock()
	e.forget(in)
	e.mu.Unlock()
	in.close()
	e.live.Add(-1)
}

// forget removes a discarded instance from its generation's holders (e.mu
// held). If it was the last of the generation that serves now, the host
// copies the snapshot out of it first: a trap or an ended context discards
// instances, and the pool must still be able to grow. (Its memory is intact:
// the module never writes to the opened snapshot, and the instance that
// opens the copy checks its checksum again.) The copy is kept from then on.
func (e *Engine) forget(in *instance) {
	g := in.gen
	if g == nil {
		return
	}
	i := slices.Index(g.holders, in)
	if i < 0 {
		return
	}
	g.holders = slices.Delete(g.holders, i, i+1)
	if len(g.holders) > 0 || g.copy != nil || g != e.gen || e.closed {
		return
	}
	if view, done := in.snapshotView(); view != nil {
		g.copy = bytes.Clone(view)
		done()
	}
}

// closedOr turns a failure caused by Close into ErrClosed.
func (e *Engine) closedOr(err error) error {
	if err == nil {
		return nil
	}
	select {
	case <-e.done:
		var typed *wire.Error
		if !errors.As(err, &typed) {
			return ErrClosed
		}
	default:
	}
	return err
}

// run takes an instance of the current snapshot, runs f on it and gives the
// instance back (or discards it after a trap, an ABI violation or a done
// context).
func (e *Engine) run(ctx context.Context, op string, f func(*instance) ([]byte, error)) ([]byte, error) {
	in, err := e.acquire(ctx, op)
	if err != nil {
		return nil, err
	}
	// A context that ends while f runs stops the module at its next WASI
	// call (stopAtHostCall): f then fails with a *sys.ExitError and the
	// instance is discarded below. A search is short (under a millisecond on
	// DWS), so the caller gets its error soon either way, and no goroutine
	// is spent per call to return earlier.
	out, err := f(in)
	var typed *wire.Error
	healthy := err == nil || errors.As(err, &typed)
	// With interruptible calls, a done context may close the instance from
	// wazero's watcher even after f returned, so it is not reused then.
	if e.mr.cfg.interruptible && ctx.Err() != nil {
		healthy = false
	}
	err = e.closedOr(finish(ctx, op, err, in.stderr.String()))
	e.release(in, healthy)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// runUntilDone runs call (a long call into an instance with ctx, such as a
// snapshot build) and returns its outcome, or returns as soon as ctx is
// done, with a channel that is closed when call has returned: the module
// stops at its next WASI call (stopAtHostCall), which may come a good part of
// a second later in a build. A call with a context that can end runs on a
// goroutine of its own (which costs about 40 µs a call, measured on DWS
// searches; pool calls, which are short, do not use it); one that cannot
// (or, with WithInterruptibleCalls, whose module stops by itself at once)
// runs on the caller's.
func (m *moduleRuntime) runUntilDone(ctx context.Context, call func() ([]byte, error)) (out []byte, err error, pending <-chan struct{}) {
	if ctx.Done() == nil || m.cfg.interruptible {
		out, err = call()
		return out, err, nil
	}
	var callOut []byte
	var callErr error
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		callOut, callErr = call()
	}()
	select {
	case <-returned:
		return callOut, callErr, nil
	case <-ctx.Done():
		select {
		case <-returned: // finished just as the context ended
			return callOut, callErr, nil
		default:
			return nil, nil, returned
		}
	}
}

// acquireSlot waits for a free instance slot, the context or Close.
func (e *Engine) acquireSlot(ctx context.Context, op string) error {
	if ctx.Err() != nil {
		return finish(ctx, op, nil, "")
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return finish(ctx, op, nil, "")
	case <-e.done:
		return ErrClosed
	}
	select {
	case <-e.done:
		e.releaseSlot()
		return ErrClosed
	default:
	}
	// Calling into an instance with a done context closes it: give up first.
	if ctx.Err() != nil {
		e.releaseSlot()
		return finish(ctx, op, nil, "")
	}
	return nil
}

func (e *Engine) releaseSlot() { <-e.slots }

// acquire returns an instance of the current snapshot for the caller's
// exclusive use: an idle one, or a new one.
func (e *Engine) acquire(ctx context.Context, op string) (*instance, error) {
	if err := e.acquireSlot(ctx, op); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.releaseSlot()
		return nil, ErrClosed
	}
	g := e.gen
	for n := len(g.idle); n > 0; n = len(g.idle) {
		in := g.idle[n-1]
		g.idle[n-1] = nil
		g.idle = g.idle[:n-1]
		if !in.mod.IsClosed() {
			e.mu.Unlock()
			return in, nil
		}
		// Closed behind our back (WithInterruptibleCalls): drop it; its
		// mapping goes with its cleanup.
		e.forget(in)
		e.live.Add(-1)
	}
	e.mu.Unlock()
	return e.grow(ctx, op, g)
}

// grow creates an instance of g for a caller that holds a slot. The
// instance is built detached from the caller's context: if the caller gives
// up first, the instance still joins the pool (and the slot is freed), so a
// stream of calls with deadlines shorter than a snapshot open cannot keep the
// pool from ever filling.
func (e *Engine) grow(ctx context.Context, op string, g *generation) (*instance, error) {
	type result struct {
		in  *instance
		err error
	}
	ready := make(chan result) // unbuffered: a send succeeds only if the caller takes it
	abandoned := make(chan struct{})
	go func() {
		in, err := e.newInstance(context.WithoutCancel(ctx), g)
		select {
		case ready <- result{in, err}:
		case <-abandoned:
			if err != nil {
				e.releaseSlot()
				return
			}
			e.release(in, true)
		}
	}()
	select {
	case r := <-ready:
		if r.err != nil {
			e.releaseSlot()
			if ctx.Err() != nil {
				return nil, finish(ctx, op, r.err, "")
			}
			return nil, r.err // decorated by newInstance
		}
		return r.in, nil
	case <-ctx.Done():
		close(abandoned)
		return nil, finish(ctx, op, nil, "")
	case <-e.done:
		close(abandoned)
		return nil, ErrClosed
	}
}

// release gives an instance back to the pool if it is healthy and still of
// the current snapshot, else closes it.
func (e *Engine) release(in *instance, healthy bool) {
	e.mu.Lock()
	if healthy && !e.closed && in.gen == e.gen && !in.mod.IsClosed() {
		e.gen.idle = append(e.gen.idle, in)
		e.mu.Unlock()
	} else {
		e.mu.Unlock()
		e.discard(in)
	}
	e.releaseSlot()
}
