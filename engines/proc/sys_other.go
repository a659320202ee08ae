//go:build unix && !linux

package proc

import "syscall"

// sysProcAttr puts the engine in its own process group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
