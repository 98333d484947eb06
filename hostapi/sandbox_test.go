package hostapi

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	experimentalsock "github.com/tetratelabs/wazero/experimental/sock"

	"github.com/toolsift/toolsift/internal/fixtures"
)

// TestModuleImports pins what the module may ask of its host: WASI preview 1
// only, nothing that names a path or a socket, and exactly the functions
// below. The fd_* functions besides fd_write come with Go's os package
// (which fmt pulls in); they are inert here because hostapi gives the module
// no preopened directory (fd_prestat_get finds none, so there is nothing to
// open, read or seek) and stdin is empty.
func TestModuleImports(t *testing.T) {
	ctx := context.Background()
	mr, err := newModuleRuntime(ctx, newConfig(nil))
	require.NoError(t, err)
	defer mr.close(ctx)

	want := []string{
		"args_get", "args_sizes_get", "clock_time_get", "environ_get", "environ_sizes_get",
		"fd_close", "fd_fdstat_get", "fd_fdstat_set_flags", "fd_filestat_get", "fd_prestat_dir_name",
		"fd_prestat_get", "fd_read", "fd_seek", "fd_write",
		"poll_oneoff", "proc_exit", "random_get", "sched_yield",
	}
	// fd_* functions that would matter only with a preopened directory or a
	// real stdin, neither of which hostapi ever configures.
	inertFD := map[string]bool{
		"fd_write": true, "fd_close": true, "fd_fdstat_get": true, "fd_fdstat_set_flags": true,
		"fd_filestat_get": true, "fd_prestat_dir_name": true, "fd_prestat_get": true, "fd_read": true, "fd_seek": true,
	}
	seen := map[string]bool{}
	var lines []string
	for _, def := range mr.compiled.ImportedFunctions() {
		module, name, _ := def.Import()
		lines = append(lines, fmt.Sprintf("%s.%s%v->%v", module, name, def.ParamTypes(), def.ResultTypes()))
		require.Equal(t, "wasi_snapshot_preview1", module, "import %s.%s", module, name)
		require.False(t, strings.HasPrefix(name, "path_"), "the module imports %s", name)
		require.False(t, strings.HasPrefix(name, "sock_"), "the module imports %s", name)
		if strings.HasPrefix(name, "fd_") {
			require.True(t, inertFD[name], "the module imports %s", name)
		}
		seen[name] = true
	}
	got := make([]string, 0, len(seen))
	for name := range seen {
		got = append(got, name)
	}
	sort.Strings(got)
	require.Equal(t, want, got, "imports changed:\n%s", strings.Join(lines, "\n"))

	exports := mr.compiled.ExportedFunctions()
	for _, e := range []string{"_initialize", "toolsift_alloc", "toolsift_free", "toolsift_version", "toolsift_open", "toolsift_open_owned", "toolsift_set_memory_limit",
		"toolsift_close", "toolsift_info", "toolsift_search", "toolsift_inspect", "toolsift_build_snapshot"} {
		require.Contains(t, exports, e)
	}
	require.NotContains(t, exports, "_start", "the module must be a reactor")

	// Instances are anonymous, so any number coexist in one runtime.
	in, err := mr.instantiate(ctx)
	require.NoError(t, err)
	require.Equal(t, "", in.mod.Name())
	in.close()
}

// fakeClocks returns a module configuration with its own randomness and
// clocks, unlike wazero's deterministic defaults.
func fakeClocks(seed uint64, step int64) func(wazero.ModuleConfig) wazero.ModuleConfig {
	return func(mc wazero.ModuleConfig) wazero.ModuleConfig {
		var seedBytes [32]byte
		seedBytes[0] = byte(seed)
		var now atomic.Int64
		now.Store(int64(seed) * 1e15)
		return mc.
			WithRandSource(rand.NewChaCha8(seedBytes)).
			WithWalltime(func() (int64, int32) {
				n := now.Add(step)
				return n / 1e9, int32(n % 1e9)
			}, 1).
			WithNanotime(func() int64 { return now.Add(step) }, 1)
	}
}

