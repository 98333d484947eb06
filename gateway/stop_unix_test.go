//go:build unix

package gateway_test

import (
	"os"
	"syscall"
)

// stopSelf stops this process with SIGSTOP: alive, answering nothing.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
