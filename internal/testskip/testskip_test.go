package testskip

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeT records what Missing does to a test instead of doing it.
type fakeT struct {
	testing.TB
	skipped, failed string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Name() string                   { return "TestNeedsNode" }
func (f *fakeT) Skipf(format string, a ...any)  { f.skipped = format }
func (f *fakeT) Fatalf(format string, a ...any) { f.failed = format }
func (f *fakeT) Errorf(format string, a ...any) { f.failed = format }

func TestMissingRecordsAndSkips(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips.log")
	t.Setenv(LogEnv, log)
	t.Setenv("CI", "")
	ft := &fakeT{}
	Missing(ft, "node is not installed")
	Missing(ft, "two\nlines")
	require.NotEmpty(t, ft.skipped)
	require.Empty(t, ft.failed)
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, "go ./internal/testskip: TestNeedsNode: node is not installed\n"+
		"go ./internal/testskip: TestNeedsNode: two lines\n", string(got))
}

func TestMissingFailsUnderCI(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips.log")
	t.Setenv(LogEnv, log)
	t.Setenv("CI", "true")
	ft := &fakeT{}
	Missing(ft, "node is not installed")
	require.NotEmpty(t, ft.failed)
	require.NoFileExists(t, log, "a failure is not a skip")
}

func TestNoLogNoFile(t *testing.T) {
	t.Setenv(LogEnv, "")
	require.NoError(t, Record("go", "TestX", "why"))
}
