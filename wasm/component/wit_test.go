package main

// The WIT checks, on the host (the component's own files build only for
// wasip1): wasm-tools-go (go.bytecodealliance.org/wit, which runs
// wasm-tools compiled to WebAssembly in wazero) parses ../toolsift.wit, and
// its canonical-ABI flattening says what every hand-written export in this
// folder must be called and take; the committed component must carry our
// interface back.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.bytecodealliance.org/wit"
)

const witFile = "../toolsift.wit"

// toolSearch returns the interface tool-search of package toolsift:search.
func toolSearch(t *testing.T, res *wit.Resolve) *wit.Interface {
	t.Helper()
	for _, pkg := range res.Packages {
		if pkg.Name.String() != "toolsift:search@1.0.0" {
			continue
		}
		i := pkg.Interfaces.Get("tool-search")
		require.NotNil(t, i, "package toolsift:search@1.0.0 has no interface tool-search")
		return i
	}
	t.Fatalf("no package toolsift:search@1.0.0 in %s", res.WIT(nil, ""))
	return nil
}

func loadOurs(t *testing.T) (*wit.Resolve, *wit.Interface) {
	t.Helper()
	res, err := wit.LoadWIT(witFile)
	require.NoError(t, err)
	return res, toolSearch(t, res)
}

func TestWITShape(t *testing.T) {
	res, iface := loadOurs(t)

	var funcs []string
	iface.Functions.All()(func(name string, _ *wit.Function) bool {
		funcs = append(funcs, name)
		return true
	})
	slices.Sort(funcs)
	require.Equal(t, []string{"[method]engine.info", "[method]engine.inspect", "[method]engine.search",
		"[static]engine.open", "build-snapshot", "set-memory-limit", "version"}, funcs)

	errType := iface.TypeDefs.Get("error")
	require.NotNil(t, errType)
	record, ok := errType.Kind.(*wit.Record)
	require.True(t, ok, "error is a %T, want a record", errType.Kind)
	var fields []string
	for _, f := range record.Fields {
		fields = append(fields, f.Name+": "+f.Type.WIT(nil, ""))
	}
	require.Equal(t, []string{"category: string", "code: u32", "reason: string", "message: string"}, fields)

	engine := iface.TypeDefs.Get("engine")
	require.NotNil(t, engine)
	_, ok = engine.Kind.(*wit.Resource)
	require.True(t, ok, "engine is a %T, want a resource", engine.Kind)

	world := res.Packages[len(res.Packages)-1].Worlds.Get("toolsift")
	require.NotNil(t, world)
	require.Contains(t, world.WIT(nil, "toolsift"), "export tool-search;")
}

// coreType is the core WebAssembly type of one flattened canonical-ABI value.
func coreType(t *testing.T, typ wit.Type) string {
	if td, ok := typ.(*wit.TypeDef); ok {
		if _, ok := td.Kind.(*wit.Pointer); ok {
			return "i32"
		}
	}
	switch typ.(type) {
	case wit.Bool, wit.U8, wit.S8, wit.U16, wit.S16, wit.U32, wit.S32, wit.Char:
		return "i32"
	case wit.U64, wit.S64:
		return "i64"
	}
	t.Fatalf("no core type for %T", typ)
	return ""
}

func coreSignature(t *testing.T, f *wit.Function) string {
	var params, results []string
	for _, p := range f.Params {
		params = append(params, coreType(t, p.Type))
	}
	for _, r := range f.Results {
		results = append(results, coreType(t, r.Type))
	}
	return "(" + strings.Join(params, ", ") + ") -> (" + strings.Join(results, ", ") + ")"
}

// goExports reads every //go:wasmexport function of this folder with the
// core signature its Go parameters lower to.
func goExports(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	out := map[string]string{}
	goType := map[string]string{"uint32": "i32", "int32": "i32", "uint64": "i64", "int64": "i64"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil {
				continue
			}
			for _, c := range fn.Doc.List {
				export, ok := strings.CutPrefix(c.Text, "//go:wasmexport ")
				if !ok {
					continue
				}
				lower := func(fields *ast.FieldList) string {
					var types []string
					if fields != nil {
						for _, f := range fields.List {
							typ := goType[f.Type.(*ast.Ident).Name]
							require.NotEmpty(t, typ, "%s: a parameter of type %s", export, f.Type)
							for range max(len(f.Names), 1) {
								types = append(types, typ)
							}
						}
					}
					return "(" + strings.Join(types, ", ") + ")"
				}
				out[export] = lower(fn.Type.Params) + " -> " + lower(fn.Type.Results)
			}
		}
	}
	return out
}

// TestExportsFollowWIT: the hand-written lowering exports exactly the core
// functions wit-component looks for (its legacy names: interface#function,
// cabi_post_interface#function, interface#[dtor]resource), each with the
// flattened signature wasm-tools-go computes from the WIT, and a return area
// large and aligned enough for every result.
func TestExportsFollowWIT(t *testing.T) {
	_, iface := loadOurs(t)
	const name = "toolsift:search/tool-search@1.0.0"
	want := map[string]string{
		"cabi_realloc":         "(i32, i32, i32, i32) -> (i32)",
		"cabi_realloc_adapter": "(i32, i32, i32, i32) -> (i32)",
		name + "#[dtor]engine": "(i32) -> ()",
	}
	largest := 0
	iface.Functions.All()(func(_ string, f *wit.Function) bool {
		want[name+"#"+f.Name] = coreSignature(t, f.CoreFunction(wit.Exported))
		if post := f.PostReturn(wit.Exported); post != nil {
			want["cabi_post_"+name+"#"+f.Name] = coreSignature(t, post)
		}
		if f.CoreFunction(wit.Exported).ReturnsPointer() && len(f.Results) == 1 {
			typ := f.Results[0].Type
			largest = max(largest, int(typ.Size()))
			require.LessOrEqual(t, int(typ.Align()), 4, "%s needs a return area aligned to %d", f.Name, typ.Align())
		}
		return true
	})
	require.Equal(t, want, goExports(t))

	// main.go's retArea is [8]uint32: 32 bytes, aligned to 4.
	require.Equal(t, 32, largest, "resize retArea in main.go")
}

// TestComponentCarriesOurWIT: the committed component, decoded by
// wasm-tools, exports the interface of ../toolsift.wit, printed back the same.
func TestComponentCarriesOurWIT(t *testing.T) {
	const component = "../toolsift.component.wasm"
	if _, err := os.Stat(component); err != nil {
		t.Fatalf("%s: %v (wasm/build.sh --component builds it)", component, err)
	}
	_, ours := loadOurs(t)
	res, err := wit.LoadWIT(component)
	require.NoError(t, err)
	theirs := toolSearch(t, res)
	// A component keeps no doc comments: compare the WIT without them.
	require.Equal(t, withoutDocs(ours.WIT(nil, "tool-search")), withoutDocs(theirs.WIT(nil, "tool-search")))

	var exports []string
	for _, pkg := range res.Packages {
		pkg.Worlds.All()(func(name string, w *wit.World) bool {
			for _, line := range strings.Split(w.WIT(pkg, name), "\n") {
				if export, ok := strings.CutPrefix(strings.TrimSpace(line), "export "); ok {
					exports = append(exports, export)
				}
			}
			return true
		})
	}
	require.Equal(t, []string{"toolsift:search/tool-search@1.0.0;"}, exports)
}

func withoutDocs(text string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if trimmed := strings.TrimSpace(line); trimmed != "" && !strings.HasPrefix(trimmed, "///") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
