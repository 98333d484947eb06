package engine

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
)

// worstPatterns are families of patterns (%d is a repetition count) that
// make RE2 do the most work per instruction and byte of text: every one
// keeps a thread alive at each position of every text and never matches
// (no tool text holds \x01), or nests repetitions, empty-width assertions
// and alternations of overlapping classes.
var worstPatterns = []string{
	`[^\x01]{0,%d}\x01`,
	`[^\x01]{%d}\x01`,
	`(?:[^\x01]?){%d}\x01`,
	`(?:[^\x01]*){%d}\x01`,
	`(?:[^\x01]|[^\x02]){0,%d}\x01`,
	`(?:.|\pL){0,%d}\x01`,
	`(?:\b[^\x01]){0,%d}\x01`,
	`(?:[^\x01][^\x01]?){0,%d}\x01`,
	`(?:(?:[^\x01]){1,3}){0,%d}\x01`,
	`(?:\B|\b|^|$){0,%d}[^\x01]*\x01`,
	`(?:(a)|(b)|(?:[^\x01])){0,%d}\x01`,
}

// compiledSize is what RE2 compiles a pattern to, as regexp.Compile does.
func compiledSize(t testing.TB, tree *syntax.Regexp) int {
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return len(prog.Inst)
}

// programSize never undercounts what RE2 compiles: whatever it admits
// compiles to at most as many instructions as it said, and it saturates
// (without expanding anything) above the limit.
func TestProgramSizeBoundsRE2(t *testing.T) {
	patterns := []string{"slack", "^(post|delete)_", "a*b+c?", "(a|b|c)+", "x{0}", "x{0,0}", "(?:x{2}){3}", "(?:x{2,}){0,3}", "[[:alpha:]]{3,7}", `\pL+\d*\s?`, "(?U)a+?", "", "()", "(?s).", `\Aa\z`}
	for _, family := range worstPatterns {
		for _, n := range []int{0, 1, 2, 3, 7, 24, 100, 499} {
			patterns = append(patterns, strings.ReplaceAll(family, "%d", itoa(n)))
		}
	}
	for _, p := range patterns {
		tree, err := syntax.Parse(patternFlags+p, syntax.Perl)
		if err != nil {
			require.Contains(t, err.Error(), "invalid repeat count", p) // a nested repetition over 1,000
			continue
		}
		size := programSize(tree, wire.MaxPatternInstructions)
		if size > wire.MaxPatternInstructions+1 {
			t.Fatalf("%q: %d is above the saturation point", p, size)
		}
		if size <= wire.MaxPatternInstructions {
			if real := compiledSize(t, tree); real > size {
				t.Fatalf("%q compiles to %d instructions, counted %d", p, real, size)
			}
		}
	}
	tree, _ := syntax.Parse(patternFlags+`[^\x01]{0,1000}\x01`, syntax.Perl)
	if programSize(tree, wire.MaxPatternInstructions) <= wire.MaxPatternInstructions {
		t.Fatal("the issue's pattern is admitted")
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// FuzzPatternProgram: for any pattern RE2 parses, programSize answers
// without panicking, never above the saturation point, and never below what
// RE2 compiles an admitted pattern to.
func FuzzPatternProgram(f *testing.F) {
	for _, family := range worstPatterns {
		f.Add(strings.ReplaceAll(family, "%d", "24"))
	}
	for _, seed := range []string{"slack", "(a|b)*c{2,9}", `(?:(?:x{0,9}){0,9}){0,9}`, `\b(?:\pL|\d){3,}$`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > wire.MaxPatternBytes {
			return
		}
		tree, err := syntax.Parse(patternFlags+pattern, syntax.Perl)
		if err != nil {
			return
		}
		size := programSize(tree, wire.MaxPatternInstructions)
		if size < 1 || size > wire.MaxPatternInstructions+1 {
			t.Fatalf("%q: size %d", pattern, size)
		}
		if size <= wire.MaxPatternInstructions {
			if real := compiledSize(t, tree); real > size {
				t.Fatalf("%q compiles to %d instructions, counted %d", pattern, real, size)
			}
		}
	})
}
