package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tetratelabs/wazero"

	"github.com/toolsift/toolsift/hostapi"
)

// What a rebuild costs when one server's tools change: that server's list
// imported alone (isolate.go), then the whole catalog assembled, built,
// routed and swapped into the engine (publish). The servers are not
// started: each has a synthetic listing of tools with descriptions, an
// input schema and annotations, and the first server's listing alternates
// between two versions, so that every iteration builds and swaps.
//
//	go test ./gateway -run '^$' -bench CatalogRebuild -count 5
func BenchmarkCatalogRebuild(b *testing.B) {
	for _, size := range []struct{ servers, tools int }{{3, 20}, {10, 200}} {
		b.Run(fmt.Sprintf("servers=%d/tools=%d", size.servers, size.tools), func(b *testing.B) {
			cfg := &Config{}
			for s := range size.servers {
				cfg.Servers = append(cfg.Servers, ServerConfig{Name: fmt.Sprintf("server%02d", s), Command: "unused"})
			}
			g := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), HostOptions: benchHostOptions(b)})
			defer g.Close()
			ctx := context.Background()
			parts := make([]*serverTools, size.servers)
			for s, d := range g.servers {
				p, err := importAlone(d, syntheticListing(b, s, size.tools, 0))
				if err != nil {
					b.Fatal(err)
				}
				parts[s] = p
			}
			versions := [2]*listing{syntheticListing(b, 0, size.tools, 1), syntheticListing(b, 0, size.tools, 2)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := importAlone(g.servers[0], versions[i%2])
				if err != nil {
					b.Fatal(err)
				}
				parts[0] = p
				if err := g.publish(ctx, parts, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if gen := g.current(); gen == nil || gen.toolCount != size.servers*size.tools {
				b.Fatalf("the catalog serving is not the one built: %v", gen)
			}
		})
	}
}

// benchHostOptions share the compiled module with the other tests.
func benchHostOptions(b *testing.B) []hostapi.Option {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "toolsift", "wazero"))
	if err != nil {
		return nil
	}
	b.Cleanup(func() { _ = cache.Close(context.Background()) })
	return []hostapi.Option{hostapi.WithCompilationCache(cache)}
}

// syntheticListing is server s's listing of n tools, as list makes one;
// version changes every description, so that two versions build two
// catalogs.
func syntheticListing(b *testing.B, s, n, version int) *listing {
	verbs := []string{"read", "list", "create", "update", "search", "delete", "send", "fetch"}
	nouns := []string{"file", "issue", "message", "record", "calendar event", "invoice", "user", "branch"}
	l := &listing{}
	whole := sha256.New()
	for i := range n {
		verb, noun := verbs[i%len(verbs)], nouns[(i/len(verbs)+s)%len(nouns)]
		t := &mcp.Tool{
			Name: fmt.Sprintf("%s_%s_%d", verb, noun[:4], i),
			Description: fmt.Sprintf("%s a %s of the workspace by its identifier, with the fields the caller names (v%d). "+
				"Returns the %s as JSON, or an error when it does not exist.", verb, noun, version, noun),
			InputSchema: map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{
				"id":     map[string]any{"type": "string", "description": "the " + noun + "'s identifier"},
				"fields": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "fields to return"},
				"limit":  map[string]any{"type": "integer", "description": "at most this many"},
			}},
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: verb == "read" || verb == "list" || verb == "search" || verb == "fetch"},
		}
		data, err := json.Marshal(t)
		if err != nil {
			b.Fatal(err)
		}
		sum := sha256.Sum256(data)
		l.tools = append(l.tools, t)
		l.hashes = append(l.hashes, "sha256:"+hex.EncodeToString(sum[:]))
		l.bytes += len(data)
		whole.Write(sum[:])
	}
	l.digest = "sha256:" + hex.EncodeToString(whole.Sum(nil))
	return l
}
