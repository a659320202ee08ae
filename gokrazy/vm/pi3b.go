package vm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"flipbot.dev/flipbot/gokrazy/disk"
)

// What QEMU 7.2's raspi3b needs beyond the card's own cmdline.txt, each a
// fact of QEMU's model or of the Pi kernel on it (checked here with
// gokrazy's kernel.rpi 6.12), not of flipbot.
var piQuirks = []struct{ arg, why string }{
	// The Pi 3's device tree gives the PL011 (QEMU's first serial port) to
	// Bluetooth; the console is the mini UART, QEMU's second.
	{"console=ttyS1,115200", "console on the mini UART"},
	{"earlycon", "console from the first kernel messages (the device tree's stdout-path)"},
	// The Pi kernel's dwc_otg driver oopses in dwc_otg_handle_common_intr
	// on QEMU's USB controller with its FIQ fast paths and split-transaction
	// tricks on; the kernel then panics (oops=panic) and no USB Ethernet
	// comes up.
	{"dwc_otg.fiq_enable=0", "no FIQ in the USB driver"},
	{"dwc_otg.fiq_fsm_enable=0", "no FIQ state machine in the USB driver"},
	{"dwc_otg.nak_holdoff=0", "no NAK hold-off in the USB driver"},
	{"dwc_otg.lpm_enable=0", "no link power management in the USB driver"},
	// QEMU resets the board as soon as gokrazy arms the BCM2835 watchdog:
	// the device would boot-loop. Without the driver there is no restart
	// handler either, so a reboot halts ("Reboot failed -- System
	// halted") and the supervisor power-cycles the board.
	{"initcall_blacklist=bcm2835_wdt_driver_init", "no BCM2835 watchdog"},
	// The Pi 3's Wi-Fi is an SDIO chip on the second SD controller
	// (3f300000.mmcnr, the bcm2835-mmc driver); QEMU's controller answers
	// no command there, and the driver retries every 10 s ("mmc1: Timeout
	// waiting for hardware interrupt") for as long as the board runs. A
	// power-off then never gets past the shutdown of that device, and a
	// boot could stall behind it. QEMU has no Wi-Fi to offer anyway.
	{"initcall_blacklist=bcm2835_mmc_driver_init", "no SDIO Wi-Fi controller"},
}

// piMAC is the USB Ethernet adapter's address: globally administered (an
// OUI, here Xen's 00:16:3e), because the kernel's usbnet names a
// locally administered address such as QEMU's default 52:54:00:… "usb0",
// and gokrazy's DHCP client runs on eth0.
const piMAC = "00:16:3e:f1:1b:07"

// piBoot is what the Pi's firmware takes from the card to start Linux.
type piBoot struct {
	Kernel, DTB string // files written for QEMU
	Cmdline     string // the card's command line, quirks added
}

// checkSDSize refuses an image QEMU's SD card model cannot take.
func checkSDSize(img string) error {
	fi, err := os.Stat(img)
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if n := fi.Size(); n <= 0 || n&(n-1) != 0 {
		return fmt.Errorf("%s is %d bytes: QEMU's Pi SD card must be a power of two in size (make image's default, 2 GiB, is)", img, n)
	}
	return nil
}

