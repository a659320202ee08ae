// Package bootfs finds the device's own boot partition (partition 1 of the
// disk its root file system is on) and reads a file from it, read-only,
// with internal/fat.
//
// Files: device.go ([Host.BootPartition], [ReadBootFile], which opens
// only a block device or an image file, never blocking on a pipe).
//
// It imports internal/fat, nothing else of the module.
package bootfs

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"flipbot.dev/flipbot/internal/fat"
)

// Host is where BootPartition reads the system's view of its disks: "/" on
// the device, a fake tree in tests.
type Host struct {
	Root string
}

// BootPartition returns the device node of partition 1 of the disk the
// running system booted from: gokrazy's root file system is partition 2 or 3
// of that disk, and its boot file system partition 1.
func (h Host) BootPartition() (string, error) {
	majmin, err := h.rootDevice()
	if err != nil {
		return "", err
	}
	part, err := filepath.EvalSymlinks(h.path("/sys/dev/block/" + majmin))
	if err != nil {
		return "", fmt.Errorf("root device %s: %w", majmin, err)
	}
	if _, err := os.Stat(filepath.Join(part, "partition")); err != nil {
		return "", fmt.Errorf("the root file system (%s) is not on a partition", filepath.Base(part))
	}
	disk := filepath.Dir(part)
	ents, err := os.ReadDir(disk)
	if err != nil {
		return "", fmt.Errorf("boot disk: %w", err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(disk, e.Name(), "partition"))
		if err == nil && strings.TrimSpace(string(b)) == "1" {
			return "/dev/" + e.Name(), nil
		}
	}
	return "", fmt.Errorf("boot disk %s has no partition 1", filepath.Base(disk))
}

// rootDevice returns the major:minor of the file system mounted on /.
func (h Host) rootDevice() (string, error) {
	f, err := os.Open(h.path("/proc/self/mountinfo"))
	if err != nil {
		return "", fmt.Errorf("mountinfo: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint ...
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && fields[4] == "/" {
			return fields[2], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("mountinfo: %w", err)
	}
	return "", fmt.Errorf("mountinfo: nothing is mounted on /")
}

func (h Host) path(p string) string { return filepath.Join(h.Root, p) }

// ReadBootFile reads name (at most limit bytes) from the FAT file system on
// dev, opened read-only. dev must be a block device or an image file (a
// link to one is followed: /dev/disk/by-* are links): it is looked at
// before it is opened, so that a named pipe never blocks the start, and
// what was opened must be what was looked at.
func ReadBootFile(dev, name string, limit int64) (fat.File, error) {
	before, err := os.Stat(dev)
	if err != nil {
		return fat.File{}, fmt.Errorf("boot partition: %w", err)
	}
	if !partitionMode(before.Mode()) {
		return fat.File{}, fmt.Errorf("boot partition %s: %w", dev, errNotPartition)
	}
	f, err := os.Open(dev)
	if err != nil {
		return fat.File{}, fmt.Errorf("boot partition: %w", err)
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return fat.File{}, fmt.Errorf("boot partition: %w", err)
	}
	if !os.SameFile(before, after) {
		return fat.File{}, fmt.Errorf("boot partition %s: replaced while being opened", dev)
	}
	return fat.ReadFile(f, name, limit)
}

// errNotPartition is the error for a boot partition that is neither a block
// device nor an image file.
var errNotPartition = errors.New("neither a block device nor an image file")

// partitionMode reports whether a file of mode m can hold a partition: a
// block device or a regular file (an image).
func partitionMode(m fs.FileMode) bool {
	return m.IsRegular() || (m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0)
}
