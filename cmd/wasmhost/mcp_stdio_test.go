package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// asWasmhostEnv makes this test binary run as wasmhost itself (its
// arguments after the program name), so that a test can start `wasmhost
// mcp` as a real process without building it.
const asWasmhostEnv = "TOOLSIFT_TEST_AS_WASMHOST"

func init() {
	if os.Getenv(asWasmhostEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// Attack: bad lines on the gateway's stdin. Each ended the session, and
// with it the gateway and every downstream server. Now each gets a
// JSON-RPC error with id null, and a good request after them all is
// answered.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "servers.json")
	// A server that is down at once: the session does not depend on it.
	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"down": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o644))
	cmd := exec.Command(os.Args[0], "mcp", "--config", config, "--cache-dir", "")
	cmd.Env = append(os.Environ(), asWasmhostEnv+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewReader(stdout)
	answer := func() map[string]any {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			line, _ := lines.ReadString('\n')
			got <- line
		}()
		select {
		case line := <-got:
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m), "answer %q (stderr %s)", line, stderr.String())
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer (stderr %s)", stderr.String())
			return nil
		}
	}
	send := func(line string) {
		t.Helper()
		_, err := io.WriteString(stdin, line+"\n")
		require.NoError(t, err, "the gateway stopped reading (stderr %s)", stderr.String())
	}

	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for _, c := range []struct {
		line string
		code float64
	}{
		{`"hello"`, -32600},
		{`[]`, -32600},
		{`42`, -32600},
		{`null`, -32600},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
		{`{"id":1,"method":"ping"}`, -32600},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
		{deep, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} trailing`, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, -32700},
		{`not json at all`, -32700},
		{`{"jsonrpc":"2.0",`, -32700},
		{"\xff\xfe", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":"` + strings.Repeat("a", 16<<20) + `"}`, -32600},
	} {
		send(c.line)
		m := answer()
		require.Nil(t, m["id"], "line %.60q", c.line)
		require.Contains(t, m, "id")
		e, _ := m["error"].(map[string]any)
		require.Equal(t, c.code, e["code"], "line %.60q: %v", c.line, m)
	}
	send(``) // a blank line is no message, and gets no answer

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := answer()
	require.EqualValues(t, 1, m["id"], "%v", m)
	require.Contains(t, m, "result")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	m = answer()
	require.EqualValues(t, 2, m["id"], "%v", m)
	tools := m["result"].(map[string]any)["tools"].([]any)
	require.Len(t, tools, 3)

	// Mid-session too: a bad line, then a tool call on the same session.
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"x"}}} {`)
	m = answer()
	require.Nil(t, m["id"])
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"x"}}}`)
	m = answer()
	require.EqualValues(t, 4, m["id"], "%v", m)
	require.Contains(t, fmt.Sprint(m["result"]), "catalog_empty", "the down server's catalog is empty, and says so")

	require.NoError(t, stdin.Close())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatal("wasmhost mcp did not exit when its stdin closed")
	}
}

func TestMCPHTTPFlags(t *testing.T) {
	config := filepath.Join(t.TempDir(), "servers.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o644))
	for _, args := range [][]string{
		{"--allow-origin", "http://localhost:6274/path"},
		{"--allow-origin", "localhost:6274"},
		{"--allow-origin", "http://a.test,ftp://b.test"},
		{"--session-idle", "0s"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"mcp", "--config", config, "--listen", "127.0.0.1:0"}, args...)...)
		require.Equal(t, 3, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, `"reason":"invalid_flag"`, "%v", args)
	}
}
