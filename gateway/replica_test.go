package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/internal/testskip"
)

// pythonWithMCP is a Python that imports the official `mcp` SDK: the one
// TOOLSIFT_PYTHON names, else the virtual environment make setup makes
// (VENV, default the repository's .venv), where it installs
// ./bindings/python[test], which pins mcp. Without one the test is
// skipped and the skip recorded (a failure under CI=true).
func pythonWithMCP(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p := os.Getenv("TOOLSIFT_PYTHON"); p != "" {
		candidates = append(candidates, p)
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	if venv := os.Getenv("VENV"); venv != "" { // make test VENV=…
		if !filepath.IsAbs(venv) {
			venv = filepath.Join(root, venv)
		}
		candidates = append(candidates, filepath.Join(venv, "bin", "python"))
	}
	candidates = append(candidates, filepath.Join(root, ".venv", "bin", "python"))
	for _, p := range candidates {
		if exec.Command(p, "-c", "import mcp.client.streamable_http").Run() == nil {
			return p
		}
	}
	testskip.Missing(t, "a Python with the mcp package (run: make setup, which makes .venv with ./bindings/python[test]; or set TOOLSIFT_PYTHON)")
	return ""
}

// buildWasmhost builds the real `wasmhost` binary the replicas run.
func buildWasmhost(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "wasmhost")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/wasmhost")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/wasmhost: %s", out)
	return bin
}

// replica is one `wasmhost mcp --listen 127.0.0.1:0 --stateless` process.
type replica struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	done   chan struct{}
}

var servingLine = regexp.MustCompile(`serving streamable HTTP on (http://\S+)`)

func startReplica(t *testing.T, bin, config string) *replica {
	t.Helper()
	// --reload-interval 0: the policy is reloaded on SIGHUP only, so the
	// test knows when.
	cmd := exec.Command(bin, "mcp", "--config", config, "--listen", "127.0.0.1:0", "--stateless", "--startup-wait", "60s", "--reload-interval", "0")
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := &replica{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(pipe)
		scanner.Buffer(make([]byte, 64<<10), 1<<20)
		for scanner.Scan() {
			line := scanner.Text()
			fmt.Fprintln(r.stderr, line)
			if m := servingLine.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-r.done
		}
	})
	select {
	case r.url = <-found:
	case <-r.done:
		t.Fatalf("replica exited before serving: %s", r.stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("replica not serving within 2 min: %s", r.stderr.String())
	}
	return r
}

// roundRobin is a reverse proxy (net/http/httputil) that sends each tool
// call to the next replica in turn, and stops sending to one whose connection
// fails (the passive health check a load balancer does): the request that
// found it gone answers 502. It records which replica answered each
// tools/call.
type roundRobin struct {
	mu       sync.Mutex
	proxies  []*httputil.ReverseProxy
	dead     []bool
	next     int
	answered []hit
}

type hit struct {
	replica int
	tool    string
}

func newRoundRobin(t *testing.T, replicas []*replica) (*roundRobin, string) {
	rr := &roundRobin{dead: make([]bool, len(replicas))}
	for i, r := range replicas {
		target, err := url.Parse(r.url)
		require.NoError(t, err)
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{
			Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.Out.Host = target.Host },
			ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
				rr.mu.Lock()
				rr.dead[i] = true
				rr.mu.Unlock()
				http.Error(w, "replica unreachable: "+err.Error(), http.StatusBadGateway)
			},
		})
	}
	srv := httptest.NewServer(rr)
	t.Cleanup(srv.Close)
	return rr, srv.URL
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	rr.mu.Lock()
	i := rr.pick(msg.Method == "tools/call")
	if msg.Method == "tools/call" {
		rr.answered = append(rr.answered, hit{i, msg.Params.Name})
	}
	rr.mu.Unlock()
	rr.proxies[i].ServeHTTP(w, r)
}

// pick is the replica for a request: for a tools/call the next live one
// in turn, for any other message (initialize, the tools/list the Python
// client sends to check a result, a GET that every stateless replica
// answers 405) the live one whose turn it is, without advancing, so that
// the test knows which replica each tool call reaches; rr.mu held.
func (rr *roundRobin) pick(rotate bool) int {
	for range rr.dead {
		i := rr.next % len(rr.dead)
		if rotate {
			rr.next++
		}
		if !rr.dead[i] {
			return i
		}
		if !rotate {
			rr.next++
		}
	}
	return 0
}

// upcoming is the replica the next POST goes to.
func (rr *roundRobin) upcoming() int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for k := 0; k < len(rr.dead); k++ {
		if i := (rr.next + k) % len(rr.dead); !rr.dead[i] {
			return i
		}
	}
	return -1
}

