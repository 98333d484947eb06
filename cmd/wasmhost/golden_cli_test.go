package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/cli/golden.txt's expected parts from this CLI")

const goldenCLI = "../../testdata/cli/golden.txt"

// cliCase is one case of testdata/cli/golden.txt (its header says the
// format); the Python and JS CLIs run the same file.
type cliCase struct {
	name      string
	args      []string
	stdinPart string // stdin as written, repeated repeat times
	repeat    int
	exit      int
	stderr    string
	stdout    string
}

func (c cliCase) stdin() string { return strings.Repeat(c.stdinPart, c.repeat) }

// parseCLIGolden reads the cases and the comment lines before them.
func parseCLIGolden(data []byte) (header string, cases []cliCase, err error) {
	var head strings.Builder
	var cur *cliCase
	finish := func() {
		if cur != nil {
			cases = append(cases, *cur)
		}
	}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if name, ok := strings.CutPrefix(line, "=== "); ok {
			finish()
			cur = &cliCase{name: name, repeat: 1}
			continue
		}
		if cur == nil {
			head.WriteString(line + "\n")
			continue
		}
		if line == ">" || strings.HasPrefix(line, "> ") {
			cur.stdout += strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ") + "\n"
			continue
		}
		key, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch key {
		case "args":
			err = json.Unmarshal([]byte(value), &cur.args)
		case "stdin":
			err = json.Unmarshal([]byte(value), &cur.stdinPart)
		case "stdin-repeat":
			cur.repeat, err = strconv.Atoi(value)
		case "exit":
			cur.exit, err = strconv.Atoi(value)
		case "stderr":
			cur.stderr = value
		case "":
			if line != "" {
				err = fmt.Errorf("no key")
			}
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s line %d: %w", goldenCLI, n, err)
		}
	}
	finish()
	return head.String(), cases, scanner.Err()
}

// formatCLIGolden writes cases back in the file's format.
func formatCLIGolden(header string, cases []cliCase) []byte {
	var b strings.Builder
	b.WriteString(header)
	for i, c := range cases {
		if i > 0 {
			b.WriteString("\n")
		}
		args, _ := json.Marshal(c.args)
		fmt.Fprintf(&b, "=== %s\nargs: %s\n", c.name, args)
		if c.stdinPart != "" {
			fmt.Fprintf(&b, "stdin: %s\n", jsonString(c.stdinPart))
		}
		if c.repeat > 1 {
			fmt.Fprintf(&b, "stdin-repeat: %d\n", c.repeat)
		}
		fmt.Fprintf(&b, "exit: %d\n", c.exit)
		if c.stderr == "" {
			b.WriteString("stderr:\n")
		} else {
			fmt.Fprintf(&b, "stderr: %s\n", c.stderr)
		}
		for _, line := range strings.SplitAfter(c.stdout, "\n") {
			if line == "" {
				continue
			}
			if line == "\n" {
				b.WriteString(">\n")
			} else {
				b.WriteString("> " + line)
			}
		}
	}
	return []byte(b.String())
}

// jsonString is s as a JSON string without HTML escaping, as it is written.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestCLIGolden runs every case of testdata/cli/golden.txt through wasmhost
// and compares standard output, standard error and the exit code.
func TestCLIGolden(t *testing.T) {
	path, err := filepath.Abs(goldenCLI)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	header, cases, err := parseCLIGolden(data)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	// The cases run in an empty directory of their own: a relative path in a
	// case (request.json) must name nothing.
	t.Chdir(t.TempDir())
	for i, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(c.stdin()), &stdout, &stderr)
		if *update {
			cases[i].exit, cases[i].stderr, cases[i].stdout = code, strings.TrimSuffix(stderr.String(), "\n"), stdout.String()
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.exit, code, "exit code; stderr: %s", stderr.String())
			require.Equal(t, c.stderr, strings.TrimSuffix(stderr.String(), "\n"), "stderr")
			require.Equal(t, c.stdout, stdout.String(), "stdout")
		})
	}
	if *update {
		require.NoError(t, os.WriteFile(path, formatCLIGolden(header, cases), 0o644))
	}
}
