package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A build that fails for a reason no server explains (no real server can
// cause one once each is limited and imported alone, so the failure is
// injected) refuses every answer with catalog_stale until a build
// succeeds: the old catalog no longer describes the servers.
func TestStaleCatalogRefusesEverything(t *testing.T) {
	cfg := &Config{Servers: []ServerConfig{{Name: "a", Command: os.Args[0], Env: map[string]string{"TOOLSIFT_GATEWAY_TEST_SERVER": "steady"}}}}
	g := New(cfg, Options{Timeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
