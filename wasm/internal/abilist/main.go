// Command abilist prints the exports and imports of a WebAssembly module, one
// per line with its signature, sorted: the plain list committed as
// wasm/exports.txt, so that a change to the module's surface shows in review.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: abilist MODULE.wasm")
		os.Exit(2)
	}
	wasm, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	compiled, err := r.CompileModule(ctx, wasm)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var lines []string
	for name, def := range compiled.ExportedFunctions() {
		lines = append(lines, "export func "+name+signature(def))
	}
	for name := range compiled.ExportedMemories() {
		lines = append(lines, "export memory "+name)
	}
	for _, def := range compiled.ImportedFunctions() {
		module, name, _ := def.Import()
		lines = append(lines, "import func "+module+"."+name+signature(def))
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}

func signature(def api.FunctionDefinition) string {
	names := func(types []api.ValueType) string {
		parts := make([]string, len(types))
		for i, t := range types {
			parts[i] = api.ValueTypeName(t)
		}
		return strings.Join(parts, ", ")
	}
	return "(" + names(def.ParamTypes()) + ") -> (" + names(def.ResultTypes()) + ")"
}
