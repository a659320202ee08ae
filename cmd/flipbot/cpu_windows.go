//go:build windows

package main

import "golang.org/x/sys/windows/registry"

// cpuRegistryKey holds the first processor's description under
// HKEY_LOCAL_MACHINE.
const cpuRegistryKey = `HARDWARE\DESCRIPTION\System\CentralProcessor\0`

// osCPUName returns the processor's name from the registry
// (ProcessorNameString, as the System settings page shows it); "" when
// it cannot be read.
func osCPUName() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, cpuRegistryKey, registry.QUERY_VALUE)
	if err != nil {
		return ""
	}
	defer k.Close()
	s, _, err := k.GetStringValue("ProcessorNameString")
	if err != nil {
		return ""
	}
	return s
}
