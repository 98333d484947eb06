//go:build unix

package main

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// fifoCase is a FIFO for TestSnapshotReadIsBounded: opening it to read
// would block until a writer came.
func fifoCase(t *testing.T, dir string) []struct{ path, reason, says string } {
	path := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	return []struct{ path, reason, says string }{{path, "read_snapshot_failed", "FIFO"}}
}
