package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/hostapi"
)

// A build that fails for a reason no server explains (no real server can
// cause one once each is limited and imported alone, so the failure is
// injected) refuses every answer with catalog_stale until a build
// succeeds: the old catalog no longer describes the servers.
func TestStaleCatalogRefusesEverything(t *testing.T) {
	cfg := &Config{Servers: []ServerConfig{{Name: "a", Command: os.Args[0], Env: map[string]string{"TOOLSIFT_GATEWAY_TEST_SERVER": "steady"}}}}
	var host []hostapi.Option
	if dir, err := os.UserCacheDir(); err == nil { // the compiled module, as the other tests share it
		if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "toolsift", "wazero")); err == nil {
			defer cache.Close(context.Background())
			host = append(host, hostapi.WithCompilationCache(cache))
		}
	}
	g := New(cfg, Options{Timeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), HostOptions: host})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	require.NoError(t, g.Start(ctx))
	defer g.Close()
	gen, werr := g.serving()
	require.Nil(t, werr)

	g.buildMu.Lock()
	g.buildFault = func() error { return errors.New("injected") }
	g.imported = nil // as if the server's list had changed
	g.buildMu.Unlock()
	g.rebuild(ctx)
	_, werr = g.serving()
	require.NotNil(t, werr)
	require.Equal(t, "catalog_stale", werr.Reason)
	_, _, _, werr = g.resolve(ctx, "a.echo", gen.sourceHash, gen.surfaceHash)
	require.Equal(t, "catalog_stale", werr.Reason)

	g.buildMu.Lock()
	g.buildFault = nil
	g.buildMu.Unlock()
	g.rebuild(ctx)
	_, r, _, werr := g.resolve(ctx, "a.echo", gen.sourceHash, gen.surfaceHash)
	require.Nil(t, werr)
	require.Equal(t, "echo", r.name)
}