// readPiBoot stands in for the Pi's GPU firmware, which QEMU cannot run:
// it reads the card's MBR as the boot ROM does (entry 1, the FAT boot
// partition), the firmware's config.txt for the kernel and command line
// file names (kernel=, cmdline=, device_tree=), and writes the kernel and
// the Pi 3 Model B's device tree into dir for QEMU. It runs at every
// power-on, so that an update that switched the root partition (cmdline.txt
// rewritten) boots the new one.
func readPiBoot(img, dir string) (piBoot, error) {
	f, err := os.Open(img)
	if err != nil {
		return piBoot{}, fmt.Errorf("card: %w", err)
	}
	mbr, err := disk.ReadMBR(f)
	f.Close()
	if err != nil {
		return piBoot{}, fmt.Errorf("card %s: %w", img, err)
	}
	part := disk.Location{Path: img, Offset: mbr[0].Offset(), Size: mbr[0].Size()}
	read := func(name string, limit int64) ([]byte, error) {
		b, err := disk.ReadBootFile(part, name, limit)
		if err != nil {
			return nil, fmt.Errorf("card %s, boot partition: %w", img, err)
		}
		return b, nil
	}
	cfgTxt, err := read("config.txt", 64<<10)
	if err != nil {
		return piBoot{}, err
	}
	names := parseConfigTxt(string(cfgTxt))
	kernel, err := read(names.kernel, 128<<20)
	if err != nil {
		return piBoot{}, err
	}
	dtb, err := read(names.deviceTree, 1<<20)
	if err != nil {
		return piBoot{}, err
	}
	cmdline, err := read(names.cmdline, 4<<10)
	if err != nil {
		return piBoot{}, err
	}
	b := piBoot{Kernel: filepath.Join(dir, "kernel.img"), DTB: filepath.Join(dir, "board.dtb")}
	if err := os.WriteFile(b.Kernel, kernel, 0o600); err != nil {
		return piBoot{}, fmt.Errorf("stage kernel: %w", err)
	}
	if err := os.WriteFile(b.DTB, dtb, 0o600); err != nil {
		return piBoot{}, fmt.Errorf("stage device tree: %w", err)
	}
	b.Cmdline = piCmdline(string(cmdline))
	return b, nil
}

// bootNames are the files config.txt names.
type bootNames struct{ kernel, cmdline, deviceTree string }

// parseConfigTxt reads the firmware's config.txt the way a Pi 3 Model B's
// firmware does for the three settings it needs (Raspberry Pi
// documentation, "config.txt": "Boot options" kernel=, cmdline=,
// device_tree=; "Conditional filters" [all], [pi3], …): key=value lines,
// # comments, and only the sections that apply to a Pi 3. The defaults
// are a 64-bit Pi 3's: kernel8.img, cmdline.txt and the board's own tree.
func parseConfigTxt(s string) bootNames {
	n := bootNames{kernel: "kernel8.img", cmdline: "cmdline.txt", deviceTree: "bcm2710-rpi-3-b.dtb"}
	applies := true
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			switch strings.ToLower(line[1 : len(line)-1]) {
			case "all", "pi3", "board-type=0x8":
				applies = true
			default:
				applies = false
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !applies {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, "/\\") {
			continue // the stand-in reads the root directory only
		}
		switch strings.TrimSpace(k) {
		case "kernel":
			n.kernel = v
		case "cmdline":
			n.cmdline = v
		case "device_tree":
			n.deviceTree = v
		}
	}
	return n
}

// piCmdline is the card's command line (gok pads it with spaces so that it
// can rewrite it in place) with QEMU's quirks added.
func piCmdline(card string) string {
	args := strings.Fields(card)
	for _, q := range piQuirks {
		args = append(args, q.arg)
	}
	return strings.Join(args, " ")
}

// piArgs returns QEMU's arguments for one power-on of the Pi 3B.
func (cfg Config) piArgs(b piBoot) []string {
	return []string{
		"-machine", "raspi3b", // 4 Cortex-A53 cores, 1 GiB: the board's own
		"-kernel", b.Kernel, "-dtb", b.DTB, "-append", b.Cmdline,
		"-drive", "file=" + cfg.Image + ",if=sd,format=raw",
		// A Pi 3B's Ethernet is a LAN9514 on its USB bus; QEMU has no model
		// of it, a CDC Ethernet gadget on the same bus does the job.
		"-usb", "-device", "usb-net,netdev=net0,mac=" + piMAC,
		"-netdev", cfg.hostfwd("net0"),
		// The PL011 (Bluetooth on a Pi 3) is left unconnected; the console
		// is the mini UART.
		"-serial", "null", "-serial", "stdio",
		"-display", "none", "-monitor", "none",
	}
}
