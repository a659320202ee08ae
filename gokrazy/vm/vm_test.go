package vm

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/testutil"
)

func TestReadEvents(t *testing.T) {
	var got []string
	in := "data: first line\n\ndata: time=x level=INFO msg=\"setup needed\" pairing_code=123456 pages=http://10.0.2.15:8080/\n\n: comment\nevent: stdout\ndata:nospace\n\n"
	require.NoError(t, ReadEvents(strings.NewReader(in), func(l string) { got = append(got, l) }))
	assert.Equal(t, []string{"first line", `time=x level=INFO msg="setup needed" pairing_code=123456 pages=http://10.0.2.15:8080/`, "nospace"}, got)
	assert.Equal(t, "123456", PairingCode(got[1]))
	assert.Equal(t, "", PairingCode(got[0]))
	assert.Equal(t, "", PairingCode("pairing_code=1234567"))

	err := ReadEvents(strings.NewReader("data: "+strings.Repeat("x", 70<<10)+"\n"), func(string) {})
	assert.Error(t, err, "an endless line is refused")
}

func TestArgs(t *testing.T) {
	cfg := Config{Image: "/tmp/x.img", HTTPPort: 18080, AppPort: 18081}
	soft := strings.Join(cfg.Args(false), " ")
	assert.Contains(t, soft, "-machine virt,highmem=off -cpu cortex-a72")
	assert.Contains(t, soft, "-bios "+Firmware)
	assert.Contains(t, soft, "hostfwd=tcp:127.0.0.1:18080-:80,hostfwd=tcp:127.0.0.1:18081-:8080")
	assert.Contains(t, soft, "-device i6300esb")
	assert.Contains(t, soft, "romfile=")
	assert.Contains(t, soft, "-smp 2 -m 1024")
	kvm := strings.Join(cfg.Args(true), " ")
	assert.Contains(t, kvm, "-accel kvm -cpu host")

	require.NoError(t, cfg.Ports())
	assert.Equal(t, 18080, cfg.HTTPPort, "set ports are kept")
	free := Config{}
	require.NoError(t, free.Ports())
	assert.NotZero(t, free.HTTPPort)
	assert.NotEqual(t, free.HTTPPort, free.AppPort)
}

func TestPassword(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	_, err := Password("flipbot")
	assert.ErrorContains(t, err, "http-password.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "gokrazy", "hosts", "flipbot"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gokrazy", "http-password.txt"), []byte("general\n"), 0o600))
	pw, err := Password("flipbot")
	require.NoError(t, err)
	assert.Equal(t, "general", pw)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gokrazy", "hosts", "flipbot", "http-password.txt"), []byte("per-host\n"), 0o600))
	pw, err = Password("flipbot")
	require.NoError(t, err)
	assert.Equal(t, "per-host", pw, "the per-host file wins, as in gok")
}

func TestPiArgs(t *testing.T) {
	cfg := Config{Machine: Pi3B, Image: "/tmp/pi.img", HTTPPort: 18080, AppPort: 18081}
	b := piBoot{Kernel: "/k", DTB: "/d", Cmdline: piCmdline("console=tty1 root=PARTUUID=60c24cc1-f3f9-427a-8199-86ceea970001/PARTNROFF=1 init=/gokrazy/init rootwait panic=10 oops=panic      \n")}
	args := strings.Join(cfg.piArgs(b), " ")
	for _, want := range []string{
		"-machine raspi3b", "-kernel /k -dtb /d",
		"-drive file=/tmp/pi.img,if=sd,format=raw",
		"-usb -device usb-net,netdev=net0,mac=00:16:3e:",
		"hostfwd=tcp:127.0.0.1:18080-:80,hostfwd=tcp:127.0.0.1:18081-:8080",
		"-serial null -serial stdio",
	} {
		assert.Contains(t, args, want)
	}
	assert.Equal(t, "console=tty1 root=PARTUUID=60c24cc1-f3f9-427a-8199-86ceea970001/PARTNROFF=1 init=/gokrazy/init rootwait panic=10 oops=panic "+
		"console=ttyS1,115200 earlycon dwc_otg.fiq_enable=0 dwc_otg.fiq_fsm_enable=0 dwc_otg.nak_holdoff=0 dwc_otg.lpm_enable=0 "+
		"initcall_blacklist=bcm2835_wdt_driver_init initcall_blacklist=bcm2835_mmc_driver_init", b.Cmdline, "the card's line, its padding dropped, and QEMU's quirks")
}

