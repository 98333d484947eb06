package gateway_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

func TestParseConfig(t *testing.T) {
	cfg, err := gateway.ParseConfig([]byte(`{
	  "globalShortcut": "ignored: a client's own setting",
	  "mcpServers": {
	    "web": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}, "type": "http"},
	    "fs": {"command": "npx", "args": ["-y", "pkg", "/tmp"], "env": {"K": "v"}, "cwd": "/srv",
	           "allowDestructive": true, "timeoutSeconds": 2.5, "autoApprove": ["read"]},
	    "off": {"command": "x", "disabled": true}
	  }}`))
	require.NoError(t, err)
	require.Equal(t, []gateway.ServerConfig{
		{Name: "fs", Command: "npx", Args: []string{"-y", "pkg", "/tmp"}, Env: map[string]string{"K": "v"}, Cwd: "/srv",
			AllowDestructive: true, Timeout: 2500 * time.Millisecond},
		{Name: "web", URL: "https://example.test/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}, cfg.Servers)

	vscode, err := gateway.ParseConfig([]byte(`{"servers": {"a": {"type": "stdio", "command": "x"}}}`))
	require.NoError(t, err)
	require.Equal(t, "a", vscode.Servers[0].Name)
}

func TestParseConfigRefuses(t *testing.T) {
	for _, tc := range []struct{ name, config string }{
		{"not JSON", `{"mcpServers": `},
		{"no servers", `{}`},
		{"empty servers", `{"mcpServers": {}}`},
		{"both keys", `{"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "y"}}}`},
		{"neither command nor url", `{"mcpServers": {"a": {"args": ["x"]}}}`},
		{"command and url", `{"mcpServers": {"a": {"command": "x", "url": "http://127.0.0.1:1/"}}}`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://host/x"}}}`},
		{"sse", `{"mcpServers": {"a": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}`},
		{"unknown type", `{"mcpServers": {"a": {"type": "carrier-pigeon", "command": "x"}}}`},
		{"headers on a command", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`},
		{"args on a url", `{"mcpServers": {"a": {"url": "http://127.0.0.1:1/", "args": ["x"]}}}`},
		{"wrong type", `{"mcpServers": {"a": {"command": ["x"]}}}`},
		{"negative timeout", `{"mcpServers": {"a": {"command": "x", "timeoutSeconds": -1}}}`},
		{"names that collide as products", `{"mcpServers": {"a.b": {"command": "x"}, "a_b": {"command": "y"}}}`},
		{"blank name", `{"mcpServers": {" ": {"command": "x"}}}`},
		{"all disabled", `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gateway.ParseConfig([]byte(tc.config))
			var cerr *gateway.ConfigError
			require.True(t, errors.As(err, &cerr), "want a *ConfigError, got %v", err)
		})
	}
}

// A relative cwd is the config file's folder's.
func TestLoadConfigResolvesCwd(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "node", "cwd": "sub"}, "b": {"command": "node"}}}`), 0o644))
	cfg, err := gateway.LoadConfig(path)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "sub"), cfg.Servers[0].Cwd)
	require.Equal(t, "", cfg.Servers[1].Cwd)

	_, err = gateway.LoadConfig(dir)
	var cerr *gateway.ConfigError
	require.True(t, errors.As(err, &cerr), "a directory is refused: %v", err)
}
