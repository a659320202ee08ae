//go:build !darwin && !windows

package main

import "os"

// osCPUName returns the CPU's name from /proc/cpuinfo (Linux; "" where
// there is none).
func osCPUName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return parseCPUInfo(string(b))
}