// TestDeterministicAcrossClocksAndRandomness: engines whose instances see
// different random bytes and different clocks answer with the same bytes
// (Go's map order, for one, is seeded from random_get).
func TestDeterministicAcrossClocksAndRandomness(t *testing.T) {
	ctx := context.Background()
	snap := snapshotDWS(t)
	engines := []*Engine{
		openSnapshot(t, snap, WithMaxInstances(1)), // wazero's defaults
		openSnapshot(t, snap, WithMaxInstances(1), withModuleConfig(fakeClocks(7, 3_000_001))),
		openSnapshot(t, snap, WithMaxInstances(1), withModuleConfig(fakeClocks(200, 17))),
		openSnapshot(t, snap, WithMaxInstances(1), withModuleConfig(func(mc wazero.ModuleConfig) wazero.ModuleConfig {
			return mc.WithRandSource(cryptorand.Reader).WithSysWalltime().WithSysNanotime().WithSysNanosleep()
		})),
	}
	requests := mixedRequests(t)
	info := engines[0].Info()
	compared := 0
	for i, request := range requests {
		var first answer
		for k, e := range engines {
			got := wasmAnswer(e.Search(ctx, request))
			require.False(t, got.failed(), got.Other)
			if k == 0 {
				first = got
				continue
			}
			require.Equal(t, first, got, "engine %d, request %d %s", k, i, request)
			explained := wasmAnswer(e.SearchExplain(ctx, request))
			require.Equal(t, wasmAnswer(engines[0].SearchExplain(ctx, request)), explained)
			compared++
		}
	}
	for _, path := range []string{"chat.query_msg_read_status", "chat", "chat message", "drive.download_file"} {
		request := []byte(fmt.Sprintf(`{"version":"schema-inspect.v1","canonical_path":%q,"expected_source_hash":%q,"expected_surface_hash":%q}`,
			path, info.SourceHash, info.SurfaceHash))
		want := wasmAnswer(engines[0].Inspect(ctx, request))
		for _, e := range engines[1:] {
			require.Equal(t, want, wasmAnswer(e.Inspect(ctx, request)))
			compared++
		}
	}
	t.Logf("%d answers compared across 4 clock/randomness configurations: all identical", compared)

	// Building a snapshot does not depend on them either.
	snap2, err := BuildSnapshot(ctx, "dws", fixtures.DWSCatalog, withModuleConfig(fakeClocks(99, 1_000_003)))
	require.NoError(t, err)
	require.True(t, bytes.Equal(snap, snap2), "snapshot bytes depend on the clock or randomness")
}

// TestLinearMemory reports how much linear memory an instance uses.
func TestLinearMemory(t *testing.T) {
	ctx := context.Background()
	e := openDWS(t, WithMaxInstances(1))
	e.mu.Lock()
	afterOpen := e.gen.idle[0].mem.Size()
	e.mu.Unlock()
	_, err := e.Search(ctx, []byte(workflowQuery))
	require.NoError(t, err)
	e.mu.Lock()
	afterSearch := e.gen.idle[0].mem.Size()
	e.mu.Unlock()

	mr, err := newModuleRuntime(ctx, newConfig(nil))
	require.NoError(t, err)
	defer mr.close(ctx)
	in, err := mr.instantiate(ctx)
	require.NoError(t, err)
	fresh := in.mem.Size()
	_, err = in.buildSnapshot(ctx, "dws", fixtures.DWSCatalog)
	require.NoError(t, err)
	t.Logf("linear memory: fresh instance %.1f MiB; DWS snapshot open %.1f MiB; after a workflow search %.1f MiB; after building the DWS snapshot %.1f MiB",
		mib(fresh), mib(afterOpen), mib(afterSearch), mib(in.mem.Size()))
	require.Less(t, afterOpen, uint32(defaultMemoryLimit))
}

func mib(n uint32) float64 { return float64(n) / (1 << 20) }

// sandboxReport is what testdata/sandboxprobe reports from inside a module.
type sandboxReport struct {
	ArgsCount     uint32            `json:"args_count"`
	EnvironCount  uint32            `json:"environ_count"`
	Args          []string          `json:"args"`
	Environ       []string          `json:"environ"`
	Preopens      []uint32          `json:"preopens"`
	OpenFDs       []uint32          `json:"open_fds"`
	SocketFDs     []uint32          `json:"socket_fds"`
	PrestatErrno3 uint32            `json:"prestat_errno_3"`
	FdstatErrno3  uint32            `json:"fdstat_errno_3"`
	Opened        []string          `json:"opened"`
	OpenErrors    map[string]string `json:"open_errors"`
	StdinBytes    int               `json:"stdin_bytes"`
	StdinError    string            `json:"stdin_error"`
}

// wasiErrnoBadf is WASI's EBADF ("no such file descriptor").
const wasiErrnoBadf = 8

