package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Location is a file system on the host: a partition of an image file
// (Path with Offset and Size), or a block device (Path, Offset 0, Size 0).
type Location struct {
	Path   string
	Offset int64
	Size   int64
}

// PartitionOf locates partition n of the image at img.
func PartitionOf(img string, n int) (Location, error) {
	f, err := os.Open(img)
	if err != nil {
		return Location{}, fmt.Errorf("open image: %w", err)
	}
	defer f.Close()
	parts, err := ReadPartitions(f)
	if err != nil {
		return Location{}, fmt.Errorf("%s: %w", img, err)
	}
	p, err := Find(parts, n)
	if err != nil {
		return Location{}, fmt.Errorf("%s: %w", img, err)
	}
	return Location{Path: img, Offset: p.Offset(), Size: p.Size()}, nil
}

// e2spec is the location in e2fsprogs' syntax (io options after "?").
func (l Location) e2spec() string {
	if l.Offset == 0 {
		return l.Path
	}
	return fmt.Sprintf("%s?offset=%d", l.Path, l.Offset)
}

// MakeExt4 creates an empty ext4 file system labelled "perm" at l, as gok
// overwrite advises but does not do.
func MakeExt4(ctx context.Context, l Location) error {
	args := []string{"-F", "-q", "-L", "perm"}
	if l.Offset != 0 {
		args = append(args, "-E", fmt.Sprintf("offset=%d", l.Offset))
	}
	args = append(args, l.Path)
	if l.Size != 0 {
		args = append(args, strconv.FormatInt(l.Size/1024, 10))
	}
	if out, err := exec.CommandContext(ctx, tool("mkfs.ext4"), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("mkfs.ext4: %w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// tool finds an e2fsprogs command, which lives in /sbin or /usr/sbin, off
// an ordinary user's PATH.
func tool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		p := path.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return name
}

// IsExt4 reports whether l holds an ext4 file system (the ext2 magic and
// the extents feature), reading its superblock.
func IsExt4(l Location) (bool, error) {
	f, err := os.Open(l.Path)
	if err != nil {
		return false, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	sb := make([]byte, 1024)
	if _, err := f.ReadAt(sb, l.Offset+1024); err != nil && err != io.EOF {
		return false, fmt.Errorf("read superblock: %w", err)
	}
	const magic, incompatExtents = 0xEF53, 0x40
	le := binary.LittleEndian
	return le.Uint16(sb[56:]) == magic && le.Uint32(sb[96:])&incompatExtents != 0, nil
}

// WriteFile writes data to name (a path inside the file system, without a
// leading slash) at l with debugfs, creating the parent directories with
// dirMode, owned by root; nothing is mounted. The data passes through a
// temporary file of mode 0600 that is removed afterwards.
func WriteFile(ctx context.Context, l Location, name string, data []byte, mode, dirMode os.FileMode) error {
	name = strings.Trim(path.Clean("/"+name), "/")
	if name == "" || strings.ContainsAny(name, " \t\n\"") {
		return fmt.Errorf("write %q: a plain path is needed", name)
	}
	tmp, err := os.CreateTemp("", "flipbot-perm-*")
	if err != nil {
		return fmt.Errorf("temporary file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("temporary file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("temporary file: %w", err)
	}
	var script strings.Builder
	dir := ""
	for _, part := range strings.Split(path.Dir(name), "/") {
		if part == "." {
			break
		}
		dir = path.Join(dir, part)
		fmt.Fprintf(&script, "mkdir %s\nsif %s mode 0%o\nsif %s uid 0\nsif %s gid 0\n", dir, dir, 0o40000|dirMode.Perm(), dir, dir)
	}
	fmt.Fprintf(&script, "rm %s\nwrite %s %s\nsif %s mode 0%o\nsif %s uid 0\nsif %s gid 0\n",
		name, tmp.Name(), name, name, 0o100000|mode.Perm(), name, name)
	cmd := exec.CommandContext(ctx, tool("debugfs"), "-w", l.e2spec(), "-f", "-")
	cmd.Stdin = strings.NewReader(script.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("debugfs: %w: %s", err, bytes.TrimSpace(out))
	}
	// debugfs exits 0 even when a command fails: check what was written.
	got, gotMode, err := ReadFile(ctx, l, name)
	if err != nil {
		return fmt.Errorf("after writing: %w", err)
	}
	if !bytes.Equal(got, data) || gotMode != mode.Perm() {
		return fmt.Errorf("after writing %s: content or mode (%o) differ from what was written", name, gotMode)
	}
	return nil
}

var (
	modeRE  = regexp.MustCompile(`Mode:\s+0?([0-7]+)`)
	ownerRE = regexp.MustCompile(`User:\s+(\d+)\s+Group:\s+(\d+)`)
)

// ReadFile returns the content and permission bits of name at l, with
// debugfs. A file not owned by root is an error.
func ReadFile(ctx context.Context, l Location, name string) ([]byte, os.FileMode, error) {
	name = "/" + strings.Trim(name, "/")
	st, err := exec.CommandContext(ctx, tool("debugfs"), "-R", "stat "+name, l.e2spec()).Output()
	if err != nil {
		return nil, 0, fmt.Errorf("debugfs stat %s: %w", name, err)
	}
	m := modeRE.FindSubmatch(st)
	if m == nil {
		return nil, 0, fmt.Errorf("%s: not found", name)
	}
	mode, err := strconv.ParseUint(string(m[1]), 8, 32)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: mode %q: %w", name, m[1], err)
	}
	if o := ownerRE.FindSubmatch(st); o == nil || string(o[1]) != "0" || string(o[2]) != "0" {
		return nil, 0, fmt.Errorf("%s: not owned by root", name)
	}
	data, err := exec.CommandContext(ctx, tool("debugfs"), "-R", "cat "+name, l.e2spec()).Output()
	if err != nil {
		return nil, 0, fmt.Errorf("debugfs cat %s: %w", name, err)
	}
	return data, os.FileMode(mode).Perm(), nil
}
