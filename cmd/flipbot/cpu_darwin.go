//go:build darwin

package main

import "golang.org/x/sys/unix"

// osCPUName returns the CPU's name as `sysctl machdep.cpu.brand_string`
// prints it ("Apple M2 Pro", "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz");
// "" when the kernel does not say.
func osCPUName() string {
	s, err := unix.Sysctl("machdep.cpu.brand_string")
	if err != nil {
		return ""
	}
	return s
}
