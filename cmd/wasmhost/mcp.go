package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/gateway"
)

// runMCP: wasmhost mcp --config servers.json [--listen 127.0.0.1:PORT]
// serves the MCP gateway (package gateway) over stdio, or streamable HTTP
// with --listen. Only flags are wired here.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", `servers to front, in the MCP clients' shape: {"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`)
	listen := fs.String("listen", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) instead of stdio")
	expose := fs.String("expose", "none", "none, or found: add the tools a search returns to the gateway's own tools/list")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on every request to a downstream server (a server's timeoutSeconds overrides it)")
	startupWait := fs.Duration("startup-wait", 0, "how long to wait for the servers' tool lists before serving (0: --timeout)")
	allowOrigin := fs.String("allow-origin", "", "with --listen: browser origins (scheme://host:port, comma-separated) whose requests are served; any other Origin is refused")
	sessionIdle := fs.Duration("session-idle", 30*time.Minute, "with --listen: close a session idle this long (negative: never)")
	stateless := fs.Bool("stateless", false, "with --listen: serve every request without a session, so that any replica answers any request")
	reloadEvery := fs.Duration("reload-interval", 2*time.Second, "how often the config file is read for a changed policy (SIGHUP reloads at once; 0: on SIGHUP only)")
	var common engineFlags
	fs.StringVar(&common.cacheDir, "cache-dir", defaultCacheDir(), `where compiled module code is cached between runs ("" disables the cache)`)
	common.registerMemoryLimit(fs)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if *configPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: wasmhost mcp --config servers.json [--listen 127.0.0.1:PORT] [--expose none|found] [--timeout 30s]")
		return 2
	}
	if *expose != "none" && *expose != "found" {
		return printError(stderr, wire.Validation("invalid_flag", fmt.Sprintf("--expose %q: want none or found", *expose)))
	}
	var origins []string
	if *allowOrigin != "" {
		for _, o := range strings.Split(*allowOrigin, ",") {
			o = strings.TrimSpace(o)
			if err := gateway.CheckOrigin(o); err != nil {
				return printError(stderr, wire.Validation("invalid_flag", "--allow-origin: "+err.Error()))
			}
			origins = append(origins, o)
		}
	}
	if *sessionIdle == 0 {
		return printError(stderr, wire.Validation("invalid_flag", "--session-idle 0: give a duration, or a negative one for never"))
	}
	if *listen != "" {
		if err := loopbackOnly(*listen); err != nil {
			return printError(stderr, wire.Validation("invalid_listen_address", err.Error()))
		}
	}
	if *stateless && *listen == "" {
		return printError(stderr, wire.Validation("invalid_flag", "--stateless applies to --listen (HTTP) only"))
	}
	cfg, err := gateway.LoadConfig(*configPath)
	if err != nil {
		return printError(stderr, wire.Validation("invalid_config", err.Error()))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := gateway.New(cfg, gateway.Options{
		Timeout: *timeout, StartupWait: *startupWait, ExposeFound: *expose == "found",
		Logger:      slog.New(slog.NewTextHandler(stderr, nil)),
		HostOptions: common.hostOptions(),
	})
	if err := g.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return 0 // SIGINT or SIGTERM while starting: the children are stopped
		}
		return fail(stderr, stage("start the gateway", "", err))
	}
	defer g.Close()
	// The policy is reloaded without a restart: on SIGHUP, and when the
	// file's bytes change.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go g.WatchConfig(ctx, *configPath, *reloadEvery, hup)
	if *listen == "" {
		err = g.ServeStdio(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
	} else {
		err = serveHTTP(ctx, *listen, g.HTTPHandlerWith(gateway.HTTPOptions{AllowedOrigins: origins, SessionIdle: *sessionIdle, Stateless: *stateless}), stderr)
	}
	if err != nil && ctx.Err() == nil {
		return fail(stderr, stage("serve", "", err))
	}
	return 0
}

// loopbackOnly refuses a listen address off this machine: the gateway
// runs tools, and its HTTP endpoint has no authentication of its own.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %v (want 127.0.0.1:PORT)", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %q: only a loopback address (127.0.0.1, [::1], localhost) is served; the gateway's HTTP endpoint has no authentication", addr)
	}
	return nil
}

func serveHTTP(ctx context.Context, addr string, handler http.Handler, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// Slow headers and idle keep-alive connections are the server's to
	// bound; slow bodies are the handler's (408).
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stderr, "wasmhost mcp: serving streamable HTTP on http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- server.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdown)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
