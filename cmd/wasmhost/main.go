// Command wasmhost searches and inspects a tool catalog from the command
// line, speaking the same tool-search.v1 and schema-inspect.v1 wire as every
// other host.
//
//	wasmhost search --query "给群里发送文件" [--limit N] [--candidate-limit N]
//	                [--product p,…] [--effect e,…] [--exclude c,…] [--explain]
//	wasmhost search --request-json -     one request object on stdin
//	wasmhost search --batch              one request per stdin line, one answer per stdout line
//	wasmhost inspect --request-json -    one schema-inspect.v1 request on stdin
//	wasmhost inspect --path P --expected-source-hash H1 --expected-surface-hash H2
//	wasmhost snapshot build --format F --in PATH -o FILE.snap
//	                                     F: dws, toolsift, mcp, openai, anthropic, beir, openapi
//	wasmhost info                        hashes, tool count, profile, sizes
//	wasmhost eval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv
//	                                     ranking quality on a labelled benchmark
//	wasmhost lint [--catalog FILE --format F | --snapshot FILE | --mcp-config servers.json]
//	              [--expect FILE] [--json] [--fail-on LEVEL]
//	                                     what an agent will not find, confuse or should not trust (toolsift.lint.v1)
//	wasmhost mcp --config servers.json [--listen 127.0.0.1:PORT]
//	                                     the MCP gateway (package gateway; docs/MCP.md)
//
// Every command takes --engine (wasm, the default: the WebAssembly module on
// wazero; or native: the Go core in this process), --snapshot FILE (default:
// the built-in DWS snapshot) and --catalog PATH with --format F (a catalog
// to index instead).
// Both engines answer with the same bytes. Errors print as one
// {"error":{…}} line on stderr with exit code 3 (validation), 5 (internal) or
// 6 (discovery); in --batch mode they print on stdout in the failing
// request's place and the exit code stays 0. A bad flag prints the usage
// with exit code 2; -h prints it with 0. wasmhost --version prints the
// module's version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: wasmhost <command> [flags]

commands:
  search           rank the catalog's tools for a query (tool-search.v1)
  inspect          show one tool's compact spec, checked against the catalog hashes (schema-inspect.v1)
  snapshot build   index a catalog into a snapshot file
  info             what the engine serves: catalog hashes, tool count, profile, sizes
  eval             ranking quality on a labelled benchmark (nDCG, Recall, MRR) or the DWS proxy sets
  lint             what an agent will not find, will confuse or should not trust in a catalog (toolsift.lint.v1)
  mcp              an MCP server in front of the servers of a config file: search, inspect and call over one live catalog
  version          the module's version: ABI, snapshot format, profiles, catalog formats (also --version)

run "wasmhost <command> -h" for the flags of a command.
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "search":
		return runSearch(args[1:], stdin, stdout, stderr)
	case "inspect":
		return runInspect(args[1:], stdin, stdout, stderr)
	case "snapshot":
		return runSnapshot(args[1:], stdout, stderr)
	case "info":
		return runInfo(args[1:], stdout, stderr)
	case "eval":
		return runEval(args[1:], stdout, stderr)
	case "lint":
		return runLint(args[1:], stdout, stderr)
	case "mcp":
		return runMCP(args[1:], stdin, stdout, stderr)
	case "version", "-version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wasmhost: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// runVersion prints the module's toolsift_version JSON (ABI, snapshot
// format, profiles, catalog formats) on one line.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common engineFlags
	fs.StringVar(&common.cacheDir, "cache-dir", defaultCacheDir(), `where compiled module code is cached between runs ("" disables the cache)`)
	common.registerMemoryLimit(fs)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	version, err := hostapi.ModuleVersion(context.Background(), common.hostOptions()...)
	if err != nil {
		return fail(stderr, stage("read the module version", "", err))
	}
	fmt.Fprintln(stdout, version)
	return 0
}

// parseFailed is the exit code of a flag set's Parse error: 0 for -h (the
// usage was asked for and printed), 2 for a bad flag.
func parseFailed(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// stageError is the failure of one step of a command (reading the
// snapshot, importing the catalog, opening it in the module): what names the
// step; reason is the validation reason to report when err carries no typed
// error of its own, or "" when such a failure is the host's (internal).
type stageError struct {
	what, reason string
	err          error
}

func (e *stageError) Error() string { return e.what + ": " + e.err.Error() }

func (e *stageError) Unwrap() error { return e.err }

func stage(what, reason string, err error) error {
	return &stageError{what: what, reason: reason, err: err}
}

// cliError is the wire error a command's failure prints as: the typed error
// inside it (the module's, the core's) with the step's name before its
// message, a validation error for a step that failed on the caller's input
// (a missing file), else an internal one.
func cliError(err error) *wire.Error {
	prefix := ""
	var step *stageError
	if errors.As(err, &step) {
		prefix = step.what + ": "
	}
	var werr *wire.Error
	switch {
	case errors.As(err, &werr):
		return &wire.Error{Category: werr.Category, Code: werr.Code, Reason: werr.Reason, Message: prefix + werr.Message}
	case step != nil && step.reason != "":
		return wire.Validation(step.reason, err.Error())
	}
	return typed(err)
}

// fail prints err as the one-line error object and returns its exit code.
func fail(w io.Writer, err error) int { return printError(w, cliError(err)) }

// printError writes the error object, compact on one line, to w and returns
// its exit code (3 validation, 5 internal, 6 discovery).
func printError(w io.Writer, werr *wire.Error) int {
	w.Write(append(werr.AppendJSON(nil), '\n'))
	return werr.Code
}
