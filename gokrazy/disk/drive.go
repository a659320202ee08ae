package disk

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Host is where CheckDrive reads the host's view of its disks: "/" on a
// real system, a fake tree in tests.
type Host struct {
	// Root holds dev/, sys/ and proc/.
	Root string
	// FakeDevices accepts regular files as block devices: for tests on a
	// fake tree, where device nodes cannot be made.
	FakeDevices bool
}

// Drive describes a disk CheckDrive accepted.
type Drive struct {
	// Path is the device (e.g. /dev/sdb), Name its kernel name (sdb).
	Path, Name string
	// Size is in bytes; Model is what the disk reports, possibly empty.
	Size  int64
	Model string
}

// PartitionPath returns the device of partition n: sdb4, mmcblk0p4, nvme0n1p4.
func (d Drive) PartitionPath(n int) string {
	if last := d.Path[len(d.Path)-1]; last >= '0' && last <= '9' {
		return fmt.Sprintf("%sp%d", d.Path, n)
	}
	return fmt.Sprintf("%s%d", d.Path, n)
}

// CheckDrive refuses a device that make overwrite must not write: one that
// is not a block device, is a partition rather than a whole disk, is not
// removable (an SD card in a USB or built-in reader), holds a mounted file
// system or active swap, or holds the running system's root.
func (h Host) CheckDrive(dev string) (Drive, error) {
	real, err := filepath.EvalSymlinks(h.path(dev))
	if err != nil {
		return Drive{}, fmt.Errorf("%s: %w", dev, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return Drive{}, fmt.Errorf("%s: %w", dev, err)
	}
	isBlock := fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0
	if !isBlock && !(h.FakeDevices && fi.Mode().IsRegular()) {
		return Drive{}, fmt.Errorf("%s is not a block device", dev)
	}
	name := filepath.Base(real)
	d := Drive{Path: "/dev/" + name, Name: name}
	sysBlock := h.path("/sys/class/block/" + name)
	if _, err := os.Stat(filepath.Join(sysBlock, "partition")); err == nil {
		return Drive{}, fmt.Errorf("%s is a partition: give the whole disk (e.g. /dev/sdb, /dev/mmcblk0)", dev)
	}
	if _, err := os.Stat(h.path("/sys/block/" + name)); err != nil {
		return Drive{}, fmt.Errorf("%s is not a whole disk (not in /sys/block)", dev)
	}
	if !h.removable(name) {
		return Drive{}, fmt.Errorf("%s is not a removable disk (an SD card in a card reader): refusing to overwrite it", dev)
	}
	if sectors, err := readInt(filepath.Join(h.path("/sys/block/"+name), "size")); err == nil {
		d.Size = sectors * SectorSize
	}
	if b, err := os.ReadFile(filepath.Join(h.path("/sys/block/"+name), "device", "model")); err == nil {
		d.Model = strings.TrimSpace(string(b))
	}
	parts := h.partitionsOf(name)
	for _, n := range append([]string{name}, parts...) {
		holders, _ := os.ReadDir(h.path("/sys/class/block/" + n + "/holders"))
		if len(holders) > 0 {
			return Drive{}, fmt.Errorf("/dev/%s is in use by /dev/%s (device mapper, LVM or RAID)", n, holders[0].Name())
		}
	}
	mounted, err := h.mountedDevices()
	if err != nil {
		return Drive{}, err
	}
	for _, n := range append([]string{name}, parts...) {
		if where, ok := mounted[n]; ok {
			if where == "/" {
				return Drive{}, fmt.Errorf("%s holds the running system's root file system", dev)
			}
			return Drive{}, fmt.Errorf("/dev/%s is mounted on %s: unmount it first", n, where)
		}
	}
	return d, nil
}

func (h Host) path(p string) string { return filepath.Join(h.Root, p) }

// removable accepts a disk the kernel marks removable, an MMC/SD card, or a
// disk attached over USB.
func (h Host) removable(name string) bool {
	if v, err := readInt(h.path("/sys/block/" + name + "/removable")); err == nil && v == 1 {
		return true
	}
	if b, err := os.ReadFile(h.path("/sys/block/" + name + "/device/type")); err == nil {
		if t := strings.TrimSpace(string(b)); t == "SD" || t == "MMC" {
			return true
		}
	}
	if dev, err := filepath.EvalSymlinks(h.path("/sys/block/" + name)); err == nil && strings.Contains(dev, "/usb") {
		return true
	}
	return false
}

// partitionsOf lists the kernel names of a disk's partitions.
func (h Host) partitionsOf(name string) []string {
	ents, err := os.ReadDir(h.path("/sys/block/" + name))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), name) {
			if _, err := os.Stat(h.path("/sys/block/" + name + "/" + e.Name() + "/partition")); err == nil {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// mountedDevices maps the kernel names of mounted devices and active swap
// to where they are mounted.
func (h Host) mountedDevices() (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(h.path("/proc/self/mounts"))
	if err != nil {
		return nil, fmt.Errorf("cannot tell what is mounted: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "/dev/") {
			continue
		}
		dev := fields[0]
		if r, err := filepath.EvalSymlinks(h.path(dev)); err == nil {
			dev = r
		}
		out[filepath.Base(dev)] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	if b, err := os.ReadFile(h.path("/proc/swaps")); err == nil {
		for _, line := range strings.Split(string(b), "\n")[1:] {
			if fields := strings.Fields(line); len(fields) > 0 && strings.HasPrefix(fields[0], "/dev/") {
				out[filepath.Base(fields[0])] = "swap"
			}
		}
	}
	return out, nil
}

func readInt(p string) (int64, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	return v, nil
}
