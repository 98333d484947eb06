package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxToolPages bounds the tools/list pages read from one server, so that a
// server answering with an endless cursor cannot hold a refresh forever.
const maxToolPages = 1000

// downstream is the gateway's client of one server: it starts (or
// connects to) the server, lists its tools, re-lists them on
// notifications/tools/list_changed, and restarts it with backoff when its
// session ends. Every request it sends has the server's timeout.
type downstream struct {
	cfg       ServerConfig
	timeout   time.Duration
	keepAlive time.Duration // 0: no pings
	backoff   Backoff
	log       *slog.Logger
	changed   func() // tells the catalog builder that tools or state changed

	relist chan struct{} // a list_changed arrived; buffered 1, coalescing
	ready  chan struct{} // closed when the first attempt to come up has ended
	once   sync.Once

	maxTools int // the per-server limits of a listing
	maxBytes int

	relistMu sync.Mutex // one re-list before a call at a time (see fresh)

	mu       sync.Mutex
	session  *mcp.ClientSession // nil while down
	tools    []*mcp.Tool        // the last list of the session serving now
	listing  *listing           // the same list with its hashes
	excluded string             // why its tools are left out while it is up ("" when they are not)
	status   string             // "starting", "up", "down: <why>"
	restarts int                // sessions that ended and were started again
}

func newDownstream(cfg ServerConfig, opts Options, log *slog.Logger, changed func()) *downstream {
	d := &downstream{
		cfg: cfg, timeout: opts.Timeout, keepAlive: max(opts.KeepAlive, 0), backoff: opts.Backoff,
		log: log.With("server", cfg.Name), changed: changed,
		relist: make(chan struct{}, 1), ready: make(chan struct{}), status: "starting",
		maxTools: opts.MaxServerTools, maxBytes: opts.MaxServerBytes,
	}
	if cfg.Timeout > 0 {
		d.timeout = cfg.Timeout
	}
	return d
}

// run keeps the server up until ctx ends, then closes its session (which
// stops a child: stdin closed, then SIGTERM, then SIGKILL).
func (d *downstream) run(ctx context.Context) {
	defer d.markReady()
	attempt := 0
	for ctx.Err() == nil {
		session, done, err := d.start(ctx)
		if err == nil {
			started := time.Now()
			err = d.serve(ctx, session, done)
			if time.Since(started) >= stableSession {
				attempt = 0 // it ran a while: not a crash loop
			}
		}
		if ctx.Err() != nil {
			return
		}
		d.setDown(err)
		d.markReady()
		wait := d.backoff.delay(attempt)
		d.log.Warn("server down; restarting", "error", statusText(err), "in", wait.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		attempt++
	}
}

// stableSession is how long a session must last for the next restart to
// start again from the initial backoff.
const stableSession = 30 * time.Second

// start connects (initialize included) and lists the tools, within the
// timeout.
func (d *downstream) start(ctx context.Context) (*mcp.ClientSession, <-chan struct{}, error) {
	transport, err := d.transport()
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolsift-gateway", Version: Version}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}, // no roots, sampling or elicitation: the gateway answers none
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case d.relist <- struct{}{}:
			default:
			}
		},
	})
	connectCtx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	session, err := client.Connect(connectCtx, transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", d.timedOut(connectCtx, err))
	}
	done := make(chan struct{})
	go func() {
		_ = session.Wait()
		close(done)
	}()
	// A list_changed sent before the first list says nothing new.
	select {
	case <-d.relist:
	default:
	}
	l, err := d.list(ctx, session)
	var over *overLimitError
	if errors.As(err, &over) {
		// Its tools are left out, the session kept: a list_changed may
		// bring it within the limits.
		d.log.Warn("server's tools left out of the catalog", "why", over.what)
		l, err = nil, nil
	}
	if err != nil {
		_ = session.Close()
		return nil, nil, err
	}
	d.mu.Lock()
	d.session, d.listing, d.status, d.excluded, d.tools = session, l, "up", "", nil
	if l != nil {
		d.tools = l.tools
	} else {
		d.excluded = over.what
	}
	d.mu.Unlock()
	d.log.Info("server up", "tools", len(d.tools))
	d.markReady()
	d.changed()
	return session, done, nil
}

// serve re-lists the tools on every list_changed until the session ends
// (the error says why) or ctx does.
func (d *downstream) serve(ctx context.Context, session *mcp.ClientSession, done <-chan struct{}) error {
	var pings <-chan time.Time
	if d.keepAlive > 0 {
		ticker := time.NewTicker(d.keepAlive)
		defer ticker.Stop()
		pings = ticker.C
	}
	missed := 0
	for {
		select {
		case <-pings:
			// A server that is alive but stuck answers nothing: after two
			// missed pings in a row it is restarted like one that exited.
			// (The SDK's own keepalive covers only the older protocol
			// versions; this covers every one.)
			pingCtx, cancel := context.WithTimeout(ctx, d.timeout)
			err := session.Ping(pingCtx, nil)
			cancel()
			switch {
			case err == nil:
				missed = 0
			case methodNotFound(err):
				pings = nil // a server without ping: rely on its exit
			case ctx.Err() == nil:
				if missed++; missed >= 2 {
					_ = session.Close()
					<-done
					return fmt.Errorf("stopped answering pings (two missed, %s each)", d.timeout)
				}
			}
		case <-ctx.Done():
			_ = session.Close()
			<-done
			return ctx.Err()
		case <-done:
			return errors.New("session ended (the server exited or closed the connection)")
		case <-d.relist:
			d.relistMu.Lock()
			l, err := d.list(ctx, session)
			d.relistMu.Unlock()
			var over *overLimitError
			if errors.As(err, &over) {
				d.mu.Lock()
				d.listing, d.tools, d.excluded = nil, nil, over.what
				d.mu.Unlock()
				d.log.Warn("server's tools left out of the catalog", "why", over.what)
				d.changed()
				continue
			}
			if err != nil {
				// A server that cannot list its tools cannot be trusted
				// with the old list either: restart it.
				_ = session.Close()
				<-done
				return err
			}
			// A list_changed that changed nothing (some servers send one
			// right after initialize) rebuilds nothing.
			d.store(session, l)
		}
	}
}

