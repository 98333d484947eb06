package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/gateway"
	"github.com/toolsift/toolsift/hostapi"
)

// lintFindingsExit is the exit code of a lint whose findings reach
// --fail-on: distinct from the error codes (2 usage, 3 validation, 5
// internal, 6 discovery), so a CI can tell "the catalog has problems" from
// "lint could not run".
const lintFindingsExit = 1

// runLint: wasmhost lint [--catalog FILE --format F | --snapshot FILE |
// --mcp-config servers.json] [--expect FILE] [--json] [--fail-on LEVEL]
// prints the catalog's toolsift.lint.v1 report (core/lint) as a table, or
// its JSON with --json, computed by the chosen engine (the module by
// default; both give the same bytes).
func runLint(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost lint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common engineFlags
	common.register(fs)
	expectPath := fs.String("expect", "", `expectations: JSON Lines (or a JSON array) of {"query": "...", "tool": "<canonical path or name>"}; each gets its rank`)
	asJSON := fs.Bool("json", false, "print the toolsift.lint.v1 JSON (one line) instead of the table")
	failOn := fs.String("fail-on", "none", "exit with code 1 when a finding is at this level or above: info, warning, error, or none")
	mcpConfig := fs.String("mcp-config", "", "lint the catalog the MCP gateway assembles from this config (as wasmhost mcp --config), then exit")
	timeout := fs.Duration("timeout", 30*time.Second, "with --mcp-config: bound on every request to a downstream server")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: wasmhost lint [--catalog FILE --format F | --snapshot FILE | --mcp-config servers.json] [--expect FILE] [--json] [--fail-on info|warning|error|none]")
		return 2
	}
	switch *failOn {
	case "none", "info", "warning", "error":
	default:
		return printError(stderr, wire.Validation("invalid_flag", fmt.Sprintf("--fail-on %q: want info, warning, error or none", *failOn)))
	}
	ctx := context.Background()
	var expect []hostapi.LintExpectation
	if *expectPath != "" {
		var err error
		if expect, err = readExpectations(*expectPath); err != nil {
			return fail(stderr, err)
		}
	}
	var snap []byte
	var err error
	if *mcpConfig != "" {
		if common.catalog != "" || common.snapshotSet {
			return printError(stderr, wire.Validation("ambiguous_input", "--mcp-config, --catalog and --snapshot are mutually exclusive"))
		}
		snap, err = gatewaySnapshot(ctx, *mcpConfig, *timeout, common, stderr)
	} else {
		snap, err = lintCatalogSnapshot(ctx, &common)
	}
	if err != nil {
		return fail(stderr, err)
	}
	e, err := common.openBytes(ctx, snap)
	if err != nil {
		return fail(stderr, err)
	}
	defer e.Close(ctx)
	out, err := e.Lint(ctx, expect)
	if err != nil {
		return fail(stderr, stage("lint", "", err))
	}
	var report hostapi.LintReport
	if err := json.Unmarshal(out, &report); err != nil {
		return fail(stderr, stage("read the lint report", "", err))
	}
	if *asJSON {
		stdout.Write(append(out, '\n'))
	} else if err := report.WriteTable(stdout); err != nil {
		return fail(stderr, stage("write the report", "", err))
	}
	if *failOn != "none" && report.FailsAt(*failOn) {
		return lintFindingsExit
	}
	return 0
}

// lintCatalogSnapshot is the snapshot to lint: as every command's, except
// that an MCP catalog is imported natively for tool search, which keeps
// each tool's original definition, so that lint tells a tool without
// annotations from one that says destructiveHint: true (the same tools and
// index otherwise).
func lintCatalogSnapshot(ctx context.Context, common *engineFlags) ([]byte, error) {
	if common.catalog == "" || common.format != "mcp" || common.snapshotSet {
		return common.snapshotBytes(ctx)
	}
	data, err := readCatalog(common.format, common.catalog)
	if err != nil {
		return nil, err
	}
	return toolSearchSnapshot(ctx, data)
}

// toolSearchSnapshot imports an MCP catalog natively for tool search.
func toolSearchSnapshot(ctx context.Context, data []byte) ([]byte, error) {
	list, err := hostapi.FromMCPTools(ctx, data, hostapi.WithEngine(hostapi.NativeEngine))
	if err != nil {
		return nil, stage("import catalog", "invalid_catalog", err)
	}
	return list.Snapshot, nil
}

// readExpectations reads JSON Lines of {"query","tool"} (blank lines
// skipped), or one JSON array of them.
func readExpectations(path string) ([]hostapi.LintExpectation, error) {
	data, err := readInputFile("expectations", path)
	if err != nil {
		return nil, err
	}
	invalid := func(err error) error { return stage("read expectations "+path, "invalid_expectations", err) }
	decodeStrict := func(line []byte, v any) error {
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		return d.Decode(v)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		var expect []hostapi.LintExpectation
		if err := decodeStrict(trimmed, &expect); err != nil {
			return nil, invalid(err)
		}
		return expect, nil
	}
	var expect []hostapi.LintExpectation
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, len(data)+1)
	for n := 1; scanner.Scan(); n++ {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		var x hostapi.LintExpectation
		if err := decodeStrict(line, &x); err != nil {
			return nil, invalid(fmt.Errorf("line %d: %w", n, err))
		}
		expect = append(expect, x)
	}
	if err := scanner.Err(); err != nil {
		return nil, invalid(err)
	}
	return expect, nil
}

// gatewaySnapshot starts the MCP gateway on a config, waits for its
// servers' tool lists as `wasmhost mcp` does, and indexes the catalog it
// would serve (Gateway.CatalogJSON, the mcp format) natively, as the
// gateway does; the gateway is closed before lint runs.
func gatewaySnapshot(ctx context.Context, configPath string, timeout time.Duration, common engineFlags, stderr io.Writer) ([]byte, error) {
	cfg, err := gateway.LoadConfig(configPath)
	if err != nil {
		return nil, wire.Validation("invalid_config", err.Error())
	}
	g := gateway.New(cfg, gateway.Options{
		Timeout: timeout, Logger: slog.New(slog.NewTextHandler(stderr, nil)), HostOptions: common.hostOptions(),
	})
	if err := g.Start(ctx); err != nil {
		return nil, stage("start the gateway", "", err)
	}
	catalogJSON := g.CatalogJSON()
	g.Close()
	if catalogJSON == nil {
		return nil, wire.Validation("empty_catalog", "the gateway's servers listed no tools")
	}
	return toolSearchSnapshot(ctx, catalogJSON)
}
