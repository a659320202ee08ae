package disk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gptImage makes a disk image in memory with a GPT of the given partitions
// (first and last LBA), typed like gokrazy's.
func gptImage(parts [][2]uint64) []byte {
	img := make([]byte, 64*SectorSize)
	le := binary.LittleEndian
	h := img[SectorSize:]
	copy(h, "EFI PART")
	le.PutUint64(h[72:], 2)
	le.PutUint32(h[80:], 128)
	le.PutUint32(h[84:], 128)
	types := [][]byte{
		{0x28, 0x73, 0x2A, 0xC1, 0x1F, 0xF8, 0xD2, 0x11, 0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B},
	}
	linux := []byte{0xAF, 0x3D, 0xC6, 0x0F, 0x83, 0x84, 0x72, 0x47, 0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D, 0xE4}
	for i, p := range parts {
		e := img[2*SectorSize+i*128:]
		t := linux
		if i < len(types) {
			t = types[i]
		}
		copy(e, t)
		le.PutUint64(e[32:], p[0])
		le.PutUint64(e[40:], p[1])
		for j, c := range fmt.Sprintf("part%d", i+1) {
			le.PutUint16(e[56+2*j:], uint16(c))
		}
	}
	return img
}

var gokrazyLayout = [][2]uint64{{8192, 212991}, {212992, 1236991}, {1236992, 2260991}, {2260992, 4194269}}

func TestReadPartitions(t *testing.T) {
	parts, err := ReadPartitions(bytes.NewReader(gptImage(gokrazyLayout)))
	require.NoError(t, err)
	require.Len(t, parts, 4)
	assert.Equal(t, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", parts[0].Type)
	assert.Equal(t, "part1", parts[0].Name)
	assert.EqualValues(t, 1157627904, parts[3].Offset(), "gok's printed mkfs offset for a 2 GiB image")
	assert.EqualValues(t, 966639, parts[3].Size()/1024, "gok's printed mkfs block count")
	assert.NoError(t, checkLayout(parts))

	p4, err := Find(parts, PermPartition)
	require.NoError(t, err)
	assert.Equal(t, 4, p4.Number)
	_, err = Find(parts, 7)
	assert.Error(t, err)
}

func TestReadPartitionsRefuses(t *testing.T) {
	_, err := ReadPartitions(bytes.NewReader(make([]byte, 64*SectorSize)))
	assert.ErrorIs(t, err, ErrNoGPT)
	_, err = ReadPartitions(bytes.NewReader(make([]byte, 100)))
	assert.Error(t, err)
	bad := gptImage([][2]uint64{{100, 50}})
	_, err = ReadPartitions(bytes.NewReader(bad))
	assert.ErrorContains(t, err, "before first")
	huge := gptImage(gokrazyLayout)
	binary.LittleEndian.PutUint32(huge[SectorSize+80:], 1<<30)
	_, err = ReadPartitions(bytes.NewReader(huge))
	assert.ErrorContains(t, err, "implausible")
}

func TestCheckLayout(t *testing.T) {
	parts, err := ReadPartitions(bytes.NewReader(gptImage(gokrazyLayout[:3])))
	require.NoError(t, err)
	assert.ErrorContains(t, checkLayout(parts), "3 partitions")
	overlap := append([][2]uint64{}, gokrazyLayout...)
	overlap[2] = [2]uint64{1236000, 2260000}
	parts, err = ReadPartitions(bytes.NewReader(gptImage(overlap)))
	require.NoError(t, err)
	assert.Error(t, checkLayout(parts))
}

func FuzzReadPartitions(f *testing.F) {
	f.Add(gptImage(gokrazyLayout))
	f.Fuzz(func(t *testing.T, b []byte) {
		parts, err := ReadPartitions(bytes.NewReader(b))
		if err == nil {
			for _, p := range parts {
				assert.GreaterOrEqual(t, p.LastLBA, p.FirstLBA)
			}
		}
	})
}

func TestIsExt4(t *testing.T) {
	img := make([]byte, 8192)
	loc := Location{Path: filepath.Join(t.TempDir(), "img"), Offset: 2048}
	require.NoError(t, os.WriteFile(loc.Path, img, 0o644))
	ok, err := IsExt4(loc)
	require.NoError(t, err)
	assert.False(t, ok)
	binary.LittleEndian.PutUint16(img[2048+1024+56:], 0xEF53)
	require.NoError(t, os.WriteFile(loc.Path, img, 0o644))
	ok, _ = IsExt4(loc)
	assert.False(t, ok, "ext2 without extents is not ext4")
	binary.LittleEndian.PutUint32(img[2048+1024+96:], 0x40|0x2)
	require.NoError(t, os.WriteFile(loc.Path, img, 0o644))
	ok, _ = IsExt4(loc)
	assert.True(t, ok)
}

// fakeHost builds a sysfs/proc tree: disks maps a disk name to its
// attributes, mounts is /proc/self/mounts.
type fakeDisk struct {
	removable bool
	typ       string // device/type
	usb       bool
	parts     int
	holder    string // a holder of partition 1
}

func fakeHost(t *testing.T, disks map[string]fakeDisk, mounts string) Host {
	t.Helper()
	root := t.TempDir()
	w := func(p, s string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(s), 0o644))
	}
	for name, d := range disks {
		bus := "pci0000:00/ata1"
		if d.usb {
			bus = "pci0000:00/usb2/2-1"
		}
		dev := "sys/devices/" + bus + "/block/" + name
		rem := "0"
		if d.removable {
			rem = "1"
		}
		w(dev+"/removable", rem+"\n")
		w(dev+"/size", "62333952\n")
		w(dev+"/device/model", "Card Reader\n")
		if d.typ != "" {
			w(dev+"/device/type", d.typ+"\n")
		}
		w("dev/"+name, "")
		require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/block"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/class/block"), 0o755))
		require.NoError(t, os.Symlink(filepath.Join(root, dev), filepath.Join(root, "sys/block", name)))
		require.NoError(t, os.Symlink(filepath.Join(root, dev), filepath.Join(root, "sys/class/block", name)))
		for i := 1; i <= d.parts; i++ {
			pn := fmt.Sprintf("%s%d", name, i)
			if name[len(name)-1] >= '0' && name[len(name)-1] <= '9' {
				pn = fmt.Sprintf("%sp%d", name, i)
			}
			w(dev+"/"+pn+"/partition", fmt.Sprint(i))
			if i == 1 && d.holder != "" {
				w(dev+"/"+pn+"/holders/"+d.holder, "")
			}
			w("dev/"+pn, "")
			require.NoError(t, os.Symlink(filepath.Join(root, dev, pn), filepath.Join(root, "sys/class/block", pn)))
		}
	}
	w("proc/self/mounts", mounts)
	w("proc/swaps", "Filename Type Size Used Priority\n")
	return Host{Root: root, FakeDevices: true}
}

