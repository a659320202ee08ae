package disk

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Expect says what an image must hold, for Check.
type Expect struct {
	// ConfigLines must each be a line of the boot partition's config.txt
	// (e.g. dtparam=i2c_arm=on); none on a VM image, which has no Pi firmware.
	ConfigLines []string
	// BootFAT, when set, is the header of the boot file system as gok
	// wrote it: the image's must differ only in what follows from its
	// size (FATHeader.SameButSize).
	BootFAT *FATHeader
	// BootFree is the free space the boot file system must have (for a
	// token file a laptop adds), 0 for no check.
	BootFree int64
	// Binaries are programs under /user in the root file system (e.g.
	// flipbot); each must be a Go program built for GOARCH with the gokrazy
	// build tag.
	Binaries []string
	// GOARCH is the architecture they must be built for.
	GOARCH string
	// PermExt4 requires /perm to hold an ext4 file system.
	PermExt4 bool
	// PermFiles maps paths in /perm to the content they must hold, with
	// mode 0600 and owned by root.
	PermFiles map[string][]byte
}

// Finding is one checked property of an image.
type Finding struct {
	What string
	// Err is nil when the property holds.
	Err error
}

// Check reads the image at img back and tests each property of want. It
// returns every finding, passed or failed; err is set only when the image
// cannot be read at all.
func Check(ctx context.Context, img string, want Expect) ([]Finding, error) {
	f, err := os.Open(img)
	if err != nil {
		return nil, fmt.Errorf("open image: %w", err)
	}
	parts, err := ReadPartitions(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", img, err)
	}
	var out []Finding
	add := func(what string, err error) { out = append(out, Finding{What: what, Err: err}) }
	add("partition table: FAT boot, root A, root B, /perm", checkLayout(parts))
	loc := func(n int) Location {
		p, _ := Find(parts, n)
		return Location{Path: img, Offset: p.Offset(), Size: p.Size()}
	}
	add("hybrid MBR: entry 1 is the boot partition, type 0x0C, active (what a Pi's boot ROM reads)", checkHybridMBRFile(img, parts))
	add("boot file system: gok's FAT16, filling its partition", checkBootFS(loc(BootPartition), want.BootFAT))
	if len(want.ConfigLines) > 0 {
		cfg, err := ReadBootFile(loc(BootPartition), "config.txt", 1<<20)
		for _, line := range want.ConfigLines {
			e := err
			if e == nil && !slices.Contains(strings.Split(strings.ReplaceAll(string(cfg), "\r", ""), "\n"), line) {
				e = fmt.Errorf("config.txt has no line %q", line)
			}
			add("config.txt has "+line, e)
		}
	}
	if want.BootFree > 0 {
		free, err := BootFree(ctx, loc(BootPartition))
		if err == nil && free < want.BootFree {
			err = fmt.Errorf("%d bytes free, want %d", free, want.BootFree)
		}
		add("boot partition has room for flipbot-token.txt", err)
	}
	if len(want.Binaries) > 0 {
		dir, err := os.MkdirTemp("", "flipbot-root-*")
		if err != nil {
			return nil, fmt.Errorf("temporary directory: %w", err)
		}
		defer os.RemoveAll(dir)
		root := loc(RootAPartition)
		args := []string{"-q", "-n", "-o", fmt.Sprint(root.Offset), "-d", filepath.Join(dir, "r"), "-f", img}
		for _, b := range want.Binaries {
			args = append(args, "user/"+b)
		}
		xerr := runQuiet(ctx, "unsquashfs", args...)
		for _, b := range want.Binaries {
			e := xerr
			if e == nil {
				e = checkBinary(filepath.Join(dir, "r", "user", b), want.GOARCH)
			}
			add(fmt.Sprintf("root file system: /user/%s for %s with the gokrazy tag", b, want.GOARCH), e)
		}
	}
	if want.PermExt4 {
		ok, err := IsExt4(loc(PermPartition))
		if err == nil && !ok {
			err = fmt.Errorf("partition %d holds no ext4 file system", PermPartition)
		}
		add("/perm is ext4", err)
	}
	names := make([]string, 0, len(want.PermFiles))
	for name := range want.PermFiles {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		data, mode, err := ReadFile(ctx, loc(PermPartition), name)
		switch {
		case err != nil:
		case mode != 0o600:
			err = fmt.Errorf("mode %04o, want 0600", mode)
		case !bytes.Equal(data, want.PermFiles[name]):
			err = fmt.Errorf("content differs (%d bytes, want %d)", len(data), len(want.PermFiles[name]))
		}
		add("/perm/"+name+": 0600, root, expected content", err)
	}
	return out, nil
}

func checkHybridMBRFile(img string, parts []Partition) error {
	f, err := os.Open(img)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkHybridMBR(f, parts)
}

// checkBootFS checks that the boot file system is FAT16 with gok's header
// (the OEM name gok writes, or every field of gok's own when gok is given)
// and that it fills its partition to the cluster.
func checkBootFS(l Location, gok *FATHeader) error {
	h, err := BootHeader(l)
	if err != nil {
		return err
	}
	if h.FSType != "FAT16" {
		return fmt.Errorf("file system type %q, want FAT16", h.FSType)
	}
	if gok != nil {
		if diff := h.SameButSize(*gok); diff != nil {
			return fmt.Errorf("differs from gok's beyond its size: %s", strings.Join(diff, "; "))
		}
	} else if h.OEM != "gokrazy!" {
		return fmt.Errorf("OEM name %q, not gok's \"gokrazy!\"", h.OEM)
	}
	if spare := l.Size - int64(h.TotalSectors)*SectorSize; spare < 0 || spare >= h.ClusterBytes() {
		return fmt.Errorf("%d sectors in a partition of %d bytes", h.TotalSectors, l.Size)
	}
	return nil
}

// checkLayout checks gokrazy's four partitions.
func checkLayout(parts []Partition) error {
	const efiSystem = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
	if len(parts) != 4 {
		return fmt.Errorf("%d partitions, want 4", len(parts))
	}
	for i, p := range parts {
		if p.Number != i+1 {
			return fmt.Errorf("partition %d in slot %d", p.Number, i+1)
		}
		if i > 0 && p.FirstLBA <= parts[i-1].LastLBA {
			return fmt.Errorf("partitions %d and %d overlap", i, i+1)
		}
	}
	if parts[0].Type != efiSystem {
		return fmt.Errorf("boot partition type %s, want EFI system %s", parts[0].Type, efiSystem)
	}
	if parts[1].Size() != parts[2].Size() {
		return fmt.Errorf("root partitions differ in size (%d, %d)", parts[1].Size(), parts[2].Size())
	}
	if parts[3].Size() < 64<<20 {
		return fmt.Errorf("/perm partition is only %d bytes", parts[3].Size())
	}
	return nil
}

// checkBinary checks that path is a Go program for goarch built with the
// gokrazy build tag.
func checkBinary(path, goarch string) error {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("build info: %w", err)
	}
	var arch, tags string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOARCH":
			arch = s.Value
		case "-tags":
			tags = s.Value
		}
	}
	if arch != goarch {
		return fmt.Errorf("built for %q, want %q", arch, goarch)
	}
	if !slices.Contains(strings.Split(tags, ","), "gokrazy") {
		return fmt.Errorf("build tags %q lack gokrazy", tags)
	}
	return nil
}

func runQuiet(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, bytes.TrimSpace(out))
	}
	return nil
}
