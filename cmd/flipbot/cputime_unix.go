//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used,
// and whether it is known.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