func TestCheckDrive(t *testing.T) {
	h := fakeHost(t, map[string]fakeDisk{
		"sda":     {parts: 2},                  // the system disk
		"sdb":     {removable: true, parts: 4}, // a card in a USB reader
		"sdc":     {usb: true, parts: 1},       // a USB reader not marked removable
		"mmcblk0": {typ: "SD", parts: 2},       // a built-in SD slot
		"sdd":     {removable: true, parts: 2}, // mounted
		"sde":     {removable: true, parts: 1, holder: "dm-0"},
		"nvme0n1": {parts: 3},
	}, "/dev/sda2 / ext4 rw 0 0\n/dev/sda1 /boot/efi vfat rw 0 0\n/dev/sdd1 /media/owner/bootfs vfat rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n")
	cases := []struct{ dev, want string }{
		{"/dev/sdb", ""},
		{"/dev/sdc", ""},
		{"/dev/mmcblk0", ""},
		{"/dev/sda", "not a removable disk"},
		{"/dev/nvme0n1", "not a removable disk"},
		{"/dev/sdb1", "is a partition"},
		{"/dev/sdd", "is mounted on /media/owner/bootfs"},
		{"/dev/sde", "in use by /dev/dm-0"},
		{"/dev/sdz", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.dev, func(t *testing.T) {
			d, err := h.CheckDrive(c.dev)
			if c.want == "" {
				require.NoError(t, err)
				assert.Equal(t, c.dev, d.Path)
				assert.EqualValues(t, 62333952*512, d.Size)
				return
			}
			assert.ErrorContains(t, err, c.want)
		})
	}

	// The system disk, even if it were marked removable.
	h = fakeHost(t, map[string]fakeDisk{"sda": {removable: true, parts: 2}}, "/dev/sda2 / ext4 rw 0 0\n")
	_, err := h.CheckDrive("/dev/sda")
	assert.ErrorContains(t, err, "running system's root")

	// A regular file is not a device on a real host.
	h.FakeDevices = false
	_, err = h.CheckDrive("/dev/sda")
	assert.ErrorContains(t, err, "not a block device")
}

func TestPartitionPath(t *testing.T) {
	assert.Equal(t, "/dev/sdb4", Drive{Path: "/dev/sdb"}.PartitionPath(4))
	assert.Equal(t, "/dev/mmcblk0p4", Drive{Path: "/dev/mmcblk0"}.PartitionPath(4))
	assert.Equal(t, "/dev/nvme0n1p1", Drive{Path: "/dev/nvme0n1"}.PartitionPath(1))
}

func TestMakeExt4AndWriteFile(t *testing.T) {
	if _, err := os.Stat(tool("debugfs")); err != nil {
		t.Skip("SKIPPED: e2fsprogs missing (apt-get install e2fsprogs)")
	}
	// An "image" with a 1 MiB lead-in before an 8 MiB /perm.
	p := filepath.Join(t.TempDir(), "img")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	require.NoError(t, os.Truncate(p, 9<<20))
	loc := Location{Path: p, Offset: 1 << 20, Size: 8 << 20}
	ctx := t.Context()
	require.NoError(t, MakeExt4(ctx, loc))
	ok, err := IsExt4(loc)
	require.NoError(t, err)
	assert.True(t, ok)

	data := []byte("fsbm_0123456789abcdefghij\n")
	require.NoError(t, WriteFile(ctx, loc, "home/flipbot/fs_bot_token", data, 0o600, 0o700))
	got, mode, err := ReadFile(ctx, loc, "home/flipbot/fs_bot_token")
	require.NoError(t, err)
	assert.Equal(t, data, got)
	assert.Equal(t, os.FileMode(0o600), mode)
	_, dmode, err := ReadFile(ctx, loc, "home/flipbot")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dmode)

	// Written again (a second make image run over the same file): replaced.
	require.NoError(t, WriteFile(ctx, loc, "home/flipbot/fs_bot_token", []byte("x\n"), 0o600, 0o700))
	got, _, err = ReadFile(ctx, loc, "home/flipbot/fs_bot_token")
	require.NoError(t, err)
	assert.Equal(t, []byte("x\n"), got)

	_, _, err = ReadFile(ctx, loc, "home/flipbot/missing")
	assert.ErrorContains(t, err, "not found")
	assert.Error(t, WriteFile(ctx, loc, "bad name", data, 0o600, 0o700))
}
