package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"flipbot.dev/flipbot/gokrazy/instance"
	"flipbot.dev/flipbot/gokrazy/vm"
)

func cmdVM(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vm", flag.ContinueOnError)
	var cfg vm.Config
	machine := fs.String("machine", string(vm.Virt), "the board: virt (the VM image) or raspi3b (the Pi image, on an emulated Raspberry Pi 3 Model B)")
	fs.IntVar(&cfg.HTTPPort, "http-port", 18080, "loopback port forwarded to the guest's :80 (gokrazy's web UI, gok update)")
	fs.IntVar(&cfg.AppPort, "app-port", 18081, "loopback port forwarded to the guest's :8080 (flipbot's pages)")
	fs.IntVar(&cfg.CPUs, "cpus", 2, "guest cores (virt; a Pi 3B has 4)")
	fs.IntVar(&cfg.MemoryMiB, "memory", 1024, "guest memory in MiB (virt; a Pi 3B has 1024)")
	serial := fs.String("serial", "", "write the guest's serial console to this file (default: discard)")
	host := fs.String("host", "flipbot", "the instance's hostname (for gok's password file)")
	offline := fs.Bool("offline", false, "the image is the offline variant: print the token its arena accepts")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: flipbot-image vm IMG [-machine virt|raspi3b] [-offline] [-http-port P] [-app-port P] [-serial FILE]")
		return errUsage
	}
	cfg.Image = pos[0]
	cfg.Machine = vm.Machine(*machine)
	// The offline image asks the emulator's host for the time (a Pi has no
	// clock, and there is no other time server offline).
	cfg.TimeServer = *offline
	password, err := vm.Password(*host)
	if err != nil {
		return err
	}
	if *serial != "" {
		f, err := os.Create(*serial)
		if err != nil {
			return fmt.Errorf("serial log: %w", err)
		}
		defer f.Close()
		cfg.Serial = f
	}
	// qemu lives on after ctx (the owner's Ctrl-C) ends, so that the guest
	// can be powered off cleanly.
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	start := time.Now()
	v, err := vm.Start(run, cfg)
	if err != nil {
		return err
	}
	accel := "software emulation"
	if vm.KVMUsable() && cfg.Machine == vm.Virt {
		accel = "KVM"
	}
	board := "the generic arm64 board"
	if cfg.Machine == vm.Pi3B {
		board = "an emulated Raspberry Pi 3 Model B"
	}
	fmt.Fprintf(stdout, "booting %s on %s under qemu-system-aarch64 (%s); Ctrl-C powers it off\n", cfg.Image, board, accel)
	for _, w := range v.Warnings() {
		fmt.Fprintf(stdout, "  warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "  gokrazy web UI: %s (user gokrazy, the password in gok's http-password.txt)\n", v.HTTPURL())
	if cfg.Machine == vm.Pi3B {
		off := ""
		if *offline {
			off = " OFFLINE=1"
		}
		fmt.Fprintf(stdout, "  update it:      make update%s UPDATE_HOST=%s APP_URL=%s (from another terminal; it waits for a running match, UPDATE_NOW=1 updates at once; the board is power-cycled as the update reboots it)\n", off, v.UpdateHost(), v.AppURL())
	} else {
		fmt.Fprintf(stdout, "  gok update:     Update.Hostname %q\n", v.UpdateHost())
	}
	if cfg.Machine == vm.Pi3B {
		go watchLEDs(run, v, stdout)
	}
	seen := make(chan string, 1)
	v.Follow(run, password, "/user/flipbot", "stderr", func(line string) {
		if code := vm.PairingCode(line); code != "" {
			select {
			case seen <- code:
			default:
			}
		}
	})
	go func() {
		if err := vm.WaitHTTP(run, v.AppURL()+"/"); err == nil {
			fmt.Fprintf(stdout, "flipbot's page answers after %.0f s: %s\n", time.Since(start).Seconds(), v.AppURL()+"/")
			if *offline {
				fmt.Fprintf(stdout, "  offline: the arena inside the VM accepts the token %s\n", instance.OfflineToken)
			}
		}
	}()
	last := ""
	for {
		select {
		case code := <-seen:
			if code != last {
				last = code
				fmt.Fprintf(stdout, "pairing code: %s\n", code)
			}
		case <-v.Done():
			if err := v.Err(); err != nil && !strings.Contains(err.Error(), "signal") {
				return fmt.Errorf("qemu: %w", err)
			}
			fmt.Fprintln(stdout, "the VM powered off")
			return nil
		case <-ctx.Done():
			fmt.Fprintln(stdout, "powering off…")
			off, cancelOff := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancelOff()
			if err := v.PowerOff(off, password); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "the VM powered off")
			return nil
		}
	}
}
