package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"time"
)

// namesOf is every server name a config file lists, disabled ones
// included.
func namesOf(entries map[string]json.RawMessage) map[string]bool {
	names := make(map[string]bool, len(entries))
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		names[name] = true
	}
	return names
}

// SetPolicy swaps the per-client policy in atomically: a request already
// past its policy check finishes under the old one, every later one uses
// the new one. nil is DefaultPolicy.
func (g *Gateway) SetPolicy(p *Policy) {
	if p == nil {
		p = DefaultPolicy()
	}
	g.pol.current.Store(p)
}

// ReloadConfig reads the config file again and swaps its policy in, and
// its "auth" block into the HTTP endpoint's authentication (tokens, scopes,
// the issuer). A file that does not load (unreadable, not valid, a policy
// naming an unknown server, an auth block Authenticator.Reload refuses)
// changes nothing: the error says why, and the policy and checks serving
// stay. The servers are started once, at Start: a change to them is
// reported (changedServers) and takes effect on a restart.
func (g *Gateway) ReloadConfig(path string) (changedServers bool, err error) {
	cfg, err := LoadConfig(path)
	if err != nil {
		return false, err
	}
	switch a := g.authn.Load(); {
	case a != nil:
		if err := a.Reload(cfg.Auth); err != nil {
			return false, err
		}
	case g.http.Load() && cfg.Auth.Enabled():
		// Authentication wraps the endpoint when it is made: an endpoint
		// serving without it cannot start requiring it in place, and
		// saying "reloaded" would leave the operator believing it does.
		return false, configErrorf(`"auth": the HTTP endpoint serves without authentication; turning it on needs a restart`)
	}
	g.SetPolicy(cfg.Policy)
	running := make([]ServerConfig, len(g.servers))
	for i, d := range g.servers {
		running[i] = d.cfg
	}
	return !reflect.DeepEqual(running, cfg.Servers), nil
}

// WatchConfig reloads the config file at path (ReloadConfig) on every
// signal from reload (SIGHUP, wired by the caller) and whenever its bytes
// change, read every interval (a change of any kind — an edit, a rename
// over it, a Kubernetes ConfigMap's symlink swap — is caught by content,
// not by modification time; a file that stays bad is reported once).
// interval <= 0 watches signals only. It returns when ctx ends.
func (g *Gateway) WatchConfig(ctx context.Context, path string, interval time.Duration, reload <-chan os.Signal) {
	last := fileDigest(path)
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		var why string
		select {
		case <-ctx.Done():
			return
		case <-reload:
			why = "signal"
		case <-tick:
			why = "file changed"
			if now := fileDigest(path); now == last {
				continue
			}
		}
		last = fileDigest(path)
		changed, err := g.ReloadConfig(path)
		if err != nil {
			g.log.Error("config reload refused: the policy serving is kept", "trigger", why, "error", err.Error())
			continue
		}
		g.log.Info("config reloaded: policy swapped in", "trigger", why)
		if changed {
			g.log.Warn("config reload: the servers changed; that takes effect when the gateway restarts (only the policy is reloaded)")
		}
	}
}

// fileDigest is the SHA-256 of path's bytes, or of nothing when it cannot
// be read (a missing file is a change too, which the reload reports).
func fileDigest(path string) [32]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return sha256.Sum256([]byte("unreadable: " + err.Error()))
	}
	return sha256.Sum256(data)
}
