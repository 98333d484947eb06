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
//	                                     F: dws, toolsift, mcp, openai, anthropic, beir
//	wasmhost info                        hashes, tool count, profile, sizes
//	wasmhost eval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv
//	                                     ranking quality on a labelled benchmark
//
// Every command takes --engine (wasm, the default: the WebAssembly module on
// wazero; or native: the Go core in this process), --snapshot FILE (default:
// the built-in DWS snapshot) and --catalog PATH with --format F (a catalog
// to index instead).
// Both engines answer with the same bytes. Errors print as
// {"error":{…}} on stderr with exit code 3 (validation), 5 (internal) or 6
// (discovery); in --batch mode they print on stdout in the failing request's
// place and the exit code stays 0.
package main

import (
	"fmt"
	"io"
	"os"
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
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wasmhost: unknown command %q\n\n%s", args[0], usage)
	return 2
}