// buildSandboxProbe compiles testdata/sandboxprobe for wasip1 (a few seconds
// the first time, then from the build cache).
func buildSandboxProbe(t *testing.T) []byte {
	t.Helper()
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the sandbox probe is built with the go command")
	out := filepath.Join(t.TempDir(), "sandboxprobe.wasm")
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, "./testdata/sandboxprobe")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOFLAGS=", "GOWASM=")
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./testdata/sandboxprobe:\n%s", output)
	probe, err := os.ReadFile(out)
	require.NoError(t, err)
	return probe
}

// runSandboxProbe runs the probe as hostapi runs the toolsift module: the
// same runtime (newModuleRuntime: WASI, memory limit) and the same module
// configuration (sandboxConfig, through instantiateSandboxed).
func runSandboxProbe(ctx context.Context, t *testing.T, probe []byte, opts ...Option) sandboxReport {
	t.Helper()
	mr, err := newModuleRuntime(ctx, newConfig(append([]Option{WithModule(probe), WithCompilationCache(nil)}, opts...)))
	require.NoError(t, err)
	defer mr.close(ctx)
	mod, stderr, mapped, err := mr.instantiateSandboxed(ctx)
	require.NoError(t, err)
	defer mapped.release() // no call runs by then, and nothing reads the memory
	fn := mod.ExportedFunction("sandbox_report")
	require.NotNil(t, fn, "the probe exports sandbox_report")
	results, err := fn.Call(ctx)
	require.NoError(t, err, "probe stderr: %s", stderr)
	ptr, n := uint32(results[0]>>32), uint32(results[0])
	data, ok := mod.Memory().Read(ptr, n)
	require.True(t, ok, "report [%#x, +%d) outside memory", ptr, n)
	var report sandboxReport
	require.NoError(t, json.Unmarshal(data, &report), "%s", data)
	t.Logf("probe report: %s", data)
	return report
}

// TestSandboxSeenFromInside: a module run with the host's configuration finds
// no arguments, no environment variables, no preopened directory, no other
// open descriptor (a socket handed to a WASI module is one), cannot open any
// path, and reads nothing from stdin. The second half gives the probe each of
// those things through the same code path, to show that it would see them.
func TestSandboxSeenFromInside(t *testing.T) {
	ctx := context.Background()
	probe := buildSandboxProbe(t)

	got := runSandboxProbe(ctx, t, probe)
	require.Zero(t, got.ArgsCount, "arguments")
	require.Zero(t, got.EnvironCount, "environment variables")
	require.Empty(t, got.Args, "os.Args")
	require.Empty(t, got.Environ, "os.Environ()")
	require.Empty(t, got.Preopens, "preopened descriptors")
	require.Empty(t, got.OpenFDs, "open descriptors above stderr")
	require.Equal(t, uint32(wasiErrnoBadf), got.PrestatErrno3, "fd_prestat_get(3)")
	require.Equal(t, uint32(wasiErrnoBadf), got.FdstatErrno3, "fd_fdstat_get(3)")
	require.Empty(t, got.Opened, "paths the module could open")
	require.Len(t, got.OpenErrors, 5)
	require.Zero(t, got.StdinBytes)
	require.Empty(t, got.StdinError)

	// The same probe, given each thing the host withholds.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "passwd"), []byte("x"), 0o600))
	given := withModuleConfig(func(mc wazero.ModuleConfig) wazero.ModuleConfig {
		return mc.WithArgs("toolsift", "--flag").
			WithEnv("HOME", "/root").
			WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount(dir, "/etc")).
			WithStdin(strings.NewReader("input"))
	})
	withListener := experimentalsock.WithConfig(ctx, experimentalsock.NewConfig().WithTCPListener("127.0.0.1", 0))
	seen := runSandboxProbe(withListener, t, probe, given)
	require.Equal(t, uint32(2), seen.ArgsCount)
	require.Equal(t, []string{"toolsift", "--flag"}, seen.Args)
	require.Equal(t, uint32(1), seen.EnvironCount)
	require.Equal(t, []string{"HOME=/root"}, seen.Environ)
	require.Equal(t, []uint32{3, 4}, seen.Preopens, "the directory and the socket")
	require.Equal(t, []uint32{3, 4}, seen.OpenFDs, "the directory and the socket")
	require.Equal(t, []uint32{4}, seen.SocketFDs, "the socket")
	require.Zero(t, seen.PrestatErrno3)
	require.Contains(t, seen.Opened, "/etc/passwd")
	require.Equal(t, len("input"), seen.StdinBytes)
}
