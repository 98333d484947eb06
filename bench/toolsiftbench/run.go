package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"

	"github.com/toolsift/toolsift/bench/harness"
	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// runEngine measures one of our Go hosts on one catalog: -engine native
// (compile.Open, engine.SearchJSON) or wasm (hostapi on wazero).
func runEngine(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	var o harness.Options
	o.Flags(fs)
	which := fs.String("engine", "wasm", "native | wasm")
	memLimit := fs.Uint64("memory-limit", 0, "hostapi.WithMemoryLimit in bytes (0: the default)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (for reading where a query's time goes)")
	fs.Parse(args)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	snap, err := o.Snapshot()
	if err != nil {
		return err
	}
	res := &harness.Result{Host: "go", Tools: 0}
	var open func() (*harness.Engine, error)
	switch *which {
	case "native":
		res.Engine, res.Library = "toolsift native core", "toolsift (core/engine)"
		res.OpenWhat = "compile.Open (decode + validate the snapshot)"
		open = func() (*harness.Engine, error) {
			e, werr := compile.Open(snap)
			if werr != nil {
				return nil, werr
			}
			res.Tools = e.ToolCount()
			search := func(q string) (any, error) {
				out, werr := e.SearchJSON(request(q))
				if werr != nil {
					return nil, werr
				}
				return out, nil
			}
			return &harness.Engine{Search: search, Ranked: paths, Close: func() {}}, nil
		}
	case "wasm":
		res.Engine, res.Library = "toolsift wasm (wazero)", "toolsift hostapi, wazero v1.12.0"
		res.OpenWhat = "hostapi.Open: cold = first in process (compiles the module), warm = module compiled; instantiate + open the snapshot"
		var opts []hostapi.Option
		opts = append(opts, hostapi.WithMaxInstances(2))
		if *memLimit > 0 {
			opts = append(opts, hostapi.WithMemoryLimit(*memLimit))
			res.Engine = "toolsift wasm (wazero, " + strconv.FormatUint(*memLimit>>20, 10) + " MiB limit)"
		}
		ctx := context.Background()
		open = func() (*harness.Engine, error) {
			e, err := hostapi.Open(ctx, snap, opts...)
			if err != nil {
				return nil, err
			}
			res.Tools = e.Info().ToolCount
			search := func(q string) (any, error) { return e.Search(ctx, request(q)) }
			return &harness.Engine{Search: search, Ranked: paths, Close: func() { e.Close(ctx) }}, nil
		}
	default:
		return fmt.Errorf("unknown -engine %q", *which)
	}
	res.Ranking = "fielded BM25 (profile of the snapshot), dws-v1 tokenizer"
	harness.Measure(&o, res, open, true)
	return harness.Write(&o, res)
}

// request is the one request shape every toolsift host is sent.
func request(q string) []byte {
	b, _ := json.Marshal(struct {
		Version        string `json:"version"`
		Query          string `json:"query"`
		Limit          int    `json:"limit"`
		CandidateLimit int    `json:"candidate_limit"`
	}{wire.SearchVersion, q, 10, 20})
	return b
}

// paths lists the canonical paths of a response's candidates.
func paths(response any) ([]string, error) {
	var r struct {
		Candidates []struct {
			CanonicalPath string `json:"canonical_path"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(response.([]byte), &r); err != nil {
		return nil, err
	}
	out := make([]string, len(r.Candidates))
	for i, c := range r.Candidates {
		out[i] = c.CanonicalPath
	}
	return out, nil
}
