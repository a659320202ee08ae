// Command flipbot-image is the Makefile's helper for the gokrazy appliance
// image: it derives the instance to build (Pi or VM, each also offline, with
// or without Egaroucid) from gokrazy/flipbot, gives the FAT boot partition
// room for a token file (gok writes it full), makes /perm and pre-provisions
// the token in an image or on a card, reads an image back to check it,
// guards `make overwrite`, and boots an image under qemu (on an emulated
// Raspberry Pi 3B, it prints the LED patterns it reads back from the SoC),
// and before `make update` waits until the device plays no match.
//
//	flipbot-image instance -o DIR [-vm] [-offline] [-update-host H] [-egaroucid DIR] [-flag F]...
//	flipbot-image boot IMG|DEVICE
//	flipbot-image perm IMG|DEVICE [-token-file F]
//	flipbot-image check IMG [-vm] [-offline] [-token-file F]
//	flipbot-image drive DEVICE [-yes]
//	flipbot-image vm IMG [-machine virt|raspi3b] [-offline] [-http-port P] [-app-port P] [-serial FILE]
//	flipbot-image wait-idle -url http://HOST:PORT [-timeout 30m] [-poll 2s]
//
// wait-idle reads the device's /api/status (flipbot's pages, not gokrazy's)
// until its bot plays no match, saying which it waits for at most every
// 30 s, so that the reboot of a gok update forfeits none by disconnect.
// It exits 0 when no match runs, and also when the device does not answer
// at all (nothing runs there to protect: it warns and lets the update go
// on; once it has answered, it waits out up to 60 s of silence); 1 when a
// match still runs at the timeout, or when the URL answers with something
// that is not flipbot's status (a wrong APP_URL).
//
// Exit codes: 0 done, 1 failed, 2 usage.
//
// Files: main.go (the dispatch), image.go (instance, boot, perm, check,
// drive), vm.go (the vm command), leds.go (the emulated Pi's LEDs),
// waitidle.go (wait-idle).
//
// It may import gokrazy/instance, gokrazy/disk and gokrazy/vm,
// appliance/store for the token file's form, and gpio/led and
// gpio/led/ledtest for the LED patterns and their recognition; nothing else of the device's runtime.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// errUsage marks a usage error, already reported.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: flipbot-image instance|boot|perm|check|drive|vm|wait-idle …")
		return 2
	}
	cmds := map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"instance":  cmdInstance,
		"perm":      cmdPerm,
		"boot":      cmdBoot,
		"check":     cmdCheck,
		"drive":     cmdDrive,
		"vm":        cmdVM,
		"wait-idle": cmdWaitIdle,
	}
	f, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "flipbot-image: unknown command %q\n", args[0])
		return 2
	}
	err := f(ctx, args[1:], stdin, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage), errors.Is(err, flag.ErrHelp):
		return 2
	default:
		fmt.Fprintf(stderr, "flipbot-image %s: %v\n", args[0], err)
		return 1
	}
}

// parse parses flags that may come before or after the positional
// arguments, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, errUsage
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
