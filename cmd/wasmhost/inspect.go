package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
)

func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common      engineFlags
		path        = fs.String("path", "", "canonical path (chat.query_msg_read_status) or CLI path (chat message read-status)")
		sourceHash  = fs.String("expected-source-hash", "", "catalog.source_hash from the search response")
		surfaceHash = fs.String("expected-surface-hash", "", "catalog.surface_hash from the search response")
		requestJSON = fs.String("request-json", "", `read one schema-inspect.v1 request object from stdin; the value must be "-"`)
	)
	common.register(fs)
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wasmhost inspect: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var request []byte
	switch transport := strings.TrimSpace(*requestJSON); {
	case transport == "":
		encoded, err := json.Marshal(wire.InspectRequest{
			Version: wire.InspectVersion, CanonicalPath: *path,
			ExpectedSourceHash: *sourceHash, ExpectedSurfaceHash: *surfaceHash,
		})
		if err != nil {
			return printError(stderr, wire.Internal("encode_failed", err.Error()))
		}
		request = encoded
	case transport != "-":
		return printError(stderr, wire.Validation("invalid_transport", "--request-json only accepts - (standard input)"))
	default:
		for _, name := range []string{"path", "expected-source-hash", "expected-surface-hash"} {
			if set[name] {
				return printError(stderr, wire.Validation("ambiguous_input", "--request-json cannot be combined with --"+name))
			}
		}
		var werr *wire.Error
		if request, werr = readRequest(stdin); werr != nil {
			return printError(stderr, werr)
		}
	}

	ctx := context.Background()
	engine, err := common.open(ctx)
	if err != nil {
		return fail(stderr, err)
	}
	defer engine.Close(ctx)
	response, err := engine.Inspect(ctx, request)
	if err != nil {
		return printError(stderr, typed(err))
	}
	stdout.Write(append(response, '\n'))
	return 0
}
