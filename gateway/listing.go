package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits per server and for the whole catalog. A server past a per-server
// limit is left out of the catalog on its own (and reported); the others
// keep serving. The defaults keep the assembled catalog far below the
// snapshot's own hard limits (131,072 tools in one product, 512 MiB), so
// that no server, hostile or merely large, can make a whole build fail.
const (
	// DefaultMaxServerTools is the most tools one server may list.
	DefaultMaxServerTools = 10_000
	// DefaultMaxServerBytes is the most bytes one server's tool list may
	// take, as JSON.
	DefaultMaxServerBytes = 16 << 20
	// DefaultCatalogBudget is the most bytes of tool lists the catalog
	// takes from all servers together; past it the largest server is left
	// out first. Measured against the module's default 512 MiB: 20,000
	// tools in 25 MB of lists (1.1 KB descriptions of varied words) open,
	// 40,000 in 49 MB do not. (A catalog the engine refuses for memory
	// leaves the largest server out too, so the budget is a fast path,
	// not the only guard.)
	DefaultCatalogBudget = 24 << 20
	// DefaultRelistCache is how long a server's listing is trusted before a
	// call to one of its tools (on an untrusted server) lists it again.
	DefaultRelistCache = 2 * time.Second
)

// listing is one tools/list of a server, with what the catalog and the call
// path need of it: each tool's definition hash (SHA-256 of the tool's JSON
// as the gateway's client decoded it), the list's size in bytes and a
// digest of the whole list. It is never edited once made.
type listing struct {
	tools  []*mcp.Tool
	hashes []string // hashes[i] is tools[i]'s definition hash
	bytes  int      // the tools' JSON, added up
	digest string   // SHA-256 over every tool's JSON in order
	at     time.Time
}

// hashOf is the definition hash of the tool named name ("" when the list
// has no such tool).
func (l *listing) hashOf(name string) string {
	if l == nil {
		return ""
	}
	for i, t := range l.tools {
		if t.Name == name {
			return l.hashes[i]
		}
	}
	return ""
}

// overLimitError is a server whose tool list passes a per-server limit: its
// tools are left out of the catalog, but its session is kept (restarting
// it would only list the same tools again).
type overLimitError struct{ what string }

func (e *overLimitError) Error() string { return e.what }

// list pages through tools/list, each page within the timeout, and stops
// reading as soon as the list passes the server's tool or byte limit (so
// an endless or huge list costs at most one page past the limit).
func (d *downstream) list(ctx context.Context, session *mcp.ClientSession) (*listing, error) {
	l := &listing{}
	whole := sha256.New()
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, fmt.Errorf("tools/list: more than %d pages", maxToolPages)
		}
		pageCtx, cancel := context.WithTimeout(ctx, d.timeout)
		result, err := session.ListTools(pageCtx, &mcp.ListToolsParams{Cursor: cursor})
		err = d.timedOut(pageCtx, err)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if len(l.tools)+len(result.Tools) > d.maxTools {
			return nil, &overLimitError{fmt.Sprintf("lists more than %d tools (the limit per server)", d.maxTools)}
		}
		for _, t := range result.Tools {
			// Hashes and the catalog see the cleaned text (sanitize.go), so a
			// re-list compares like with like.
			cleanTool(t)
			data, err := json.Marshal(t)
			if err != nil {
				return nil, fmt.Errorf("tools/list: tool %q: %w", t.Name, err)
			}
			if l.bytes += len(data); l.bytes > d.maxBytes {
				return nil, &overLimitError{fmt.Sprintf("lists more than %d bytes of tools (the limit per server)", d.maxBytes)}
			}
			sum := sha256.Sum256(data)
			l.tools = append(l.tools, t)
			l.hashes = append(l.hashes, "sha256:"+hex.EncodeToString(sum[:]))
			whole.Write(sum[:])
		}
		if result.NextCursor == "" {
			l.digest = "sha256:" + hex.EncodeToString(whole.Sum(nil))
			l.at = time.Now()
			return l, nil
		}
		cursor = result.NextCursor
	}
}

// fresh is the server's listing, listed again when the one it has is older
// than maxAge: the call path's check that a tool was not changed behind
// the gateway's back (a rug pull sends no list_changed). Concurrent callers
// share one listing. A listing that differs from the catalog's is stored
// and the catalog rebuilt, as a list_changed would.
func (d *downstream) fresh(ctx context.Context, maxAge time.Duration) (*listing, error) {
	d.relistMu.Lock()
	defer d.relistMu.Unlock()
	d.mu.Lock()
	session, l := d.session, d.listing
	d.mu.Unlock()
	if session == nil {
		return nil, &unavailableError{server: d.cfg.Name, status: "down"}
	}
	if l != nil && time.Since(l.at) < maxAge {
		return l, nil
	}
	next, err := d.list(ctx, session)
	if err != nil {
		return nil, err
	}
	d.store(session, next)
	return next, nil
}

// store makes next the listing of session (unless the session changed
// meanwhile) and tells the catalog builder when its tools differ.
func (d *downstream) store(session *mcp.ClientSession, next *listing) {
	d.mu.Lock()
	if d.session != session {
		d.mu.Unlock()
		return
	}
	same := d.listing != nil && d.listing.digest == next.digest
	d.listing, d.tools, d.excluded = next, next.tools, ""
	d.mu.Unlock()
	if !same {
		d.log.Info("tools changed", "tools", len(next.tools))
		d.changed()
	}
}
