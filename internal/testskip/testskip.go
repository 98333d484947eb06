// Package testskip is the one way a Go test skips because its machine lacks
// something `make setup` installs (node, the npm MCP servers, a browser).
// Such a skip must not pass for a full run: under CI=true the test fails
// instead, and where TOOLSIFT_SKIP_LOG names a file (`make test` sets it)
// the skip is appended there, one "suite: test: reason" line, so that
// `make test` can end by listing every skip and failing on it.
//
// The same file is written by the pytest plugin (pytest_skiplog.py) and the
// node --test reporter (node-skiplog.mjs) beside this file; summary.py
// reads it. A skip for any other reason (a measurement that is opt-in, a
// platform the test does not apply to) stays a plain t.Skip.
package testskip

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LogEnv names the environment variable that holds the skip log's path.
const LogEnv = "TOOLSIFT_SKIP_LOG"

// Missing skips t because what it needs is missing (reason says what, and
// how to get it). Under CI=true it fails t instead: a CI machine must have
// everything. It costs one file append when the log is set.
func Missing(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("needed under CI=true: %s", reason)
		return
	}
	if err := Record(suite(), t.Name(), reason); err != nil {
		t.Errorf("recording the skip: %v", err)
	}
	t.Skipf("skipping: %s", reason)
}

// Record appends "suite: test: reason" to the file TOOLSIFT_SKIP_LOG names;
// without the variable it does nothing. Lines from parallel test processes
// do not interleave: each is one write to a file opened for appending.
func Record(suite, test, reason string) error {
	path := os.Getenv(LogEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%s: %s: %s\n", suite, test, strings.ReplaceAll(reason, "\n", " "))
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// suite names the Go package under test as `go test` runs it (from its own
// folder): "go ./gateway", relative to the module's root.
func suite() string {
	wd, err := os.Getwd()
	if err != nil {
		return "go"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return "go ./" + filepath.ToSlash(rel)
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	return "go"
}
