package disk

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/fat"
)

// memDev is a disk in memory.
type memDev []byte

func (m memDev) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m)) {
		return 0, fmt.Errorf("read past the end (%d+%d of %d)", off, len(p), len(m))
	}
	return copy(p, m[off:]), nil
}

func (m memDev) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m)) {
		return 0, fmt.Errorf("write past the end (%d+%d of %d)", off, len(p), len(m))
	}
	return copy(m[off:], p), nil
}

// gokFile is a file of gokFAT: its 8.3 directory name (11 bytes), first
// cluster and content.
type gokFile struct {
	short   string
	cluster int
	data    []byte
}

// gokFAT writes at off of dev a FAT16 file system with gok's header
// (OEM "gokrazy!", 4 reserved sectors, one FAT, 2 KiB clusters, 144 root
// entries, 1 hidden sector) holding files, each at the cluster given, and
// ending exactly after its last cluster, as gok writes it.
func gokFAT(dev memDev, off int64, clusters int, files map[string]gokFile) FATHeader {
	h := FATHeader{OEM: "gokrazy!", BytesPerSector: 512, SectorsPerCluster: 4, ReservedSectors: 4, FATs: 1,
		RootEntries: 144, Media: 0xF8, SectorsPerTrack: 32, Heads: 4, HiddenSectors: 1, DriveNumber: 0x80,
		VolumeID: 0x12345678, Label: "gokrazy", FSType: "FAT16"}
	h.FATSectors = uint16((clusters+2)*2/512 + 1)
	h.TotalSectors = h.firstDataSector() + uint32(clusters)*4
	le := binary.LittleEndian
	b := dev[off:]
	b[0], b[1], b[2] = 0xEB, 0x3C, 0x90
	copy(b[3:], h.OEM)
	le.PutUint16(b[11:], h.BytesPerSector)
	b[13] = h.SectorsPerCluster
	le.PutUint16(b[14:], h.ReservedSectors)
	b[16] = h.FATs
	le.PutUint16(b[17:], h.RootEntries)
	b[21] = h.Media
	le.PutUint16(b[22:], h.FATSectors)
	le.PutUint16(b[24:], h.SectorsPerTrack)
	le.PutUint16(b[26:], h.Heads)
	le.PutUint32(b[28:], h.HiddenSectors)
	le.PutUint32(b[32:], h.TotalSectors)
	b[36], b[38] = h.DriveNumber, 0x29
	le.PutUint32(b[39:], h.VolumeID)
	copy(b[43:], "gokrazy    FAT16   ")
	b[510], b[511] = 0x55, 0xAA
	fat := b[int(h.ReservedSectors)*512:]
	le.PutUint16(fat[0:], 0xFFF8)
	le.PutUint16(fat[2:], 0xFFFF)
	root := b[(int(h.ReservedSectors)+int(h.FATSectors))*512:]
	data := b[int(h.firstDataSector())*512:]
	// The volume label's entry, as mformat and gok write it.
	copy(root, "gokrazy    ")
	root[11] = 0x08
	i := 1
	entry := func(short string, cluster, size int) {
		e := root[32*i:]
		copy(e, short)
		e[11] = 0x20
		le.PutUint16(e[26:], uint16(cluster))
		le.PutUint32(e[28:], uint32(size))
		i++
	}
	taken := make([]bool, clusters+2)
	for _, f := range files {
		n := (len(f.data) + 2047) / 2048
		for k := 0; k < n; k++ {
			next := 0xFFFF
			if k < n-1 {
				next = f.cluster + k + 1
			}
			le.PutUint16(fat[2*(f.cluster+k):], uint16(next))
			taken[f.cluster+k] = true
		}
		copy(data[(f.cluster-2)*2048:], f.data)
		entry(f.short, f.cluster, len(f.data))
	}
	// Every other cluster belongs to one more file, so that none is free,
	// as in gok's image.
	var rest []int
	for c := 2; c < clusters+2; c++ {
		if !taken[c] {
			rest = append(rest, c)
		}
	}
	for k, c := range rest {
		next := 0xFFFF
		if k < len(rest)-1 {
			next = rest[k+1]
		}
		le.PutUint16(fat[2*c:], uint16(next))
	}
	if len(rest) > 0 {
		entry("FILL       ", rest[0], len(rest)*2048)
	}
	return h
}

