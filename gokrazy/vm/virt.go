package vm

import (
	"fmt"
	"os"
	"runtime"
)

// Firmware is the UEFI firmware of Debian's qemu-efi-aarch64 package, which
// boots gokrazy's kernel.arm64 on the Virt machine.
const Firmware = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd"

// Args returns QEMU's arguments for the Virt machine (ports must be set).
func (cfg Config) Args(kvm bool) []string {
	cpus, mem := cfg.CPUs, cfg.MemoryMiB
	if cpus == 0 {
		cpus = 2
	}
	if mem == 0 {
		mem = 1024
	}
	machine := []string{"-machine", "virt,highmem=off", "-cpu", "cortex-a72"}
	if kvm {
		machine = []string{"-machine", "virt", "-accel", "kvm", "-cpu", "host"}
	}
	return append(machine,
		"-smp", fmt.Sprint(cpus), "-m", fmt.Sprint(mem),
		"-bios", Firmware,
		"-drive", "file="+cfg.Image+",format=raw,if=virtio",
		// gokrazy feeds a watchdog; a hung guest resets.
		"-device", "i6300esb", "-action", "watchdog=reset",
		// romfile= avoids needing the ipxe ROMs.
		"-device", "e1000,netdev=net0,romfile=",
		"-netdev", cfg.hostfwd("net0"),
		"-display", "none", "-monitor", "none", "-serial", "stdio",
	)
}

// KVMUsable reports whether qemu can use KVM for an arm64 guest here.
func KVMUsable() bool {
	if runtime.GOARCH != "arm64" {
		return false
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
