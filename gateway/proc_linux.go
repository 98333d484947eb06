package gateway

import (
	"os/exec"
	"syscall"
)

// stopWithParent asks the kernel to send the child SIGTERM if the gateway
// dies without closing it (killed with SIGKILL, say), so that no server is
// left running on its own.
func stopWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