func TestGrowFAT16KeepsGoksFileSystem(t *testing.T) {
	const off = 8192 * 512
	const clusters = 4200
	size := int64(30 << 20)
	dev := make(memDev, off+size+1<<20)
	for i := range dev[off+size:] {
		dev[off+size+int64(i)] = 0xAA // past the partition: must stay untouched
	}
	files := map[string]gokFile{
		"vmlinuz":     {"VMLINUZ    ", 2, bytes.Repeat([]byte("kernel"), 3000)},      // 9 clusters
		"cmdline.txt": {"CMDLINE TXT", 11, []byte("console=tty1 root=PARTUUID=x\n")}, // one
		"last.dtb":    {"LAST    DTB", clusters + 1, bytes.Repeat([]byte{7}, 700)},   // the very last cluster
	}
	gok := gokFAT(dev, off, clusters, files)
	free, err := FreeBytes(dev[off:])
	require.NoError(t, err)
	assert.Zero(t, free, "gok's file system has no free cluster")

	require.NoError(t, GrowFAT16(dev, off, size))
	h, err := ReadFATHeader(dev[off:])
	require.NoError(t, err)
	assert.Nil(t, h.SameButSize(gok), "only the size fields changed")
	assert.EqualValues(t, size/512, h.TotalSectors)
	assert.EqualValues(t, RootDirEntries, h.RootEntries)
	assert.Greater(t, h.FATSectors, gok.FATSectors)
	assert.LessOrEqual(t, (h.Clusters()+2)*2, uint32(h.FATSectors)*512, "the FAT covers every cluster")

	for name, f := range files {
		got, err := fat.ReadFile(dev[off:off+size], name, 1<<20)
		require.NoError(t, err, name)
		assert.Equal(t, f.data, got.Data, name)
	}
	free, err = FreeBytes(dev[off:])
	require.NoError(t, err)
	assert.EqualValues(t, int64(h.Clusters()-clusters)*2048, free, "every new cluster is free")
	for i, b := range dev[off+size:] {
		if b != 0xAA {
			t.Fatalf("byte %d past the partition was written", i)
		}
	}

	// Growing again changes nothing.
	before := bytes.Clone(dev)
	require.NoError(t, GrowFAT16(dev, off, size))
	assert.True(t, bytes.Equal(before, dev), "a grown file system is left as it is")

	// dosfstools, where installed, agrees that it is sound, and mtools can
	// add the token file as a laptop would.
	fsck, err := exec.LookPath("fsck.fat")
	if err != nil {
		fsck, err = exec.LookPath("/sbin/fsck.fat")
	}
	if err != nil {
		t.Log("fsck.fat not installed: the file system's soundness is checked only by the reads above")
		return
	}
	img := filepath.Join(t.TempDir(), "boot.img")
	require.NoError(t, os.WriteFile(img, dev[off:off+size], 0o644))
	out, err := exec.Command(fsck, "-n", img).CombinedOutput()
	require.NoError(t, err, "fsck.fat -n:\n%s", out)
	if mcopy, err := exec.LookPath("mcopy"); err == nil {
		tok := filepath.Join(t.TempDir(), "flipbot-token.txt")
		require.NoError(t, os.WriteFile(tok, []byte("fsbm_x\n"), 0o644))
		out, err := exec.Command(mcopy, "-i", img, tok, "::flipbot-token.txt").CombinedOutput()
		require.NoError(t, err, "%s", out)
		f, err := os.Open(img)
		require.NoError(t, err)
		defer f.Close()
		got, err := fat.ReadFile(f, "flipbot-token.txt", 100)
		require.NoError(t, err)
		assert.Equal(t, "fsbm_x\n", string(got.Data))
	}
}

func TestGrowFAT16Refuses(t *testing.T) {
	const clusters = 4200
	dev := make(memDev, 20<<20)
	gokFAT(dev, 0, clusters, nil)
	h, err := ReadFATHeader(dev)
	require.NoError(t, err)
	assert.ErrorContains(t, GrowFAT16(dev, 0, int64(h.TotalSectors-1)*512), "larger than its partition")
	assert.ErrorContains(t, GrowFAT16(dev, 0, 200<<20), "more than FAT16 holds")
	assert.ErrorContains(t, GrowFAT16(dev, 0, 1<<40), "needs a FAT of")

	junk := make(memDev, 1<<20)
	assert.ErrorContains(t, GrowFAT16(junk, 0, 1<<20), "signature")
	binary.LittleEndian.PutUint16(dev[11:], 4096)
	assert.ErrorContains(t, GrowFAT16(dev, 0, 20<<20), "bytes a sector")
}

func TestCheckHybridMBR(t *testing.T) {
	img := gptImage([][2]uint64{{8192, 8192 + 204799}, {210000, 220000}, {220001, 230001}, {230002, 400000}})
	parts, err := ReadPartitions(bytes.NewReader(img))
	require.NoError(t, err)
	entry := func(i int, boot, typ byte, first, n uint32) {
		e := img[446+16*i:]
		e[0], e[4] = boot, typ
		binary.LittleEndian.PutUint32(e[8:], first)
		binary.LittleEndian.PutUint32(e[12:], n)
	}
	img[510], img[511] = 0x55, 0xAA
	entry(0, 0x80, 0x0C, 8192, 204800)
	entry(1, 0, 0xEE, 1, 8191)
	require.NoError(t, checkHybridMBR(bytes.NewReader(img), parts))

	for _, c := range []struct {
		name    string
		mend    func()
		wantErr string
	}{
		{"type", func() { entry(0, 0x80, 0x83, 8192, 204800) }, "type 0x83"},
		{"inactive", func() { entry(0, 0, 0x0C, 8192, 204800) }, "not marked active"},
		{"elsewhere", func() { entry(0, 0x80, 0x0C, 2048, 204800) }, "is not GPT partition 1"},
		{"no protective entry", func() { entry(1, 0, 0, 0, 0) }, "protective"},
		{"no signature", func() { img[510] = 0 }, "signature"},
	} {
		t.Run(c.name, func(t *testing.T) {
			saved := bytes.Clone(img[:512])
			defer copy(img, saved)
			c.mend()
			assert.ErrorContains(t, checkHybridMBR(bytes.NewReader(img), parts), c.wantErr)
		})
	}
}

func FuzzReadFATHeader(f *testing.F) {
	dev := make(memDev, 20<<20)
	gokFAT(dev, 0, 4200, nil)
	f.Add([]byte(dev[:512]))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 512 {
			return
		}
		h, err := parseFATHeader(b[:512])
		if err == nil {
			assert.Less(t, h.firstDataSector(), h.TotalSectors)
		}
	})
}
