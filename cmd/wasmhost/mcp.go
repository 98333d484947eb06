package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
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
	listen := fs.String("listen", "", `serve streamable HTTP on this address instead of stdio: a loopback one (127.0.0.1:PORT), or any other with "auth" in the config and TLS`)
	expose := fs.String("expose", "none", "none, or found: add the tools a search returns to the gateway's own tools/list")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on every request to a downstream server (a server's timeoutSeconds overrides it)")
	startupWait := fs.Duration("startup-wait", 0, "how long to wait for the servers' tool lists before serving (0: --timeout)")
	allowOrigin := fs.String("allow-origin", "", "with --listen: browser origins (scheme://host:port, comma-separated) whose requests are served; any other Origin is refused")
	sessionIdle := fs.Duration("session-idle", 30*time.Minute, "with --listen: close a session idle this long (negative: never)")
	stateless := fs.Bool("stateless", false, "with --listen: serve every request without a session, so that any replica answers any request")
	reloadEvery := fs.Duration("reload-interval", 2*time.Second, "how often the config file is read for a changed policy (SIGHUP reloads at once; 0: on SIGHUP only)")
	tlsCert := fs.String("tls-cert", "", `with --listen: serve HTTPS with this certificate (PEM; with --tls-key; overrides the config's "tls")`)
	tlsKey := fs.String("tls-key", "", "with --listen: the private key of --tls-cert (PEM)")
	tlsProxy := fs.Bool("tls-terminated-by-proxy", false, "with --listen: a proxy in front terminates TLS, so plain HTTP may be served on a non-loopback address")
	opsListen := fs.String("ops-listen", "", "with --listen: also serve /healthz, /readyz and /metrics on this address, without authentication")
	drainTimeout := fs.Duration("drain-timeout", gateway.DefaultDrainTimeout, "with --listen: on SIGTERM, how long the requests in flight may take to finish")
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
		if _, _, err := net.SplitHostPort(*listen); err != nil {
			return printError(stderr, wire.Validation("invalid_listen_address", fmt.Sprintf("--listen %q: %v (want HOST:PORT)", *listen, err)))
		}
	}
	if *stateless && *listen == "" {
		return printError(stderr, wire.Validation("invalid_flag", "--stateless applies to --listen (HTTP) only"))
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return printError(stderr, wire.Validation("invalid_flag", "--tls-cert and --tls-key go together"))
	}
	if *drainTimeout <= 0 {
		return printError(stderr, wire.Validation("invalid_flag", "--drain-timeout: give a positive duration"))
	}
	cfg, err := gateway.LoadConfig(*configPath)
	if err != nil {
		return printError(stderr, wire.Validation("invalid_config", err.Error()))
	}
	tlsConfig := cfg.TLS
	if *tlsCert != "" {
		tlsConfig = gateway.TLSConfig{Cert: *tlsCert, Key: *tlsKey}
	}
	if *tlsProxy {
		tlsConfig.TerminatedByProxy = true
	}
	var authn *gateway.Authenticator
	if *listen != "" {
		if err := gateway.CheckListen(*listen, cfg.Auth, tlsConfig); err != nil {
			return printError(stderr, wire.Validation("invalid_listen_address", err.Error()))
		}
		if authn, err = gateway.NewAuthenticator(cfg.Auth, nil); err != nil {
			return printError(stderr, wire.Validation("invalid_config", err.Error()))
		}
		// A certificate that does not load is found before any server
		// starts.
		if _, err := tlsConfig.Load(); err != nil {
			return printError(stderr, wire.Validation("invalid_config", err.Error()))
		}
	}
	audit := slog.New(slog.NewJSONHandler(stderr, nil))
	if cfg.Audit.File != "" {
		f, err := os.OpenFile(cfg.Audit.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return printError(stderr, wire.Validation("invalid_config", fmt.Sprintf(`"audit": "file": %v`, err)))
		}
		defer f.Close()
		audit = slog.New(slog.NewJSONHandler(f, nil))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := gateway.New(cfg, gateway.Options{
		Timeout: *timeout, StartupWait: *startupWait, ExposeFound: *expose == "found",
		Logger:      slog.New(slog.NewTextHandler(stderr, nil)),
		AuditLogger: audit,
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
		handler := g.HTTPHandlerWith(gateway.HTTPOptions{AllowedOrigins: origins, SessionIdle: *sessionIdle, Stateless: *stateless, Auth: authn})
		err = g.ListenAndServe(ctx, handler, gateway.ServeOptions{Listen: *listen, OpsListen: *opsListen, TLS: tlsConfig,
			DrainTimeout: *drainTimeout, Log: stderr})
	}
	if err != nil && ctx.Err() == nil {
		return fail(stderr, stage("serve", "", err))
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
