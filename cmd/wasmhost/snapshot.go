package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/core/importer/dws"
	"github.com/toolsift/toolsift/hostapi"
	"github.com/toolsift/toolsift/wasm"
)

// runSnapshot: wasmhost snapshot build --format FORMAT --in PATH -o FILE.snap
func runSnapshot(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "build" {
		fmt.Fprintln(stderr, "usage: wasmhost snapshot build --format FORMAT --in PATH -o FILE.snap [--engine wasm|native]\nformats: "+strings.Join(importer.Formats(), ", "))
		return 2
	}
	fs := flag.NewFlagSet("wasmhost snapshot build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", dws.Format, "catalog format of --in: "+strings.Join(importer.Formats(), ", "))
	in := fs.String("in", "", "catalog file (for dws also a directory of catalog.json + tools/<product>.json, or a .tar.gz of it)")
	out := fs.String("o", "", "snapshot file to write")
	engineName := fs.String("engine", "wasm", "engine that builds it: wasm (the module) or native (the Go core); the bytes are the same")
	var common engineFlags
	fs.StringVar(&common.cacheDir, "cache-dir", defaultCacheDir(), `where compiled module code is cached between runs ("" disables the cache)`)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *in == "" || *out == "" {
		fmt.Fprintln(stderr, "wasmhost snapshot build: --in and -o are required")
		return 2
	}
	snap, err := buildSnapshot(context.Background(), *engineName, *format, *in, common.hostOptions()...)
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, snap, 0o644); err != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", err)
		return 1
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
		return 2
	}
	ctx := context.Background()
	b, err := common.open(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "wasmhost: %v\n", err)
		return 1
	}
	defer b.Close()
	report := struct {
		catalogInfo
		ModuleBytes   int             `json:"module_bytes"`
		ModuleVersion json.RawMessage `json:"module_version,omitempty"`
	}{catalogInfo: b.Info(), ModuleBytes: len(wasm.Binary)}
	if common.engine == "wasm" {
		if v, err := hostapi.ModuleVersion(ctx, common.hostOptions()...); err == nil {
			report.ModuleVersion = json.RawMessage(v)
		}
	}
	out, _ := json.MarshalIndent(report, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}