// methodNotFound reports whether err is the peer's JSON-RPC "method not
// found".
func methodNotFound(err error) bool {
	var rpc *jsonrpc.Error
	return errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeMethodNotFound
}

// timedOut names the timeout when ctx's deadline is what failed err.
func (d *downstream) timedOut(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", d.timeout, err)
	}
	return err
}

func (d *downstream) setDown(err error) {
	d.mu.Lock()
	wasUp := d.session != nil
	d.session, d.tools, d.listing, d.excluded = nil, nil, nil, ""
	d.status = "down: " + statusText(err)
	if wasUp {
		d.restarts++
	}
	d.mu.Unlock()
	if wasUp {
		d.changed()
	}
}

func (d *downstream) markReady() { d.once.Do(func() { close(d.ready) }) }

// state is what the catalog builder and call_tool read.
func (d *downstream) state() (session *mcp.ClientSession, tools []*mcp.Tool, status string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.session, d.tools, d.status
}

// listed is what the catalog builder reads: the session, its listing and
// why its tools are left out ("" when they are not).
func (d *downstream) listed() (*mcp.ClientSession, *listing, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.session, d.listing, d.excluded
}

// call forwards one tools/call within the timeout.
func (d *downstream) call(ctx context.Context, name string, arguments any) (*mcp.CallToolResult, error) {
	session, _, status := d.state()
	if session == nil {
		return nil, &unavailableError{server: d.cfg.Name, status: status}
	}
	callCtx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	result, err := session.CallTool(callCtx, &mcp.CallToolParams{Name: name, Arguments: arguments})
	if err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, &timeoutError{server: d.cfg.Name, tool: name, after: d.timeout}
	}
	cleanResult(result)
	return result, shown(err)
}

type unavailableError struct{ server, status string }

func (e *unavailableError) Error() string {
	return fmt.Sprintf("server %q is unavailable (%s)", e.server, e.status)
}

type timeoutError struct {
	server, tool string
	after        time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("server %q did not answer tools/call %q within %s", e.server, e.tool, e.after)
}

// transport makes the SDK transport for the server: a child process whose
// stderr lines are logged under the server's name, or a streamable HTTP
// client (httpclient.go: headers for the server's origin only, capped
// bodies). Both repair tools/list answers before the SDK decodes them
// (repair.go).
func (d *downstream) transport() (mcp.Transport, error) {
	if !d.cfg.Stdio() {
		return &mcp.StreamableClientTransport{
			Endpoint:   d.cfg.URL,
			HTTPClient: newHTTPClient(d.cfg, d.log, http.DefaultTransport),
			MaxRetries: 2,
			// Explicit: the SDK (v1.8.0) documents 0 as its 16 MiB default
			// but passes 0 on to its event reader, where it means no cap.
			MaxEventSize: mcp.DefaultMaxEventSize,
		}, nil
	}
	cmd := exec.Command(d.cfg.Command, d.cfg.Args...)
	cmd.Dir = d.cfg.Cwd
	cmd.Env = os.Environ()
	for _, k := range sortedKeys(d.cfg.Env) {
		cmd.Env = append(cmd.Env, k+"="+d.cfg.Env[k])
	}
	stopWithParent(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	go d.logStderr(stderr)
	return &repairingTransport{
		Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second},
		log:       d.log,
	}, nil
}

// maxStderrLine caps one logged line of a child's stderr.
const maxStderrLine = 4096

// logStderr logs a child's stderr a line at a time, and reads it to the
// end whatever it holds: a child whose stderr pipe is not read blocks on
// its next write, and stops answering. A line longer than maxStderrLine is
// logged cut, and the rest of it read and thrown away as it comes, so
// memory stays bounded by the reader's buffer however long a line is.
func (d *downstream) logStderr(r io.Reader) {
	reader := bufio.NewReaderSize(r, maxStderrLine)
	var line []byte
	cut := false // the line being read passed maxStderrLine
	for {
		piece, err := reader.ReadSlice('\n')
		if !cut {
			line = append(line, piece...)
			if len(line) > maxStderrLine {
				line, cut = line[:maxStderrLine], true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the same line goes on
		}
		if text := strings.TrimRight(string(line), "\r\n"); text != "" || cut {
			if cut {
				text = strings.ToValidUTF8(text, "") + "…"
			}
			d.log.Info("stderr", "line", text)
		}
		line, cut = line[:0], false
		if err != nil {
			return
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Backoff is the delay before restarting a server whose session ended:
// Initial, doubled after each failed attempt, at most Max.
type Backoff struct {
	Initial, Max time.Duration
}

func (b Backoff) delay(attempt int) time.Duration {
	d := b.Initial
	for i := 0; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}
