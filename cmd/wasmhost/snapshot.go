package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolsift/toolsift/hostapi"
	"github.com/toolsift/toolsift/wasm"
)

// runSnapshot: wasmhost snapshot build --format FORMAT --in PATH -o FILE.snap
func runSnapshot(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "build" {
		fmt.Fprintln(stderr, "usage: wasmhost snapshot build --format FORMAT --in PATH -o FILE.snap [--engine wasm|native] [--profile NAME] [--product NAME] [--strict]\nformats: "+strings.Join(hostapi.Formats(), ", "))
		return 2
	}
	fs := flag.NewFlagSet("wasmhost snapshot build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "dws", "catalog format of --in: "+strings.Join(hostapi.Formats(), ", "))
	in := fs.String("in", "", "catalog file (for dws also a directory of catalog.json + tools/<product>.json, or a .tar.gz of it)")
	out := fs.String("o", "", "snapshot file to write")
	engineName := fs.String("engine", defaultBuildEngine, "engine that builds it: native (the Go core, fast) or wasm (the module, as hosts without Go build); the bytes are the same")
	profileName := fs.String("profile", "", "ranking profile: "+strings.Join(hostapi.Profiles(), ", ")+" (default: the format's; builds natively)")
	strict := fs.Bool("strict", false, "refuse the catalog when one tool is malformed, instead of repairing the detail or skipping the tool (builds natively)")
	product := fs.String("product", "", `name the product of tools whose input names none (a plain MCP tools/list, OpenAI tools outside a namespace, Anthropic tools), instead of "tools" (builds natively)`)
	var common engineFlags
	fs.StringVar(&common.cacheDir, "cache-dir", defaultCacheDir(), `where compiled module code is cached between runs ("" disables the cache)`)
	common.registerMemoryLimit(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return parseFailed(err)
	}
	if *in == "" || *out == "" {
		fmt.Fprintln(stderr, "wasmhost snapshot build: --in and -o are required")
		return 2
	}
	var importOpts []hostapi.Option
	if *profileName != "" {
		importOpts = append(importOpts, hostapi.WithProfile(*profileName))
	}
	if *strict {
		importOpts = append(importOpts, hostapi.WithStrictImport())
	}
	if *product != "" {
		importOpts = append(importOpts, hostapi.WithDefaultProduct(*product))
	}
	snap, report, err := buildSnapshotReporting(context.Background(), *engineName, *format, *in, importOpts, stderr, common.hostOptions()...)
	if err != nil {
		return fail(stderr, err)
	}
	if report != nil {
		fmt.Fprint(stderr, report.Summary)
	}
	if err := os.WriteFile(*out, snap, 0o644); err != nil {
		return fail(stderr, stage("write snapshot", "write_snapshot_failed", err))
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", *out, len(snap))
	return 0
}

// runInfo prints what an engine serves: catalog hashes, tool count, profile,
// snapshot and module sizes.
func runInfo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost info", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common engineFlags
	common.register(fs)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	ctx := context.Background()
	snap, err := common.snapshotBytes(ctx)
	if err != nil {
		return fail(stderr, err)
	}
	e, err := common.openBytes(ctx, snap)
	if err != nil {
		return fail(stderr, err)
	}
	defer e.Close(ctx)
	report := struct {
		catalogInfo
		ModuleBytes   int             `json:"module_bytes"`
		ModuleVersion json.RawMessage `json:"module_version,omitempty"`
		Import        json.RawMessage `json:"import,omitempty"`
	}{catalogInfo: infoOf(e), ModuleBytes: len(wasm.Binary)}
	if stored, err := hostapi.StoredImportReport(snap); err == nil { // it opened, so it decodes
		report.Import = stored
	}
	if common.engine == "wasm" {
		if v, err := hostapi.ModuleVersion(ctx, common.hostOptions()...); err == nil {
			report.ModuleVersion = json.RawMessage(v)
		}
	}
	out, _ := json.MarshalIndent(report, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}
