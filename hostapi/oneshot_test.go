package hostapi

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestOneShotRuntimeIsKeptPerConfiguration: one-shot calls of one
// configuration share a runtime, a configuration that shapes a runtime
// differently gets its own, and one of a test hook is made for the call and
// closed by its release.
func TestOneShotRuntimeIsKeptPerConfiguration(t *testing.T) {
	ctx := context.Background()
	runtimeOf := func(opts ...Option) (*moduleRuntime, func()) {
		mr, release, err := oneShotRuntime(ctx, newConfig(opts))
		require.NoError(t, err)
		return mr, release
	}
	first, release := runtimeOf()
	release()
	again, release := runtimeOf()
	release()
	require.Same(t, first, again, "the same configuration made a second runtime")
	other, release := runtimeOf(WithMemoryLimit(256 << 20))
	release()
	require.NotSame(t, first, other, "another memory limit shares a runtime")
	_, err := first.rt.InstantiateModule(ctx, first.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	require.NoError(t, err, "a kept runtime was closed by its release")

	own, release := runtimeOf(withModuleConfig(func(c wazero.ModuleConfig) wazero.ModuleConfig { return c }))
	require.NotSame(t, first, own)
	release()
	_, err = own.rt.InstantiateModule(ctx, own.compiled, wazero.NewModuleConfig().WithName(""))
	require.Error(t, err, "a test configuration's runtime outlived its release")
}

// TestConcurrentBuildsShareARuntime: builds at the same time, each in an
// instance of its own of the one kept runtime, give the same bytes as a
// build alone.
func TestConcurrentBuildsShareARuntime(t *testing.T) {
	ctx := context.Background()
	want, err := BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP)
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([][]byte, 4)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = BuildSnapshot(ctx, "mcp", fixtures.GitHubSlackMCP)
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		require.True(t, bytes.Equal(want, got[i]), "build %d differs", i)
	}
}
