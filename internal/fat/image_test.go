package fat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fat16 builds a FAT16 image in memory, without mkfs.vfat or mtools: 512
// bytes a sector, one sector a cluster, one reserved sector, two FATs.
// Files are laid out one after the other from cluster 2. Tests that need
// a hostile root directory add raw 32-byte entries.
type fat16 struct {
	sectors     int // total sectors
	rootEntries int
	dir         [][]byte // root directory entries, in order
	data        [][]byte // file contents, in cluster order
	nextCluster int
}

func newFAT16(sectors, rootEntries int) *fat16 {
	return &fat16{sectors: sectors, rootEntries: rootEntries, nextCluster: 2}
}

// shortEntry returns a directory entry of an 8.3 name (11 bytes, space
// padded) for a file of size bytes at cluster.
func shortEntry(name string, cluster, size int) []byte {
	e := make([]byte, 32)
	copy(e, name+"           "[:11-len(name)])
	e[11] = 0x20 // archive
	le := binary.LittleEndian
	le.PutUint16(e[22:], 12<<11|34<<5|56/2) // 12:34:56
	le.PutUint16(e[24:], 46<<9|12<<5|2)     // 2026-12-02
	le.PutUint16(e[26:], uint16(cluster))
	le.PutUint32(e[28:], uint32(size))
	return e
}

// lfnEntries returns the long-name entries of long for the short name
// short (11 bytes), in the order they are written: the last part first,
// marked 0x40, down to part 1.
func lfnEntries(long string, short string) [][]byte {
	u := utf16.Encode([]rune(long))
	if len(u)%13 != 0 {
		u = append(u, 0)
	}
	for len(u)%13 != 0 {
		u = append(u, 0xFFFF)
	}
	n := len(u) / 13
	sum := checksum([]byte(short))
	var out [][]byte
	for ord := n; ord >= 1; ord-- {
		out = append(out, lfnEntry(byte(ord), ord == n, sum, u[(ord-1)*13:ord*13]))
	}
	return out
}

// lfnEntry returns one long-name entry holding the 13 characters part.
func lfnEntry(ord byte, last bool, sum byte, part []uint16) []byte {
	e := make([]byte, 32)
	e[0] = ord
	if last {
		e[0] |= 0x40
	}
	e[11] = 0x0F
	e[13] = sum
	k := 0
	for _, r := range [][2]int{{1, 11}, {14, 26}, {28, 32}} {
		for j := r[0]; j < r[1]; j += 2 {
			binary.LittleEndian.PutUint16(e[j:], part[k])
			k++
		}
	}
	return e
}

// addFile adds a file with the 8.3 name short (11 bytes, space padded) and,
// when long is not empty, that long name.
func (b *fat16) addFile(long, short string, data []byte) {
	if long != "" {
		b.dir = append(b.dir, lfnEntries(long, short)...)
	}
	cluster := 0
	if len(data) > 0 {
		cluster = b.nextCluster
		b.nextCluster += (len(data) + 511) / 512
		b.data = append(b.data, data)
	}
	b.dir = append(b.dir, shortEntry(short, cluster, len(data)))
}

// bytes returns the image.
func (b *fat16) bytes(t testing.TB) []byte {
	t.Helper()
	const bps = 512
	le := binary.LittleEndian
	rootSectors := (b.rootEntries*32 + bps - 1) / bps
	fatSz := ((b.sectors+2)*2 + bps - 1) / bps // room for every sector's cluster
	firstData := 1 + 2*fatSz + rootSectors
	if n := b.sectors - firstData; n < 4085 || n >= 65525 {
		t.Fatalf("fat16 image: %d clusters is not FAT16", n)
	}
	if len(b.dir) > b.rootEntries {
		t.Fatalf("fat16 image: %d root entries, room for %d", len(b.dir), b.rootEntries)
	}
	img := make([]byte, b.sectors*bps)
	bs := img[:bps]
	copy(bs, "\xEB\x3C\x90MSWIN4.1")
	le.PutUint16(bs[11:], bps)
	bs[13] = 1 // sectors per cluster
	le.PutUint16(bs[14:], 1)
	bs[16] = 2
	le.PutUint16(bs[17:], uint16(b.rootEntries))
	le.PutUint16(bs[19:], uint16(b.sectors))
	if b.sectors > 0xFFFF {
		le.PutUint16(bs[19:], 0)
		le.PutUint32(bs[32:], uint32(b.sectors))
	}
	bs[21] = 0xF8
	le.PutUint16(bs[22:], uint16(fatSz))
	bs[510], bs[511] = 0x55, 0xAA

	fat := make([]byte, fatSz*bps)
	le.PutUint16(fat[0:], 0xFFF8)
	le.PutUint16(fat[2:], 0xFFFF)
	c := 2
	for _, d := range b.data {
		n := (len(d) + 511) / 512
		copy(img[(firstData+c-2)*bps:], d)
		for i := range n {
			next := uint16(c + i + 1)
			if i == n-1 {
				next = 0xFFFF
			}
			le.PutUint16(fat[2*(c+i):], next)
		}
		c += n
	}
	copy(img[bps:], fat)
	copy(img[(1+fatSz)*bps:], fat)
	root := img[(1+2*fatSz)*bps:]
	for i, e := range b.dir {
		copy(root[32*i:], e)
	}
	return img
}

