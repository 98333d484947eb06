package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

func runSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmhost search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common         engineFlags
		query          = fs.String("query", "", "natural-language intent, or a canonical / CLI path")
		limit          = fs.Int("limit", wire.DefaultLimit, fmt.Sprintf("references to return (1-%d; 0 means %d)", wire.MaxLimit, wire.DefaultLimit))
		candidateLimit = fs.Int("candidate-limit", wire.DefaultCandidateLimit, fmt.Sprintf("candidates retrieved before the cut (1-%d; 0 means %d)", wire.MaxCandidateLimit, wire.DefaultCandidateLimit))
		products       listFlag
		effects        listFlag
		excluded       listFlag
		requestJSON    = fs.String("request-json", "", `read one tool-search.v1 request object from stdin; the value must be "-"`)
		batch          = fs.Bool("batch", false, "read newline-delimited tool-search.v1 requests from stdin and answer each on one stdout line")
	)
	common.register(fs)
	fs.Var(&products, "product", "only these product IDs (repeatable, comma-separated)")
	fs.Var(&effects, "effect", "only these effects: read, write, destructive (repeatable, comma-separated)")
	fs.Var(&excluded, "exclude", "never these canonical paths (repeatable, comma-separated)")
	fs.BoolVar(&common.explain, "explain", false, "attach score_breakdown (raw scores) to every candidate; for tuning, not for agents")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wasmhost search: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var request []byte
	if !*batch {
		var werr *wire.Error
		request, werr = searchRequestFromFlags(set, strings.TrimSpace(*requestJSON), stdin, wire.SearchRequest{
			Version:          wire.SearchVersion,
			Query:            *query,
			Limit:            *limit,
			CandidateLimit:   *candidateLimit,
			ProductIDs:       products.values,
			Effects:          effects.values,
			ExcludeCanonical: excluded.values,
		})
		if werr != nil {
			return printError(stderr, werr)
		}
	} else {
		for _, name := range []string{"request-json", "query", "limit", "candidate-limit", "product", "effect", "exclude"} {
			if set[name] {
				return printError(stderr, wire.Validation("ambiguous_input", "--batch reads whole requests from stdin and cannot be combined with --"+name))
			}
		}
	}

	ctx := context.Background()
	engine, err := common.open(ctx)
	if err != nil {
		return fail(stderr, err)
	}
	defer engine.Close(ctx)
	if *batch {
		return searchBatch(ctx, &common, engine, stdin, stdout, stderr)
	}
	response, werr := common.search(ctx, engine, request)
	if werr != nil {
		return printError(stderr, werr)
	}
	stdout.Write(append(response, '\n'))
	return 0
}

// searchRequestFromFlags returns the request bytes: stdin for --request-json -,
// else the flags encoded as a request.
func searchRequestFromFlags(set map[string]bool, requestJSON string, stdin io.Reader, fromFlags wire.SearchRequest) ([]byte, *wire.Error) {
	if requestJSON == "" {
		request, err := json.Marshal(fromFlags)
		if err != nil {
			return nil, wire.Internal("encode_failed", err.Error())
		}
		return request, nil
	}
	if requestJSON != "-" {
		return nil, wire.Validation("invalid_transport", "--request-json only accepts - (standard input)")
	}
	for _, name := range []string{"query", "limit", "candidate-limit", "product", "effect", "exclude"} {
		if set[name] {
			return nil, wire.Validation("ambiguous_input", "--request-json cannot be combined with --"+name)
		}
	}
	return readRequest(stdin)
}

// readRequest reads one request from r, refusing more than MaxRequestBytes.
func readRequest(r io.Reader) ([]byte, *wire.Error) {
	data, err := io.ReadAll(io.LimitReader(r, wire.MaxRequestBytes+1))
	if err != nil {
		return nil, wire.Validation("read_request_failed", "cannot read the request: "+err.Error())
	}
	if len(data) > wire.MaxRequestBytes {
		return nil, wire.RequestTooLarge("the")
	}
	return data, nil
}

// searchBatch answers every input line, in order, with one output line: the
// compact response or the compact error object. A blank line is answered
// too (invalid_request_json, as the engine answers an empty request), so
// that output line n answers input line n. A line over the request budget
// is answered with request_too_large without being held in memory.
func searchBatch(ctx context.Context, f *engineFlags, engine *hostapi.Engine, stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReaderSize(stdin, wire.MaxRequestBytes+2)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var line []byte
	for {
		chunk, err := in.ReadSlice('\n')
		tooLarge := false
		if errors.Is(err, bufio.ErrBufferFull) {
			tooLarge = true
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = in.ReadSlice('\n')
			}
			chunk = nil
		}
		if err != nil && err != io.EOF {
			out.Flush()
			return printError(stderr, wire.Validation("read_request_failed", "cannot read stdin: "+err.Error()))
		}
		if err == io.EOF && len(chunk) == 0 && !tooLarge {
			return 0 // the input ended with a newline (or was empty): no further line
		}
		line = append(line[:0], bytes.TrimRight(chunk, "\r\n")...)
		var answer []byte
		var werr *wire.Error
		if tooLarge {
			werr = wire.RequestTooLarge("the")
		} else {
			answer, werr = f.search(ctx, engine, line)
		}
		if werr != nil {
			answer = werr.AppendJSON(nil)
		}
		out.Write(answer)
		out.WriteByte('\n')
		if err == io.EOF {
			return 0
		}
	}
}