func (rr *roundRobin) last() hit {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.answered[len(rr.answered)-1]
}

// pyClient is the Python client process (testdata/replica_client.py).
type pyClient struct {
	t     *testing.T
	stdin io.WriteCloser
	out   *bufio.Scanner
}

type pyAnswer struct {
	OK      bool     `json:"ok"`
	IsError bool     `json:"is_error"`
	Texts   []string `json:"texts"`
	Error   string   `json:"error"`
	Retries int      `json:"retries"`
}

func startPython(t *testing.T, python, endpoint string) *pyClient {
	t.Helper()
	cmd := exec.Command(python, "testdata/replica_client.py", endpoint)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("python client stderr:\n%s", stderr.String())
		}
	})
	p := &pyClient{t: t, stdin: stdin, out: bufio.NewScanner(stdout)}
	p.out.Buffer(make([]byte, 1<<20), 16<<20)
	require.True(t, p.out.Scan(), "the Python client did not start: %s", stderr.String())
	require.JSONEq(t, `{"ready": true}`, p.out.Text())
	return p
}

func (p *pyClient) call(tool string, args map[string]any, retry bool) pyAnswer {
	p.t.Helper()
	line, err := json.Marshal(map[string]any{"tool": tool, "arguments": args, "retry": retry})
	require.NoError(p.t, err)
	_, err = p.stdin.Write(append(line, '\n'))
	require.NoError(p.t, err)
	require.True(p.t, p.out.Scan(), "no answer from the Python client")
	var a pyAnswer
	require.NoError(p.t, json.Unmarshal(p.out.Bytes(), &a), p.out.Text())
	return a
}

// ok requires an answer that is a tool result without isError.
func (p *pyClient) ok(tool string, args map[string]any, retry bool) pyAnswer {
	p.t.Helper()
	a := p.call(tool, args, retry)
	require.True(p.t, a.OK, "%s failed: %s", tool, a.Error)
	require.False(p.t, a.IsError, "%s: %v", tool, a.Texts)
	require.NotEmpty(p.t, a.Texts)
	return a
}

func answerOf(t *testing.T, a pyAnswer) ([]string, hashes) {
	t.Helper()
	var s searchAnswer
	require.NoError(t, json.Unmarshal([]byte(a.Texts[0]), &s), a.Texts[0])
	var paths []string
	for _, c := range s.Candidates {
		paths = append(paths, c.CanonicalPath)
	}
	return paths, hashes{s.Catalog.SourceHash, s.Catalog.SurfaceHash}
}