// manyParts returns a 12 MiB FAT16 image whose root directory holds 65,520
// long-name parts of one checksum (the first marked last, 0x40) and then
// the short entry of the token file: the image of issue 25.
func manyParts(t testing.TB) []byte {
	const parts = 65520
	b := newFAT16(24576, 65535)
	short := "FLIPBO~1TXT"
	sum := checksum([]byte(short))
	part := utf16.Encode([]rune("abcdefghijklm"))
	for i := range parts {
		b.dir = append(b.dir, lfnEntry(byte(1+i%20), i == 0, sum, part))
	}
	b.addFile("", short, []byte("fsbm_0123456789abcdefghij\n"))
	return b.bytes(t)
}

// BenchmarkManyLongNameParts looks for the token file on the image of
// issue 25, as the appliance does at start.
func BenchmarkManyLongNameParts(b *testing.B) {
	img := manyParts(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(bytes.NewReader(img), "flipbot-token.txt", 4096); err != nil && !errors.Is(err, ErrNotExist) {
			b.Fatal(err)
		}
	}
}

// readName reads name from img and returns its data, or the error.
func readName(t *testing.T, img []byte, name string) (string, error) {
	t.Helper()
	f, err := ReadFile(bytes.NewReader(img), name, 4096)
	return string(f.Data), err
}

func TestLongNames(t *testing.T) {
	name255 := strings.Repeat("n", 251) + ".txt"
	name256 := strings.Repeat("n", 252) + ".txt"
	b := newFAT16(8192, 512)
	b.addFile("flipbot-token.txt", "FLIPBO~1TXT", []byte("token"))
	b.addFile("Ünïcode nämé.txt", "UNICOD~1TXT", []byte("unicode"))
	b.addFile(name255, "NNNNNN~1TXT", []byte("255")) // 20 parts
	b.addFile(name256, "NNNNNN~2TXT", []byte("256")) // 20 parts, 256 characters
	b.addFile("", "CONFIG  TXT", []byte("config"))
	img := b.bytes(t)

	for name, want := range map[string]string{
		"flipbot-token.txt": "token", "FLIPBOT-TOKEN.TXT": "token", "FLIPBO~1.TXT": "",
		"ünïcode nämé.txt": "unicode",
		name255:            "255", "NNNNNN~1.TXT": "",
		name256: "", "NNNNNN~2.TXT": "256",
		"config.txt": "config",
	} {
		got, err := readName(t, img, name)
		if want == "" {
			assert.ErrorIs(t, err, ErrNotExist, "%.20s: a file with a long name is known by it only", name)
			continue
		}
		require.NoError(t, err, "%.20s", name)
		assert.Equal(t, want, got, "%.20s", name)
	}
}

// TestLongNamesFollowTheSpecification: a long name's parts count down from
// the one marked 0x40 to 1, at most 20 of them, with the checksum of the
// short entry after them; any other run of parts is an orphan and the
// file keeps its short name.
func TestLongNamesFollowTheSpecification(t *testing.T) {
	const long, short = "flipbot-token.txt", "FLIPBO~1TXT"
	good := lfnEntries(long, short) // 0x42, 0x01
	sum := checksum([]byte(short))
	part := func(ord byte, last bool, s byte) []byte {
		return lfnEntry(ord, last, s, utf16.Encode([]rune("abcdefghijklm")))
	}
	long21 := strings.Repeat("x", 20*13+1)
	cases := map[string][][]byte{
		"the parts swapped":           {good[1], good[0]},
		"no part marked last":         {good[1]},
		"a part missing":              {good[0]},
		"a part twice":                {good[0], good[1], good[1]},
		"a checksum that changes":     {good[0], part(1, false, sum+1)},
		"another short entry's parts": lfnEntries(long, "OTHER   TXT"),
		"ordinal 0":                   {part(0, true, sum)},
		"21 parts":                    lfnEntries(long21, short),
		"ordinal 21 marked last":      append([][]byte{part(21, true, sum)}, lfnEntries(long21, short)[1:]...),
		"a part past the count":       {part(2, true, sum), part(1, false, sum), part(1, false, sum)},
		"a deleted entry between":     {good[0], append([]byte{0xE5}, good[1][1:]...)},
		"a volume label between":      {good[0], shortEntry("LABEL", 0, 0), good[1]},
	}
	cases["a volume label between"][1][11] = 0x08
	for what, lfn := range cases {
		t.Run(what, func(t *testing.T) {
			b := newFAT16(8192, 512)
			b.dir = append(b.dir, lfn...)
			b.addFile("", short, []byte("token"))
			img := b.bytes(t)
			_, err := readName(t, img, long)
			assert.ErrorIs(t, err, ErrNotExist)
			_, err = readName(t, img, long21)
			assert.ErrorIs(t, err, ErrNotExist)
			got, err := readName(t, img, "FLIPBO~1.TXT")
			require.NoError(t, err, "the short name stands")
			assert.Equal(t, "token", got)
		})
	}

	// The same parts in order name the file; a name's parts before an
	// orphan do not matter.
	b := newFAT16(8192, 512)
	b.dir = append(b.dir, part(3, true, sum+1), part(7, false, sum))
	b.dir = append(b.dir, good...)
	b.addFile("", short, []byte("token"))
	got, err := readName(t, b.bytes(t), long)
	require.NoError(t, err)
	assert.Equal(t, "token", got)
}

