package gateway_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

// Attack: two servers whose names look alike, so that one silently loses
// its tools or an agent is shown one for the other. Each pair is refused,
// the error naming both.
func TestConfigRefusesLookalikeNames(t *testing.T) {
	for _, pair := range [][2]string{
		{"GitHub", "github"},
		{"GitHub", "g\u0456thub"},       // Cyrillic і
		{"github", "\u0261ithub"},       // Latin small script g
		{"paypal", "\u0440\u0430ypal"},  // Cyrillic р, а
		{"AWS", "\u0391WS"},             // Greek Alpha
		{"files", "ﬁles"},               // the ligature ﬁ (NFKC)
		{"mail", "maіl"},                // Ukrainian і
		{"scope", "ѕсоре"},              // all Cyrillic
		{"tools1", "toolsl"},            // digit one and small L
		{"read-only", "read\u2010only"}, // hyphen U+2010
	} {
		config := fmt.Sprintf(`{"mcpServers": {%q: {"command": "a"}, %q: {"command": "b"}}}`, pair[0], pair[1])
		_, err := gateway.ParseConfig([]byte(config))
		var ce *gateway.ConfigError
		require.True(t, errors.As(err, &ce), "%q and %q: %v", pair[0], pair[1], err)
		require.Contains(t, err.Error(), "look alike", "%q and %q", pair[0], pair[1])
	}
	// Names that only share letters are not look-alikes.
	_, err := gateway.ParseConfig([]byte(`{"mcpServers": {"github": {"command": "a"}, "gitlab": {"command": "b"}, "日本": {"command": "c"}}}`))
	require.NoError(t, err)
}

// Attack: names holding control, bidi or zero-width characters, which
// display as another name or hide text.
func TestConfigRefusesInvisibleNames(t *testing.T) {
	for _, name := range []string{"git\u200bhub", "evil\u202egnp", "\u2066iso\u2069", "tab\tname", "bell\a", "nul\x00", "soft\u00adhyphen", "tag\U000E0041", "c1\u0085"} {
		config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": "a"}}})
		require.NoError(t, err)
		_, err = gateway.ParseConfig(config)
		require.Error(t, err, "%q", name)
		require.Contains(t, err.Error(), "invisible character", "%q", name)
	}
}

// timeoutSeconds outside 0.1 to 86,400 is refused with the bounds named;
// 1e300 had become the default and 1e-9 was accepted.
func TestConfigTimeoutBounds(t *testing.T) {
	for _, v := range []string{"1e300", "1e-9", "0.05", "-1", "86401"} {
		_, err := gateway.ParseConfig([]byte(`{"mcpServers": {"a": {"command": "x", "timeoutSeconds": ` + v + `}}}`))
		require.Error(t, err, v)
		require.Contains(t, err.Error(), "is outside 0.1 to 86400", v)
	}
	for v, want := range map[string]time.Duration{"0.1": 100 * time.Millisecond, "86400": 24 * time.Hour, "0": 0, "30": 30 * time.Second} {
		cfg, err := gateway.ParseConfig([]byte(`{"mcpServers": {"a": {"command": "x", "timeoutSeconds": ` + v + `}}}`))
		require.NoError(t, err, v)
		require.Equal(t, want, cfg.Servers[0].Timeout, v)
	}
}

// A relative command path without "cwd" is the config file's folder's,
// wherever the gateway is started; with "cwd" it is left to os/exec
// (relative to cwd); a bare name is left to PATH.
func TestConfigRelativeCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bin", "server.sh")
	require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	path := filepath.Join(dir, "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {
	  "rel": {"command": "./bin/server.sh"},
	  "nested": {"command": "bin/server.sh"},
	  "withcwd": {"command": "./server.sh", "cwd": "bin"},
	  "bare": {"command": "npx"}}}`), 0o644))
	other := t.TempDir()
	t.Chdir(other)
	relPath, err := filepath.Rel(other, path)
	require.NoError(t, err)
	cfg, err := gateway.LoadConfig(relPath)
	require.NoError(t, err)
	got := map[string]gateway.ServerConfig{}
	for _, s := range cfg.Servers {
		got[s.Name] = s
	}
	require.Equal(t, script, got["rel"].Command)
	require.Equal(t, script, got["nested"].Command)
	require.Equal(t, "./server.sh", got["withcwd"].Command)
	require.Equal(t, filepath.Join(dir, "bin"), got["withcwd"].Cwd)
	require.Equal(t, "npx", got["bare"].Command)
	_, err = os.Stat(got["rel"].Command)
	require.NoError(t, err)
}
