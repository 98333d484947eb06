package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mtibben/confusables"

	"github.com/toolsift/toolsift/hostapi"
)

// Config is the gateway's list of downstream servers, read from the file
// format MCP clients already use (Claude Desktop, Cursor, VS Code):
//
//	{"mcpServers": {
//	  "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
//	  "remote":     {"url": "http://127.0.0.1:8931/mcp", "headers": {"Authorization": "Bearer …"}}
//	}}
//
// VS Code's top-level "servers" key is read the same way. Other top-level
// keys (a client's own settings) are ignored.
type Config struct {
	Servers []ServerConfig // sorted by Name
	// FileOrder is the server names in the order the file lists them (read
	// from the JSON's tokens, since a Go map has no order); empty for a
	// Config built in code, whose Servers' order is then the file's.
	FileOrder []string
}

// ServerConfig is one downstream server: a command to start (stdio) or a
// URL to connect to (streamable HTTP).
type ServerConfig struct {
	Name string
	// stdio
	Command string
	Args    []string
	Env     map[string]string // added to the gateway's own environment
	Cwd     string
	// streamable HTTP
	URL     string
	Headers map[string]string
	// AllowDestructive lets call_tool forward this server's destructive
	// tools. Off by default: a search result must never widen what an
	// agent may do.
	AllowDestructive bool
	// Timeout bounds every request to this server (initialize, tools/list,
	// tools/call); 0 means the gateway's default. "timeoutSeconds" must be
	// within MinTimeout and MaxTimeout.
	Timeout time.Duration
	// Trusted is the operator's word that this server's tool annotations
	// and definitions can be believed (see trust.go). Off by default, as
	// the MCP specification asks of clients.
	Trusted bool
}

// Stdio reports whether the server is started as a child process.
func (s ServerConfig) Stdio() bool { return s.Command != "" }

// ConfigError is a config file the gateway refuses; Message names the
// server and the key.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return "gateway config: " + e.Message }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Message: fmt.Sprintf(format, args...)}
}

// maxConfigBytes bounds what LoadConfig reads: a config is a few kilobytes.
const maxConfigBytes = 4 << 20

// The bounds of a server's "timeoutSeconds": below MinTimeout not even
// initialize can answer, and past MaxTimeout a stuck call holds its
// caller for more than a day. A value outside them is a mistake the
// gateway names rather than one it silently replaces.
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 24 * time.Hour
)

// LoadConfig reads and parses a config file.
func LoadConfig(path string) (*Config, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	if !st.Mode().IsRegular() {
		return nil, configErrorf("%s is not a regular file", path)
	}
	if st.Size() > maxConfigBytes {
		return nil, configErrorf("%s is larger than %d bytes", path, maxConfigBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, err
	}
	// A relative "cwd" is the config file's folder's, and so is a relative
	// "command" path (one with a slash) given without "cwd", so that a
	// config beside its servers works from any folder the gateway is
	// started in. With "cwd", a relative command is relative to it (as
	// os/exec does); a bare name ("npx") is looked up in PATH.
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, configErrorf("%v", err)
	}
	dir := filepath.Dir(abs)
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if !s.Stdio() {
			continue
		}
		if s.Cwd == "" && !filepath.IsAbs(s.Command) && strings.ContainsRune(filepath.ToSlash(s.Command), '/') {
			s.Command = filepath.Join(dir, s.Command)
		}
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(dir, s.Cwd)
		}
	}
	return cfg, nil
}

// rawServer is one entry of "mcpServers" as written.
type rawServer struct {
	Type             string            `json:"type"`
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Env              map[string]string `json:"env"`
	Cwd              string            `json:"cwd"`
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	AllowDestructive bool              `json:"allowDestructive"`
	TimeoutSeconds   float64           `json:"timeoutSeconds"`
	Disabled         bool              `json:"disabled"`
	Trusted          bool              `json:"trusted"`
}

