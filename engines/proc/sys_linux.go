//go:build linux

package proc

import "syscall"

// sysProcAttr puts the engine in its own process group and has the kernel
// kill it if we die.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
