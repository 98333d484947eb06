// Package gateway is an MCP server in front of many: it starts or connects
// to the servers of a config file (the mcpServers shape MCP clients use),
// builds one catalog of all their tools through the MCP importer, serves it
// from one hostapi engine, and keeps it live (a server's list_changed, exit
// or return rebuilds the catalog and swaps it in atomically).
//
// Upstream it offers a fixed surface of three tools: search_tools (the
// tool-search.v1 answer, byte for byte what `wasmhost search` gives over a
// snapshot of the same catalog), inspect_tool (schema-inspect.v1, checked
// against the catalog hashes) and call_tool (forwarded to the owning
// server's tools/call only under the hashes the caller inspected, and for a
// destructive tool only where the config allows it). Both sides speak MCP
// through the official Go SDK.
//
// One server cannot take the others down: each server's list is read,
// limited and imported on its own (isolate.go), a call is checked against
// its own tool's definition rather than the whole catalog (history.go), and
// an untrusted server's annotations and definitions are not simply believed
// (trust.go, callpath.go, schema.go, shadow.go).
//
// Flow: config → downstream (one supervised client per server) → rebuild
// (each server alone, then assemble, build natively, Swap) → generation
// (hashes and routes) → the upstream handlers in server.go, through
// resolve and forward in callpath.go.
package gateway

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolsift/toolsift/hostapi"
)

// Version is the gateway's version in its MCP implementation info.
const Version = "0.1.0"

