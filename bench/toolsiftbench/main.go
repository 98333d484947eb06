// Command toolsiftbench is the Go side of `make bench` (see bench/README.md):
//
//	toolsiftbench prep    export the catalogs, their tool texts and queries
//	toolsiftbench run     measure toolsift natively or on wazero
//	toolsiftbench render  score every result and write docs/BENCHMARKS.md
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: toolsiftbench prep|run|render [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "prep":
		err = runPrep(os.Args[2:])
	case "run":
		err = runEngine(os.Args[2:])
	case "render":
		err = runRender(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolsiftbench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
