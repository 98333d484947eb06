package hostapi

import (
	"context"
	"crypto/sha256"
	"sync"

	"github.com/tetratelabs/wazero"
)

// One-shot calls (BuildSnapshot, ModuleVersion) each run in a fresh
// instance, but not in a fresh runtime: making a runtime decodes and
// validates the whole module again even when its machine code is in the
// compilation cache (wazero validates before it looks there): in a CPU
// profile of 20 ModuleVersion calls, 2.5 s of 3.4 s were Module.Validate,
// and BenchmarkModuleVersion went from 106 ms a call to 17 ms with this
// change, about a tenth of a 3,608-tool build saved on wazero. So the
// runtime of a configuration is made once and kept for the process's life;
// what it holds is the compiled module, which the compilation cache holds
// anyway. An instance shares nothing with another but the compiled code, and
// each call closes its own.

// oneShotKey is everything in a config that shapes a runtime.
type oneShotKey struct {
	module        [sha256.Size]byte
	memoryPages   uint32
	interruptible bool
	cache         wazero.CompilationCache
}

// maxOneShotRuntimes bounds the kept runtimes: a process that builds with
// many memory limits or modules gets runtimes of its own beyond these.
const maxOneShotRuntimes = 8

var oneShotRuntimes struct {
	sync.Mutex
	byKey map[oneShotKey]*moduleRuntime
}

// oneShotRuntime returns the runtime a one-shot call with cfg runs in, and
// release, which the call runs once its instance is closed: it closes the
// runtime when it is not kept. Not kept: a runtime that failed to compile,
// the configurations of tests (which alter instances or observe calls), and
// one with a cache error handler, which is told of a failing cache only when
// a runtime is made.
func oneShotRuntime(ctx context.Context, cfg *config) (mr *moduleRuntime, release func(), err error) {
	if cfg.moduleConfig != nil || cfg.wasiCallObserver != nil || cfg.onCacheError != nil {
		return ownRuntime(ctx, cfg)
	}
	key := oneShotKey{module: sha256.Sum256(cfg.moduleBytes()), memoryPages: cfg.memoryLimitPages(),
		interruptible: cfg.interruptible, cache: cfg.compilationCache()}
	oneShotRuntimes.Lock()
	defer oneShotRuntimes.Unlock()
	if mr := oneShotRuntimes.byKey[key]; mr != nil {
		return mr, func() {}, nil
	}
	if len(oneShotRuntimes.byKey) >= maxOneShotRuntimes {
		return ownRuntime(ctx, cfg)
	}
	mr, err = newModuleRuntime(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if oneShotRuntimes.byKey == nil {
		oneShotRuntimes.byKey = map[oneShotKey]*moduleRuntime{}
	}
	oneShotRuntimes.byKey[key] = mr
	return mr, func() {}, nil
}

// ownRuntime is a runtime for one call, closed by release.
func ownRuntime(ctx context.Context, cfg *config) (*moduleRuntime, func(), error) {
	mr, err := newModuleRuntime(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return mr, func() { _ = mr.close(ctx) }, nil
}