// ParseConfig parses the bytes of a config file. A server with
// "disabled": true is left out. Keys a server entry does not know (a
// client's own, such as "autoApprove") are ignored, since the file is
// usually shared with a client; a wrong type for a known key is an error.
func ParseConfig(data []byte) (*Config, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, configErrorf("not a JSON object: %v", err)
	}
	entries := doc.MCPServers
	switch {
	case entries != nil && doc.Servers != nil:
		return nil, configErrorf(`give "mcpServers" or "servers", not both`)
	case entries == nil:
		entries = doc.Servers
	}
	if len(entries) == 0 {
		return nil, configErrorf(`no servers: want {"mcpServers": {"<name>": {"command": …} | {"url": …}}}`)
	}
	cfg := &Config{}
	products := map[string]string{} // product ID → server name, to refuse two that collide
	looks := map[string]string{}    // look-alike key → server name
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		var raw rawServer
		dec := json.NewDecoder(bytes.NewReader(entries[name]))
		if err := dec.Decode(&raw); err != nil {
			return nil, configErrorf("server %q: %v", name, err)
		}
		if raw.Disabled {
			continue
		}
		server, err := checkServer(name, raw)
		if err != nil {
			return nil, err
		}
		id := hostapi.ProductID(name)
		if other, taken := products[id]; taken {
			return nil, configErrorf("servers %q and %q would both be product %q in the catalog (a '.' becomes '_'): rename one", other, name, id)
		}
		products[id] = name
		key := lookalikeName(name)
		if other, taken := looks[key]; taken {
			return nil, configErrorf("servers %q and %q look alike (the same after case folding and mapping confusable letters): rename one, so that an agent told one cannot be given the other", other, name)
		}
		looks[key] = name
		cfg.Servers = append(cfg.Servers, server)
	}
	if len(cfg.Servers) == 0 {
		return nil, configErrorf("every server is disabled")
	}
	cfg.FileOrder = fileOrder(data)
	return cfg, nil
}

func checkServer(name string, raw rawServer) (ServerConfig, error) {
	s := ServerConfig{
		Name: name, Command: raw.Command, Args: raw.Args, Env: raw.Env, Cwd: raw.Cwd,
		URL: raw.URL, Headers: raw.Headers, AllowDestructive: raw.AllowDestructive,
		Trusted: raw.Trusted,
	}
	switch {
	case hostapi.UnsafeName(name):
		return s, configErrorf("server name %q holds a control, bidi, zero-width or other invisible character", name)
	case strings.TrimSpace(name) == "" || strings.TrimSpace(name) != name:
		return s, configErrorf("server name %q: empty or with surrounding spaces", name)
	case raw.TimeoutSeconds != 0 && (raw.TimeoutSeconds < MinTimeout.Seconds() || raw.TimeoutSeconds > MaxTimeout.Seconds()):
		return s, configErrorf("server %q: timeoutSeconds %g is outside %g to %g (leave it out for the gateway's default)",
			name, raw.TimeoutSeconds, MinTimeout.Seconds(), MaxTimeout.Seconds())
	case raw.Command != "" && raw.URL != "":
		return s, configErrorf(`server %q: give "command" (stdio) or "url" (streamable HTTP), not both`, name)
	case raw.Command == "" && raw.URL == "":
		return s, configErrorf(`server %q: needs "command" (stdio) or "url" (streamable HTTP)`, name)
	}
	s.Timeout = time.Duration(raw.TimeoutSeconds * float64(time.Second))
	switch raw.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	case "sse":
		return s, configErrorf(`server %q: "type": "sse" (the deprecated HTTP+SSE transport) is not supported; use a streamable HTTP endpoint`, name)
	default:
		return s, configErrorf("server %q: unknown \"type\" %q (stdio, http)", name, raw.Type)
	}
	if raw.Type == "stdio" && raw.Command == "" {
		return s, configErrorf(`server %q: "type": "stdio" needs "command"`, name)
	}
	if raw.Type != "" && raw.Type != "stdio" && raw.URL == "" {
		return s, configErrorf(`server %q: "type": %q needs "url"`, name, raw.Type)
	}
	if raw.URL != "" {
		u, err := url.Parse(raw.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, configErrorf("server %q: url %q is not an http(s) URL", name, raw.URL)
		}
		if len(raw.Args) > 0 || len(raw.Env) > 0 || raw.Cwd != "" {
			return s, configErrorf(`server %q: "args", "env" and "cwd" belong to a "command" server`, name)
		}
	}
	if raw.Command != "" && len(raw.Headers) > 0 {
		return s, configErrorf(`server %q: "headers" belong to a "url" server`, name)
	}
	return s, nil
}

// lookalikeName is what a server name looks like: hostapi.LookalikeKey
// (invisible characters removed, NFKC, case folded), then the Unicode
// confusable skeleton (UTS #39) of its lower case, so that "gіthub" with a
// Cyrillic і, "GitHub" and "github" are one name. Two servers with one
// look would show an agent two sources it cannot tell apart.
func lookalikeName(name string) string {
	folded := strings.ToLower(hostapi.LookalikeKey(name))
	return hostapi.LookalikeKey(confusables.Skeleton(folded))
}
