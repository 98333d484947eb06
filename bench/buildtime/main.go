// Command buildtime measures a snapshot build through the module on wazero
// (hostapi.BuildSnapshot): the median process CPU time and wall time of five
// builds of one catalog, after a warm-up build, for each module given.
//
//	go run ./bench/buildtime FORMAT CATALOG [MODULE.wasm ...]   (default: the embedded module)
//	go run ./bench/buildtime FORMAT CATALOG native              (the Go core, compile.FromCatalog)
//
// bench/buildtime/build.mjs and build.py measure the same in Node and Python;
// mkcatalog.py makes the MCP catalog docs/BENCHMARKS.md uses.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/toolsift/toolsift/core/compile"
	"github.com/toolsift/toolsift/core/importer"
	"github.com/toolsift/toolsift/hostapi"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: buildtime FORMAT CATALOG [MODULE.wasm ...]")
		os.Exit(2)
	}
	ctx := context.Background()
	catalog, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	modules := os.Args[3:]
	if len(modules) == 0 {
		modules = []string{""}
	}
	for _, path := range modules {
		if path == "native" {
			native(os.Args[1], catalog)
			continue
		}
		var opts []hostapi.Option
		name := "embedded module"
		if path != "" {
			wasm, err := os.ReadFile(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			opts, name = append(opts, hostapi.WithModule(wasm)), path
		}
		if _, err := hostapi.BuildSnapshot(ctx, os.Args[1], catalog, opts...); err != nil { // warm-up: compile
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var cpu, wall []float64
		for range 5 {
			before, start := cpuSeconds(), time.Now()
			if _, err := hostapi.BuildSnapshot(ctx, os.Args[1], catalog, opts...); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			wall = append(wall, time.Since(start).Seconds())
			cpu = append(cpu, cpuSeconds()-before)
		}
		slices.Sort(cpu)
		slices.Sort(wall)
		fmt.Printf("wazero, %s: cpu median %.2f s (%.2f–%.2f), wall median %.2f s\n", name, cpu[2], cpu[0], cpu[4], wall[2])
	}
}

// cpuSeconds is the process's user and system CPU time so far: on a shared
// machine it moves less with other people's load than wall time does.
func cpuSeconds() float64 {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// native measures the same build in the Go core, without a module: the
// cost of the import and index code itself, apart from wazero's.
func native(format string, catalog []byte) {
	build := func() {
		if _, _, err := compile.FromCatalog(format, catalog, importer.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	build() // warm-up, as for the module
	var cpu, wall []float64
	for range 5 {
		before, start := cpuSeconds(), time.Now()
		build()
		wall = append(wall, time.Since(start).Seconds())
		cpu = append(cpu, cpuSeconds()-before)
	}
	slices.Sort(cpu)
	slices.Sort(wall)
	fmt.Printf("native: cpu median %.3f s (%.3f–%.3f), wall median %.3f s\n", cpu[2], cpu[0], cpu[4], wall[2])
}