// Three gateway processes with one config behind a round-robin proxy are
// one gateway to the official Python client: a search on one replica, an
// inspect on another and a call on a third agree (the catalog and its
// hashes are a function of the config and the servers' lists, so every
// replica has the same ones); a downstream server's list_changed reaches
// every replica; and a replica killed mid-run costs the client one retried
// request, never a wrong answer.
func TestReplicasBehindRoundRobinProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three gateway processes")
	}
	python := pythonWithMCP(t)
	root := t.TempDir()
	fs := npmServers(t, root)[1] // the filesystem server, over root
	const note = "replicas agree\n"
	notePath := filepath.Join(root, "note.txt")
	require.NoError(t, os.WriteFile(notePath, []byte(note), 0o644))
	relay := newChangingServer(t)
	config := filepath.Join(t.TempDir(), "servers.json")
	servers := map[string]any{
		"relay":      map[string]any{"url": relay.http.URL},
		"filesystem": map[string]any{"command": fs.Command, "args": fs.Args},
	}
	doc, err := json.Marshal(map[string]any{"mcpServers": servers})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, doc, 0o644))

	bin := buildWasmhost(t)
	replicas := make([]*replica, 3)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Add(1)
		go func() { defer wg.Done(); replicas[i] = startReplica(t, bin, config) }()
	}
	wg.Wait()
	for i, r := range replicas {
		require.NotNil(t, r, "replica %d", i)
	}
	rr, endpoint := newRoundRobin(t, replicas)
	py := startPython(t, python, endpoint)

	// Search on one, inspect on another, call on a third.
	a := py.ok("search_tools", map[string]any{"query": "read a text file", "limit": 3}, false)
	paths, first := answerOf(t, a)
	require.Contains(t, paths, "filesystem.read_text_file")
	searched := rr.last().replica
	py.ok("inspect_tool", first.args(map[string]any{"path": "filesystem.read_text_file"}), false)
	inspected := rr.last().replica
	a = py.ok("call_tool", first.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": notePath}}), false)
	called := rr.last().replica
	require.Equal(t, note, a.Texts[0])
	require.ElementsMatch(t, []int{0, 1, 2}, []int{searched, inspected, called}, "three replicas answered")

	// The same search on each replica: the same bytes.
	var answers []string
	seen := map[int]bool{}
	for range 3 {
		answers = append(answers, py.ok("search_tools", map[string]any{"query": "read a text file", "limit": 3}, false).Texts[0])
		seen[rr.last().replica] = true
	}
	require.Len(t, seen, 3)
	require.Equal(t, answers[0], answers[1])
	require.Equal(t, answers[0], answers[2])
	// And the same inspect answer (the tool's definition as each replica
	// built it) from each.
	inspects, seen := []string{}, map[int]bool{}
	for range 3 {
		inspects = append(inspects, py.ok("inspect_tool", first.args(map[string]any{"path": "filesystem.read_text_file"}), false).Texts[0])
		seen[rr.last().replica] = true
	}
	require.Len(t, seen, 3)
	require.Equal(t, inspects[0], inspects[1])
	require.Equal(t, inspects[0], inspects[2])

	// list_changed reaches every replica: three searches in a row (one per
	// replica) all find the new tool under the same new hashes.
	relay.add("beta", "Send a beta signal to the relay")
	var after hashes
	eventually(t, 30*time.Second, "every replica serves the new tool", func() bool {
		var all []hashes
		for range 3 {
			p, h := answerOf(t, py.ok("search_tools", map[string]any{"query": "send a beta signal", "limit": 1}, false))
			if len(p) == 0 || p[0] != "relay.beta" {
				return false
			}
			all = append(all, h)
		}
		after = all[0]
		return all[0] == all[1] && all[1] == all[2] && all[0] != first
	})
	py.ok("inspect_tool", after.args(map[string]any{"path": "relay.beta"}), false)
	a = py.ok("call_tool", after.args(map[string]any{"path": "relay.beta"}), false)
	require.Equal(t, "beta done", a.Texts[0])
	// A tool that did not change is still reached under the first hashes,
	// on whichever replica (each remembers the catalogs it served).
	a = py.ok("call_tool", first.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": notePath}}), false)
	require.Equal(t, note, a.Texts[0])

	// Kill the replica the next request goes to: that request fails once,
	// is retried on a live one, and every answer is right.
	victim := rr.upcoming()
	require.NoError(t, replicas[victim].cmd.Process.Kill())
	<-replicas[victim].done
	retries := 0
	for round := range 3 {
		a = py.ok("search_tools", map[string]any{"query": "read a text file", "limit": 3}, true)
		retries += a.Retries
		p, h := answerOf(t, a)
		require.Equal(t, after, h, "round %d", round)
		require.Contains(t, p, "filesystem.read_text_file")
		a = py.ok("inspect_tool", h.args(map[string]any{"path": "filesystem.read_text_file"}), true)
		retries += a.Retries
		require.Contains(t, a.Texts[0], `"canonical_path": "filesystem.read_text_file"`)
		a = py.ok("call_tool", h.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": notePath}}), true)
		retries += a.Retries
		require.Equal(t, note, a.Texts[0])
		require.NotEqual(t, victim, rr.last().replica)
	}
	require.Equal(t, 1, retries, "the killed replica cost one retried request")

	// SIGHUP reloads the policy in every live replica: the Python client
	// (no token: the anonymous rule) now sees the relay only.
	doc, err = json.Marshal(map[string]any{"mcpServers": servers,
		"policy": map[string]any{"anonymous": map[string]any{"servers": map[string]any{"relay": map[string]any{"effects": "write"}}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, doc, 0o644))
	for i, r := range replicas {
		if i != victim {
			require.NoError(t, r.cmd.Process.Signal(syscall.SIGHUP))
		}
	}
	eventually(t, 30*time.Second, "every live replica reloaded the policy", func() bool {
		for i := range replicas {
			if i != victim && !strings.Contains(replicas[i].stderr.String(), "config reloaded") {
				return false
			}
		}
		return true
	})
	answeredBy := map[int]bool{}
	for range 2 { // one search on each live replica, then one call on each
		p, _ := answerOf(t, py.ok("search_tools", map[string]any{"query": "read a text file or send a beta signal", "limit": 20}, false))
		answeredBy[rr.last().replica] = true
		require.NotEmpty(t, p)
		for _, path := range p {
			require.True(t, strings.HasPrefix(path, "relay."), "%s is hidden by the new policy", path)
		}
	}
	for range 2 {
		a = py.call("call_tool", after.args(map[string]any{"path": "filesystem.read_text_file", "arguments": map[string]any{"path": notePath}}), false)
		answeredBy[rr.last().replica] = true
		require.True(t, a.OK && a.IsError && strings.Contains(a.Texts[0], `"reason":"policy_denied"`), "%+v", a)
	}
	require.Len(t, answeredBy, 2, "both live replicas answered")
}
