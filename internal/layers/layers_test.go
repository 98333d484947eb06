// Package layers holds the test that keeps the repository's layers as
// docs/ARCHITECTURE.md draws them: which package may import which. It reads
// the import graph with `go list`, so a new import that breaks a rule fails
// `make test` rather than waiting for a reviewer.
package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/toolsift/toolsift"

// imports is the module's import graph: package (relative to the module,
// "" for none) → its direct imports (module packages relative, others as
// they are), for non-test files of the host platform.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := relative(fields[0])
		for _, imp := range fields[1:] {
			graph[pkg] = append(graph[pkg], relative(imp))
		}
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
	}
	if len(graph) < 20 {
		t.Fatalf("go list found %d packages: not the module's tree", len(graph))
	}
	return graph
}

func relative(path string) string {
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return path
}

// isModule reports whether a relative path names one of the module's own
// top-level folders (a standard-library path such as "net/http" is not).
func isModule(path string) bool {
	top := strings.SplitN(path, "/", 2)[0]
	return slices.Contains([]string{"bench", "catalogs", "cmd", "core", "examples", "gateway", "hostapi", "internal", "testdata", "wasm"}, top)
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

// TestLayers checks the rules of docs/ARCHITECTURE.md against the import
// graph; each failure names the package, the import and the rule.
func TestLayers(t *testing.T) {
	for _, broken := range check(imports(t)) {
		t.Error(broken)
	}
}

// TestLayersCatchBreaks: each rule fails a graph that breaks it, so that a
// rule that can no longer fire (a renamed folder) is noticed.
func TestLayersCatchBreaks(t *testing.T) {
	graph := map[string][]string{
		"cmd/wasmhost":   {"hostapi", "core/wire", "core/engine"},
		"gateway":        {"hostapi", "core/wire", "internal/quality"},
		"core/engine":    {"core/wire", "hostapi", "github.com/some/lib"},
		"core/snapshot":  {"core/engine"},
		"core/wire":      nil,
		"hostapi":        {"core/wire", "gateway"},
		"internal/x":     {"bench/harness"},
		"catalogs/other": {"internal/fixtures"},
		"bench/harness":  nil,
		"core/compile":   nil,
		"catalogs/dws":   nil,
		"wasm":           nil,
		"testdata":       nil,
		"examples/x":     nil,
		"internal/y":     nil,
		"internal/z":     nil,
		"core/catalog":   nil,
		"core/importer":  nil,
		"core/profile":   nil,
		"core/provider":  nil,
		"core/lint":      nil,
		"core/text":      nil,
	}
	want := []string{
		"catalogs/other imports internal/fixtures: only tests and the lab read the test fixtures (internal/fixtures reads testdata/ by path)",
		"cmd/wasmhost imports core/engine: the front ends import hostapi and core/wire, no other core package",
		"core/engine imports github.com/some/lib: the core imports no host, front end, module or lab, and only its own third-party libraries",
		"core/engine imports hostapi: the core imports no host, front end, module or lab, and only its own third-party libraries",
		"core/snapshot imports core/engine: core/snapshot is the file format: no engine, importer, profile or build",
		"gateway imports internal/quality: the gateway imports hostapi and core/wire alone of the module",
		"hostapi imports gateway: hostapi is below the front ends: no gateway, cmd or bench",
		"internal/x imports bench/harness: the product imports nothing from the lab (bench/)",
	}
	var got []string
	for _, broken := range check(graph) {
		got = append(got, strings.TrimSuffix(broken, " (docs/ARCHITECTURE.md)"))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("check found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// check returns one line per import that breaks a rule.
func check(graph map[string][]string) []string {
	var broken []string
	pkgs := make([]string, 0, len(graph))
	for pkg := range graph {
		pkgs = append(pkgs, pkg)
	}
	slices.Sort(pkgs) // failures in a fixed order

	type rule struct {
		name  string
		to    func(pkg string) bool // the packages the rule is about
		allow func(imp string) bool // what they may import
	}
	thirdPartyOfCore := []string{"github.com/tinylib/msgp/", "golang.org/x/text/", "go.yaml.in/yaml/v3"}
	rules := []rule{
		{
			name: "the front ends import hostapi and core/wire, no other core package",
			to:   func(p string) bool { return p == "cmd/wasmhost" || p == "gateway" },
			allow: func(imp string) bool {
				return !under(imp, "core") || imp == "core/wire"
			},
		},
		{
			name: "the gateway imports hostapi and core/wire alone of the module",
			to:   func(p string) bool { return p == "gateway" },
			allow: func(imp string) bool {
				return !isModule(imp) || imp == "hostapi" || imp == "core/wire"
			},
		},
		{
			name: "the core imports no host, front end, module or lab, and only its own third-party libraries",
			to:   func(p string) bool { return under(p, "core") },
			allow: func(imp string) bool {
				if isModule(imp) {
					return under(imp, "core")
				}
				if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
					return true // the standard library
				}
				for _, prefix := range thirdPartyOfCore {
					if strings.HasPrefix(imp, prefix) || imp == strings.TrimSuffix(prefix, "/") {
						return true
					}
				}
				return false
			},
		},
		{
			name: "core/snapshot is the file format: no engine, importer, profile or build",
			to:   func(p string) bool { return p == "core/snapshot" },
			allow: func(imp string) bool {
				return !(under(imp, "core/engine") || under(imp, "core/importer") || imp == "core/profile" || imp == "core/compile")
			},
		},
		{
			name: "hostapi is below the front ends: no gateway, cmd or bench",
			to:   func(p string) bool { return p == "hostapi" },
			allow: func(imp string) bool {
				return !(under(imp, "gateway") || under(imp, "cmd") || under(imp, "bench"))
			},
		},
		{
			name: "only tests and the lab read the test fixtures (internal/fixtures reads testdata/ by path)",
			to:   func(p string) bool { return !under(p, "bench") && isModule(p) },
			allow: func(imp string) bool {
				return imp != "internal/fixtures"
			},
		},
		{
			name: "the product imports nothing from the lab (bench/)",
			to:   func(p string) bool { return !under(p, "bench") && isModule(p) },
			allow: func(imp string) bool {
				return !under(imp, "bench")
			},
		},
	}
	for _, r := range rules {
		matched := 0
		for _, pkg := range pkgs {
			if !r.to(pkg) {
				continue
			}
			matched++
			for _, imp := range graph[pkg] {
				if !r.allow(imp) {
					broken = append(broken, fmt.Sprintf("%s imports %s: %s (docs/ARCHITECTURE.md)", pkg, imp, r.name))
				}
			}
		}
		if matched == 0 {
			broken = append(broken, fmt.Sprintf("rule %q matched no package: the layout changed, update the rule", r.name))
		}
	}
	return broken
}