func TestParseConfigTxt(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     bootNames
	}{
		{"defaults", "", bootNames{"kernel8.img", "cmdline.txt", "bcm2710-rpi-3-b.dtb"}},
		{"gokrazy's", "# Switch the CPU from ARMv7 into ARMv8 (aarch64) mode\r\narm_control=0x200\r\n\r\nenable_uart=1\r\n\r\nkernel=vmlinuz\r\n\r\ndtparam=i2c_arm=on\r\n",
			bootNames{"vmlinuz", "cmdline.txt", "bcm2710-rpi-3-b.dtb"}},
		{"sections", "kernel=a\n[pi4]\nkernel=b\ncmdline=c4.txt\n[pi3]\ndevice_tree=mine.dtb # ours\n[all]\ncmdline=cl.txt\n",
			bootNames{"a", "cl.txt", "mine.dtb"}},
		{"no paths", "kernel=../x\nkernel=sub/dir\ncmdline=\n", bootNames{"kernel8.img", "cmdline.txt", "bcm2710-rpi-3-b.dtb"}},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, parseConfigTxt(c.in)) })
	}
}

func TestCheckSDSize(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.img")
	require.NoError(t, os.WriteFile(ok, nil, 0o644))
	require.NoError(t, os.Truncate(ok, 2<<30))
	assert.NoError(t, checkSDSize(ok))
	bad := filepath.Join(dir, "bad.img")
	require.NoError(t, os.WriteFile(bad, nil, 0o644))
	require.NoError(t, os.Truncate(bad, 1204<<20))
	assert.ErrorContains(t, checkSDSize(bad), "power of two")
}

func TestConsoleWatch(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      power
	}{
		{"reboot on a Pi without a restart handler", "[  99.1] reboot: Restarting system\r\n[  99.2] Reboot failed -- System halted\r\n", restart},
		{"panic", "Kernel panic - not syncing: Attempted to kill init!\nRebooting in 10 seconds..\nReboot failed -- System halted\n", restart},
		{"power-off", "[ 120.0] reboot: System halted\n", halted},
		{"power-off, Linux 6.12", "[   38.676371] reboot: Power off not available: System halted instead\n", halted},
		{"nothing", "[ 1.0] Run /gokrazy/init as init process\nreboot: Restart\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var copyOut strings.Builder
			w := &consoleWatch{w: &copyOut, events: make(chan power, 1)}
			for _, b := range []byte(c.out) { // byte by byte: lines cross writes
				_, err := w.Write([]byte{b})
				require.NoError(t, err)
			}
			assert.Equal(t, c.out, copyOut.String(), "the console is passed on")
			var got power
			select {
			case got = <-w.events:
			default:
			}
			assert.Equal(t, c.want, got)
		})
	}
	w := &consoleWatch{events: make(chan power, 1)}
	_, _ = w.Write([]byte(strings.Repeat("x", 1<<20)))
	assert.LessOrEqual(t, len(w.line), 4096, "an endless line is bounded")
}

// TestSupervisorPowerCycles runs the supervisor with a stand-in for QEMU
// that reboots twice and then powers off: the board is powered on three
// times, and Done closes after the power-off.
func TestSupervisorPowerCycles(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "qemu")
	require.NoError(t, os.WriteFile(script, []byte(`#!/bin/sh
n=$(cat "`+dir+`/n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "`+dir+`/n"
echo "boot $n"
if [ $n -lt 3 ]; then echo "Reboot failed -- System halted"; else echo "reboot: System halted"; fi
exec sleep 60
`), 0o755))
	var serial testutil.SyncBuffer
	v := &VM{cfg: Config{Machine: Virt, QEMU: script, Image: "x.img", Serial: &serial}, dir: t.TempDir(), log: slog.New(slog.DiscardHandler), done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := v.powerOn(ctx)
	require.NoError(t, err)
	go v.supervise(ctx, first)
	select {
	case <-v.Done():
	case <-ctx.Done():
		t.Fatal("the board did not power off")
	}
	assert.Equal(t, 3, v.Boots())
	assert.Contains(t, serial.String(), "boot 1\nReboot failed -- System halted\nboot 2\n")
	assert.Contains(t, serial.String(), "boot 3\nreboot: System halted\n")
}
