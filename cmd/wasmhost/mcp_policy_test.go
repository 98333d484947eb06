package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// --stateless is for HTTP; a policy naming a server the file lacks is
// refused at start, as a reload refuses it.
func TestMCPPolicyFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(doc string) string {
		path := filepath.Join(dir, "servers.json")
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return path
	}
	config := write(`{"mcpServers": {"a": {"command": "true"}}}`)
	code, _, stderr := runCLI(t, "", "mcp", "--config", config, "--stateless")
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `"reason":"invalid_flag"`)

	config = write(`{"mcpServers": {"a": {"command": "true"}}, "policy": {"default": {"servers": {"b": {}}}}}`)
	code, _, stderr = runCLI(t, "", "mcp", "--config", config)
	require.Equal(t, 3, code)
	require.Contains(t, stderr, `server \"b\" is not in mcpServers`)
}
