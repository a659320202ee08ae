package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/gokrazy/disk"
	"flipbot.dev/flipbot/gokrazy/instance"
)

// tokenPath is where flipbot's token lives in /perm: gokrazy's HOME for
// /user/flipbot is /perm/home/flipbot.
var tokenPath = path.Join("home", "flipbot", store.TokenFileName)

func cmdInstance(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("instance", flag.ContinueOnError)
	var opts instance.Options
	src := fs.String("src", "gokrazy/flipbot", "the source instance")
	out := fs.String("o", "", "directory to write the derived instance to (replaced)")
	fs.BoolVar(&opts.VM, "vm", false, "the qemu variant")
	fs.BoolVar(&opts.Offline, "offline", false, "the offline variant: flipbot-arena inside, time from the emulator's host (with -vm: the offline VM)")
	fs.StringVar(&opts.UpdateHost, "update-host", "", "Update.Hostname (e.g. localhost:18080 for a VM)")
	fs.StringVar(&opts.Egaroucid, "egaroucid", "", "a staged Egaroucid directory to put into the image")
	fs.Var((*listFlag)(&opts.ExtraFlags), "flag", "a flipbot flag to add (repeatable)")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if *out == "" || len(pos) > 0 {
		fmt.Fprintln(stderr, "usage: flipbot-image instance -o DIR [-vm] [-offline] [-update-host H] [-egaroucid DIR] [-flag F]...")
		return errUsage
	}
	if err := instance.Derive(*src, *out, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "instance %s written\n", *out)
	return nil
}

// readTokenFile reads and checks a TOKEN_FILE and returns the content of
// the token file /perm keeps for it; the error never holds the token.
func readTokenFile(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("TOKEN_FILE: %w", err)
	}
	tok, err := store.ParseTokenFile(b)
	if err != nil {
		return nil, fmt.Errorf("TOKEN_FILE %s: %w", p, err)
	}
	return store.EncodeToken(tok)
}

// permLocation is /perm of an image file, or partition 4 of a drive.
func permLocation(target string) (disk.Location, error) {
	return partLocation(target, disk.PermPartition)
}

// partLocation is partition n of an image file or of a drive.
func partLocation(target string, n int) (disk.Location, error) {
	fi, err := os.Stat(target)
	if err != nil {
		return disk.Location{}, err
	}
	if fi.Mode().IsRegular() {
		return disk.PartitionOf(target, n)
	}
	// A card just written: wait for the kernel to show its new partitions.
	part := disk.Drive{Path: target}.PartitionPath(n)
	for i := 0; i < 50; i++ {
		if _, err := os.Stat(part); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	loc := disk.Location{Path: part}
	if n == disk.BootPartition {
		// Growing the FAT needs the size: read it from the drive's table.
		if p, err := disk.PartitionOf(target, n); err == nil {
			loc.Size = p.Size
		}
	}
	return loc, nil
}

func cmdPerm(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("perm", flag.ContinueOnError)
	tokenFile := fs.String("token-file", "", "a file holding the bot token, pre-provisioned into /perm (0600)")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: flipbot-image perm IMG|DEVICE [-token-file F]")
		return errUsage
	}
	var tok []byte
	if *tokenFile != "" {
		if tok, err = readTokenFile(*tokenFile); err != nil {
			return err
		}
	}
	loc, err := permLocation(pos[0])
	if err != nil {
		return err
	}
	if err := disk.MakeExt4(ctx, loc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "/perm: ext4 created on %s (offset %d)\n", loc.Path, loc.Offset)
	if tok == nil {
		return nil
	}
	if err := disk.WriteFile(ctx, loc, tokenPath, tok, 0o600, 0o700); err != nil {
		return fmt.Errorf("pre-provision the token: %w", err)
	}
	fmt.Fprintf(stdout, "/perm/%s: token pre-provisioned (0600)\n", tokenPath)
	return nil
}

func cmdBoot(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("boot", flag.ContinueOnError)
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: flipbot-image boot IMG|DEVICE")
		return errUsage
	}
	loc, err := partLocation(pos[0], disk.BootPartition)
	if err != nil {
		return err
	}
	if err := disk.RoomyBoot(ctx, loc); err != nil {
		return err
	}
	free, err := disk.BootFree(ctx, loc)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "boot partition: grown to fill its partition (gok's FAT16 kept), %d MB free for %s\n", free>>20, store.BootTokenFileName)
	return nil
}

func cmdCheck(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	vmImage := fs.Bool("vm", false, "a VM image (no Pi firmware, no config.txt lines)")
	offline := fs.Bool("offline", false, "an offline image (flipbot-arena too)")
	tokenFile := fs.String("token-file", "", "the TOKEN_FILE the image was made with")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: flipbot-image check IMG [-vm] [-offline] [-token-file F]")
		return errUsage
	}
	want := disk.Expect{Binaries: []string{"flipbot"}, GOARCH: "arm64", PermExt4: true, BootFree: 1 << 20}
	if !*vmImage {
		want.ConfigLines = []string{"dtparam=i2c_arm=on"}
	}
	if *offline {
		want.Binaries = append(want.Binaries, "flipbot-arena")
	}
	if *tokenFile != "" {
		tok, err := readTokenFile(*tokenFile)
		if err != nil {
			return err
		}
		want.PermFiles = map[string][]byte{tokenPath: tok}
	}
	found, err := disk.Check(ctx, pos[0], want)
	if err != nil {
		return err
	}
	failed := 0
	for _, f := range found {
		if f.Err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", f.What, f.Err)
		} else {
			fmt.Fprintf(stdout, "ok   %s\n", f.What)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(found))
	}
	return nil
}

func cmdDrive(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("drive", flag.ContinueOnError)
	yes := fs.Bool("yes", false, "do not ask")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: flipbot-image drive DEVICE [-yes]")
		return errUsage
	}
	d, err := disk.Host{Root: "/"}.CheckDrive(pos[0])
	if err != nil {
		return err
	}
	desc := d.Path
	if d.Model != "" {
		desc += " (" + d.Model + ")"
	}
	if d.Size > 0 {
		desc += fmt.Sprintf(", %.1f GB", float64(d.Size)/1e9)
	}
	if *yes {
		return nil
	}
	fmt.Fprintf(stdout, "Write the flipbot image to %s? Everything on it will be lost. Type yes: ", desc)
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if strings.TrimSpace(line) != "yes" {
		return errors.New("not confirmed: nothing written")
	}
	return nil
}
