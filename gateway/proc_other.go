//go:build !linux

package gateway

import "os/exec"

// stopWithParent has no portable equivalent of Linux's parent-death signal:
// children are stopped when the gateway closes their sessions.
func stopWithParent(*exec.Cmd) {}