// Options tune a Gateway; the zero value is the defaults.
type Options struct {
	// Timeout bounds every request to a downstream server (initialize,
	// each tools/list page, tools/call) unless its config sets one.
	// Default 30 s.
	Timeout time.Duration
	// StartupWait is how long Start waits for the servers' first
	// tools/list before it serves whatever is up (the others join the
	// catalog when they come up). Default: Timeout.
	StartupWait time.Duration
	// KeepAlive is the interval of the pings sent to each downstream
	// server; one that misses two in a row (each within Timeout) is
	// restarted. Default 15 s; negative: no pings.
	KeepAlive time.Duration
	// Backoff spaces the restarts of a server whose session ended.
	// Default 500 ms doubling to 30 s.
	Backoff Backoff
	// ExposeFound adds the tools a search returns to the gateway's own
	// tools/list (with notifications/tools/list_changed), for clients that
	// call tools directly rather than through call_tool.
	ExposeFound bool
	// Logger receives the gateway's log (never stdout); default: text on
	// stderr.
	Logger *slog.Logger
	// HostOptions configure the engine (compilation cache, memory limit).
	HostOptions []hostapi.Option

	// MaxServerTools and MaxServerBytes bound one server's tool list (the
	// listing stops being read past them, and the server's tools are left
	// out); CatalogBudget bounds all servers' lists together (the largest
	// server is left out first). Defaults: DefaultMaxServerTools,
	// DefaultMaxServerBytes, DefaultCatalogBudget.
	MaxServerTools, MaxServerBytes, CatalogBudget int
	// AuditLogger receives one line for every call_tool (audit.go).
	// Default: JSON on stderr.
	AuditLogger *slog.Logger
	// RelistCache is how old a server's listing may be when a call to an
	// untrusted server is checked against it; older, the server is listed
	// again first. Default DefaultRelistCache; negative: list before every
	// call.
	RelistCache time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.StartupWait <= 0 {
		o.StartupWait = o.Timeout
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.Backoff.Initial <= 0 {
		o.Backoff.Initial = 500 * time.Millisecond
	}
	if o.Backoff.Max < o.Backoff.Initial {
		o.Backoff.Max = max(30*time.Second, o.Backoff.Initial)
	}
	if o.MaxServerTools <= 0 {
		o.MaxServerTools = DefaultMaxServerTools
	}
	if o.MaxServerBytes <= 0 {
		o.MaxServerBytes = DefaultMaxServerBytes
	}
	if o.CatalogBudget <= 0 {
		o.CatalogBudget = DefaultCatalogBudget
	}
	if o.RelistCache == 0 {
		o.RelistCache = DefaultRelistCache
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return o
}

// Gateway is one running gateway. Its methods are safe for concurrent use.
type Gateway struct {
	opts    Options
	log     *slog.Logger
	servers []*downstream // in config order (sorted by name)
	server  *mcp.Server   // the upstream surface

	buildMu sync.Mutex      // one rebuild at a time
	engine  *hostapi.Engine // guarded by buildMu; also in every generation
	genMu   sync.RWMutex
	gen     *generation // nil before the first build
	stale   string      // guarded by genMu: why the last build failed ("" when it did not)
	history history     // guarded by genMu: the recent catalogs (history.go)
	dirty   chan struct{}

	imported     map[string]*serverTools  // guarded by buildMu: each server's last import (isolate.go)
	importFailed map[string]importFailure // guarded by buildMu: lists that did not import
	position     map[string]int           // a server's place in the config file
	buildFault   func() error             // tests only: makes a build fail for no server's fault
	onSwap       func(*generation)

	exposed exposedTools
	ops     *operations // metrics, audit, draining (audit.go)

	pol   policyState                   // the per-client policy serving (policy.go)
	authn atomic.Pointer[Authenticator] // the HTTP endpoint's, reloaded with the policy; nil: none
	http  atomic.Bool                   // an HTTP endpoint was made (HTTPHandlerWith): its authentication is fixed at start

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// New makes a gateway for cfg; Start brings it up.
func New(cfg *Config, opts Options) *Gateway {
	opts = opts.withDefaults()
	g := &Gateway{opts: opts, log: opts.Logger, dirty: make(chan struct{}, 1), position: map[string]int{}}
	order := cfg.FileOrder
	if len(order) == 0 {
		for _, s := range cfg.Servers {
			order = append(order, s.Name)
		}
	}
	for _, name := range order {
		if _, seen := g.position[name]; !seen {
			g.position[name] = len(g.position)
		}
	}
	for _, s := range cfg.Servers {
		g.servers = append(g.servers, newDownstream(s, opts, g.log, g.markDirty))
	}
	g.server = g.newServer()
	if cfg.Policy != nil {
		g.pol.current.Store(cfg.Policy)
	}
	g.ops = newOperations(g, cfg)
	g.server.AddReceivingMiddleware(g.observe)
	return g
}

// Start starts every downstream server, waits up to StartupWait for their
// tool lists, builds the first catalog and keeps it live until Close. A
// server that is slow or fails does not fail Start: it is restarted in the
// background and joins the catalog when it comes up.
func (g *Gateway) Start(ctx context.Context) error {
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	g.stop = stop
	for _, d := range g.servers {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			d.run(run)
		}()
	}
	deadline := time.NewTimer(g.opts.StartupWait)
	defer deadline.Stop()
	for _, d := range g.servers {
		select {
		case <-d.ready:
		case <-deadline.C:
		case <-ctx.Done():
			g.Close()
			return ctx.Err()
		}
	}
	for _, d := range g.servers {
		if _, _, status := d.state(); status != "up" {
			g.log.Warn("server not up at start; the catalog goes on without it until it is", "server", d.cfg.Name, "status", status)
		}
	}
	select {
	case <-g.dirty: // the build below includes whatever was signalled
	default:
	}
	g.rebuild(run)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		for {
			select {
			case <-run.Done():
				return
			case <-g.dirty:
				g.rebuild(run)
			}
		}
	}()
	return nil
}

func (g *Gateway) markDirty() {
	select {
	case g.dirty <- struct{}{}:
	default:
	}
}

// Close stops every downstream server (children get their stdin closed,
// then SIGTERM) and the engine, and waits for them. It is idempotent.
func (g *Gateway) Close() {
	if g.stop != nil {
		g.stop()
	}
	g.wg.Wait()
	g.buildMu.Lock()
	defer g.buildMu.Unlock()
	if g.engine != nil {
		_ = g.engine.Close(context.Background())
		g.engine = nil
	}
}

// Server is the upstream MCP server, for a transport of the caller's
// choice (tests connect an in-memory client to it).
func (g *Gateway) Server() *mcp.Server { return g.server }

// ServerStatus is one downstream server's state, as the status lines of
// search_tools show it.
type ServerStatus struct {
	Name     string
	Up       bool
	Tools    int
	Status   string // "up", "starting" or "down: <why>"
	Restarts int
	// LeftOut says why the server's tools are not in the catalog while it
	// is up (over a limit, not importable); "" when they are.
	LeftOut string
}

// Status lists every server's state, in config order.
func (g *Gateway) Status() []ServerStatus {
	leftOut := map[string]string{}
	if gen := g.current(); gen != nil {
		for _, u := range gen.unavailable {
			leftOut[u.server] = u.reason
		}
	}
	out := make([]ServerStatus, 0, len(g.servers))
	for _, d := range g.servers {
		d.mu.Lock()
		st := ServerStatus{Name: d.cfg.Name, Up: d.session != nil, Tools: len(d.tools), Status: d.status, Restarts: d.restarts}
		d.mu.Unlock()
		if st.Up {
			st.LeftOut = leftOut[st.Name]
		}
		out = append(out, st)
	}
	return out
}