// TestManyLongNamePartsAreCheap: the image of issue 25 (65,520 parts of
// one checksum in a 12 MiB FAT16 root directory) took 23.6 s and 53 GB of
// allocations to search; the directory is now read once, with one fixed
// buffer for the name.
func TestManyLongNamePartsAreCheap(t *testing.T) {
	img := manyParts(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readName(t, img, "flipbot-token.txt")
	runtime.ReadMemStats(&after)
	assert.ErrorIs(t, err, ErrNotExist)
	alloc := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, alloc, uint64(8<<20), "bytes allocated (the root directory is 2 MiB)")
	got, err := readName(t, img, "FLIPBO~1.TXT")
	require.NoError(t, err, "the parts are orphans: the short name stands")
	assert.Equal(t, "fsbm_0123456789abcdefghij\n", got)
}

// FuzzEntries: any directory parses without a panic, and no name is
// longer than the specification's 255 characters.
func FuzzEntries(f *testing.F) {
	var seed []byte
	for _, e := range lfnEntries("flipbot-token.txt", "FLIPBO~1TXT") {
		seed = append(seed, e...)
	}
	seed = append(seed, shortEntry("FLIPBO~1TXT", 2, 5)...)
	f.Add(seed)
	var long []byte
	for _, e := range lfnEntries(strings.Repeat("é", 255), "LONG    TXT") {
		long = append(long, e...)
	}
	f.Add(append(long, shortEntry("LONG    TXT", 0, 0)...))
	f.Fuzz(func(t *testing.T, dir []byte) {
		for _, d := range entries(dir) {
			if n := len(utf16.Encode([]rune(d.name))); n > maxLFNChars {
				t.Fatalf("a name of %d characters", n)
			}
		}
	})
}

// TestReadFileOnAGoImage: the reads TestReadFile checks on mkfs.vfat's
// images, on one built here (so they run where dosfstools is missing): a
// file over clusters, the caller's size limit checked against the
// directory entry before any cluster is read, and a chain cut short.
func TestReadFileOnAGoImage(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 300) // 10 clusters
	b := newFAT16(8192, 512)
	b.addFile("big.bin", "BIG     BIN", big)
	b.addFile("", "EMPTY   TXT", nil)
	b.addFile("huge.bin", "HUGE    BIN", []byte("x"))
	b.dir[len(b.dir)-1][28], b.dir[len(b.dir)-1][31] = 0xFF, 0xFF // claims 4 GB
	img := b.bytes(t)

	f, err := ReadFile(bytes.NewReader(img), "BIG.BIN", 1<<20)
	require.NoError(t, err)
	assert.Equal(t, big, f.Data)
	assert.Equal(t, "2026-12-02 12:34:56", f.ModTime.Format(time.DateTime))
	_, err = ReadFile(bytes.NewReader(img), "big.bin", 4096)
	assert.ErrorIs(t, err, ErrTooLarge)
	f, err = ReadFile(bytes.NewReader(img), "empty.txt", 4096)
	require.NoError(t, err)
	assert.Empty(t, f.Data)
	_, err = ReadFile(bytes.NewReader(img), "huge.bin", 1<<30)
	assert.ErrorIs(t, err, ErrTooLarge, "a 4 GB entry is refused before a cluster is read")

	cut := bytes.Clone(img)
	fatStart := 512
	binary.LittleEndian.PutUint16(cut[fatStart+2*5:], 0xFFFF) // the chain ends after 4 clusters
	_, err = ReadFile(bytes.NewReader(cut), "big.bin", 1<<20)
	assert.ErrorContains(t, err, "end early")
}
