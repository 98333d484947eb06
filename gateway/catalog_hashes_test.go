package gateway

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/hostapi"
)

// The catalog the gateway builds from the steady test server's tools is
// pinned: its hashes (what every answer carries and every call is checked
// against) and each tool's route (its name on the server, its definition
// hash and the effect the guard acts on). A change to how the catalog is
// assembled or built shows here first.
func TestCatalogHashesPinned(t *testing.T) {
	cfg := &Config{Servers: []ServerConfig{{Name: "a", Command: os.Args[0], Env: map[string]string{"TOOLSIFT_GATEWAY_TEST_SERVER": "steady"}}}}
	var host []hostapi.Option
	if dir, err := os.UserCacheDir(); err == nil {
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
	source, surface := g.Hashes()
	require.Equal(t, "sha256:7a84e38f717ab948cd0ffe369a74146cdd39d5e0c704dc166a858d42e229b2a4", source)
	require.Equal(t, "sha256:0eb1b2c263ef5dce513f3f0cdac55736b4ac899b3984e8f81a9b08f30a14b524", surface)
	require.Equal(t, source, gen.sourceHash)
	require.Equal(t, surface, gen.surfaceHash)
	var routes []string
	for path, r := range gen.routes {
		routes = append(routes, path+" "+r.name+" "+r.def.hash+" "+r.effect)
	}
	slices.Sort(routes)
	require.Equal(t, []string{
		"a.crash crash sha256:9b66a5aa2d4adc63abab2c9b5f4078efc52299c61bf8ee357d3171ce937bd48b write",
		"a.echo echo sha256:0633803d73779fff6b183c8a3dd0c29e2fa931afd6ace15f2081c74484429976 read",
		"a.freeze freeze sha256:5ea7cb328afea66009f4fcde7026fd2e1e8e66254bfbdf06bb58b4bc2c85cc5d write",
		"a.sleep sleep sha256:76d0f0c407ed2e3d7f010b8fd0b1e9eba71ee3c705f54cd7834c428cd522c1ba read",
		"a.wipe wipe sha256:664215c83fcbe54177bcf2540fc7a0012abbc29dc96703a23f3e9969c4bd2262 destructive",
	}, routes)
	require.Equal(t, 5, gen.toolCount)
}
