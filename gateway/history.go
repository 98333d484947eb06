package gateway

import "time"

// Hashes that do not couple servers. The catalog hashes in a search answer
// cover every server together, so any server's change gives new ones. If
// inspect_tool and call_tool required the hashes serving now, one server
// changing a description every second would refuse every call to every
// other server. Instead they check what matters for the one tool: the
// gateway remembers the recent catalogs by their hashes, and a call under
// the hashes of one of them is accepted when the tool's definition (its
// SHA-256 as its server listed it, listing.go) and its server are the same
// there and now. A tool that changed, left, or joined since is refused
// with catalog_changed; hashes of no remembered catalog are refused too.

// historyLength and historyAge bound what is remembered: the last 64
// catalogs, none replaced more than 10 minutes ago. Each entry holds the routes alone
// (their definitions are shared with the catalogs serving), not the
// catalog's bytes.
const (
	historyLength = 64
	historyAge    = 10 * time.Minute
)

type remembered struct {
	source, surface string
	routes          map[string]route
	replaced        time.Time // zero while it serves
}

func (e remembered) expired(now time.Time) bool {
	return !e.replaced.IsZero() && now.Sub(e.replaced) >= historyAge
}

// history is guarded by the Gateway's genMu.
type history struct{ entries []remembered }

func (h *history) add(gen *generation) {
	now := time.Now()
	keep := h.entries[:0]
	for _, e := range h.entries {
		if e.replaced.IsZero() {
			e.replaced = now
		}
		if !e.expired(now) && !(e.source == gen.sourceHash && e.surface == gen.surfaceHash) {
			keep = append(keep, e)
		}
	}
	h.entries = append(keep, remembered{source: gen.sourceHash, surface: gen.surfaceHash, routes: gen.routes})
	if extra := len(h.entries) - historyLength; extra > 0 {
		clear(h.entries[:extra])
		h.entries = h.entries[extra:]
	}
}

// find is the routes of the catalog with these hashes, if remembered.
func (h *history) find(source, surface string) (map[string]route, bool) {
	now := time.Now()
	for i := len(h.entries) - 1; i >= 0; i-- {
		e := h.entries[i]
		if e.source == source && e.surface == surface && !e.expired(now) {
			return e.routes, true
		}
	}
	return nil, false
}
