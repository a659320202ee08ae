// Package fat reads a file from the root directory of a FAT12/16/32 file
// system without mounting it: the structures are parsed here from an
// io.ReaderAt, so a card is never written (a power cut during a FAT write
// can leave a card unbootable), no kernel mount can race gok update's raw
// rewrite of the partition, and tests need no root or loop devices. The
// device reads its card's token file with it (appliance/bootfs), the host
// tools an image's boot files (gokrazy/disk).
//
// Only the root directory is searched; long (VFAT) names are matched case
// insensitively. A long name is taken only as the FAT specification lays it
// out (at most 20 parts, ordinals in sequence, one checksum, that of its
// short entry), in time linear in the directory. Every length and cluster
// number is checked: a damaged file system is an error, never a crash or an
// unbounded read.
//
// Files: fat.go (the FAT structures, [ReadFile]).
//
// It imports the standard library only, nothing of the module.
package fat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf16"
)

// File is a file read from the root directory.
type File struct {
	Name    string
	Data    []byte
	ModTime time.Time
}

// ErrNotExist means the root directory holds no file of that name.
var ErrNotExist = errors.New("no such file in the FAT root directory")

// ErrTooLarge means the file is larger than the caller's limit.
var ErrTooLarge = errors.New("file too large")

// volume is a parsed FAT boot sector.
type volume struct {
	r           io.ReaderAt
	bps         int64 // bytes per sector
	spc         int64 // sectors per cluster
	fatStart    int64 // byte offset of the first FAT
	fatType     int   // 12, 16 or 32
	rootStart   int64 // FAT12/16: byte offset of the root directory
	rootEntries int64 // FAT12/16: its entry count
	rootCluster uint32
	dataStart   int64 // byte offset of cluster 2
	clusters    uint32
}

func open(r io.ReaderAt) (*volume, error) {
	bs := make([]byte, 512)
	if _, err := r.ReadAt(bs, 0); err != nil {
		return nil, fmt.Errorf("read boot sector: %w", err)
	}
	if bs[510] != 0x55 || bs[511] != 0xAA {
		return nil, errors.New("not a FAT file system (no boot sector signature)")
	}
	le := binary.LittleEndian
	v := &volume{r: r}
	v.bps = int64(le.Uint16(bs[11:]))
	v.spc = int64(bs[13])
	reserved := int64(le.Uint16(bs[14:]))
	nFATs := int64(bs[16])
	v.rootEntries = int64(le.Uint16(bs[17:]))
	total := int64(le.Uint16(bs[19:]))
	if total == 0 {
		total = int64(le.Uint32(bs[32:]))
	}
	fatSz := int64(le.Uint16(bs[22:]))
	if fatSz == 0 {
		fatSz = int64(le.Uint32(bs[36:]))
	}
	switch v.bps {
	case 512, 1024, 2048, 4096:
	default:
		return nil, fmt.Errorf("not a FAT file system (%d bytes per sector)", v.bps)
	}
	if v.spc == 0 || v.spc&(v.spc-1) != 0 || reserved == 0 || nFATs == 0 || fatSz == 0 || total == 0 {
		return nil, errors.New("not a FAT file system (bad geometry)")
	}
	rootSectors := (v.rootEntries*32 + v.bps - 1) / v.bps
	firstData := reserved + nFATs*fatSz + rootSectors
	if firstData >= total {
		return nil, errors.New("FAT geometry: no data area")
	}
	n := (total - firstData) / v.spc
	switch {
	case n < 4085:
		v.fatType = 12
	case n < 65525:
		v.fatType = 16
	default:
		v.fatType = 32
	}
	// The FAT must have room for every cluster.
	if need := (n + 2) * int64(v.fatType) / 8; need > fatSz*v.bps {
		return nil, errors.New("FAT geometry: the FAT is too small for the data area")
	}
	v.clusters = uint32(n)
	v.fatStart = reserved * v.bps
	v.rootStart = (reserved + nFATs*fatSz) * v.bps
	v.dataStart = firstData * v.bps
	if v.fatType == 32 {
		v.rootCluster = le.Uint32(bs[44:])
	} else if v.rootEntries == 0 {
		return nil, errors.New("FAT geometry: no root directory")
	}
	return v, nil
}

func (v *volume) clusterSize() int64 { return v.bps * v.spc }

// next returns the cluster after c in its chain, and whether there is one.
func (v *volume) next(c uint32) (uint32, bool, error) {
	var b [4]byte
	le := binary.LittleEndian
	var e uint32
	switch v.fatType {
	case 12:
		off := v.fatStart + int64(c) + int64(c)/2
		if _, err := v.r.ReadAt(b[:2], off); err != nil {
			return 0, false, fmt.Errorf("read FAT: %w", err)
		}
		e = uint32(le.Uint16(b[:2]))
		if c&1 == 1 {
			e >>= 4
		}
		e &= 0xFFF
		if e >= 0xFF8 {
			return 0, false, nil
		}
	case 16:
		if _, err := v.r.ReadAt(b[:2], v.fatStart+2*int64(c)); err != nil {
			return 0, false, fmt.Errorf("read FAT: %w", err)
		}
		e = uint32(le.Uint16(b[:2]))
		if e >= 0xFFF8 {
			return 0, false, nil
		}
	default:
		if _, err := v.r.ReadAt(b[:], v.fatStart+4*int64(c)); err != nil {
			return 0, false, fmt.Errorf("read FAT: %w", err)
		}
		e = le.Uint32(b[:]) & 0x0FFFFFFF
		if e >= 0x0FFFFFF8 {
			return 0, false, nil
		}
	}
	if e < 2 || e >= v.clusters+2 {
		return 0, false, fmt.Errorf("damaged FAT: cluster %d links to %d", c, e)
	}
	return e, true, nil
}

// chain reads up to limit bytes of the cluster chain starting at c.
func (v *volume) chain(c uint32, limit int64) ([]byte, error) {
	var out []byte
	cs := v.clusterSize()
	for steps := uint32(0); ; steps++ {
		if c < 2 || c >= v.clusters+2 {
			return nil, fmt.Errorf("damaged file system: cluster %d out of range", c)
		}
		if steps > v.clusters {
			return nil, errors.New("damaged FAT: a cluster chain loops")
		}
		n := min(cs, limit-int64(len(out)))
		buf := make([]byte, n)
		if _, err := v.r.ReadAt(buf, v.dataStart+int64(c-2)*cs); err != nil {
			return nil, fmt.Errorf("read cluster %d: %w", c, err)
		}
		out = append(out, buf...)
		if int64(len(out)) >= limit {
			return out, nil
		}
		nc, ok, err := v.next(c)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		c = nc
	}
}

// maxRootDir bounds a FAT32 root directory read (64 K entries).
const maxRootDir = 2 << 20

func (v *volume) rootDir() ([]byte, error) {
	if v.fatType == 32 {
		return v.chain(v.rootCluster, maxRootDir)
	}
	buf := make([]byte, v.rootEntries*32)
	if _, err := v.r.ReadAt(buf, v.rootStart); err != nil {
		return nil, fmt.Errorf("read root directory: %w", err)
	}
	return buf, nil
}

// dirent is one file of a directory.
type dirent struct {
	name    string
	cluster uint32
	size    uint32
	mod     time.Time
	attr    byte
}

// Long directory entries, as the Microsoft FAT specification (fatgen103,
// "FAT Long Directory Entries") lays them out.
const (
	attrLongName  = 0x0F // LDIR_Attr of a long-name part
	lastLongEntry = 0x40 // LDIR_Ord flag of a name's last part, written first
	// maxLFNParts bounds a long name: 255 characters at most, 13 a part.
	maxLFNParts = 20
	// maxLFNChars is the longest long name the specification allows.
	maxLFNChars  = 255
	lfnPartChars = 13
)

// longName collects one long name's parts as the directory holds them:
// the part of ordinal N marked lastLongEntry first, then N−1 down to 1,
// all with the checksum of the short entry that follows. Anything else
// (an ordinal out of place, a checksum that changes, more than
// maxLFNParts) orphans the parts, and the short entry keeps its short
// name, as the specification says. Each entry costs O(1).
type longName struct {
	buf  [maxLFNParts * lfnPartChars]uint16
	n    int  // parts of the name being collected (0: none)
	next int  // ordinal of the part expected next (0: complete)
	sum  byte // LDIR_Chksum of its parts
}

// add takes one long-name entry.
func (l *longName) add(e []byte) {
	ord := int(e[0])
	if ord&lastLongEntry != 0 {
		ord &^= lastLongEntry
		l.n, l.next, l.sum = 0, 0, e[13]
		if ord < 1 || ord > maxLFNParts {
			return
		}
		l.n, l.next = ord, ord
	} else if l.next == 0 || ord != l.next || e[13] != l.sum {
		l.n, l.next = 0, 0 // an orphan part
		return
	}
	le := binary.LittleEndian
	k := (ord - 1) * lfnPartChars
	for _, r := range [][2]int{{1, 11}, {14, 26}, {28, 32}} {
		for j := r[0]; j < r[1]; j += 2 {
			l.buf[k] = le.Uint16(e[j:])
			k++
		}
	}
	l.next--
}

// take returns the long name of the short entry e, if the parts before it
// make a whole one of its checksum, and forgets the parts.
func (l *longName) take(e []byte) (string, bool) {
	n, complete, sum := l.n, l.next == 0, l.sum
	l.reset()
	if n == 0 || !complete || sum != checksum(e[:11]) {
		return "", false
	}
	u := l.buf[:n*lfnPartChars]
	for i, c := range u {
		if c == 0 {
			u = u[:i]
			break
		}
	}
	if len(u) == 0 || len(u) > maxLFNChars {
		return "", false
	}
	return string(utf16.Decode(u)), true
}

func (l *longName) reset() { l.n, l.next = 0, 0 }

// entries parses a directory's 32-byte entries, joining long names, in
// time linear in the directory's size.
func entries(dir []byte) []dirent {
	var out []dirent
	var lfn longName
	le := binary.LittleEndian
	for i := 0; i+32 <= len(dir); i += 32 {
		e := dir[i : i+32]
		switch {
		case e[0] == 0:
			return out
		case e[0] == 0xE5:
			lfn.reset()
			continue
		}
		attr := e[11]
		if attr&0x3F == attrLongName {
			lfn.add(e)
			continue
		}
		if attr&0x08 != 0 { // volume label
			lfn.reset()
			continue
		}
		d := dirent{
			attr:    attr,
			cluster: uint32(le.Uint16(e[20:]))<<16 | uint32(le.Uint16(e[26:])),
			size:    le.Uint32(e[28:]),
			mod:     fatTime(le.Uint16(e[24:]), le.Uint16(e[22:])),
		}
		if name, ok := lfn.take(e); ok {
			d.name = name
		} else {
			d.name = shortName(e)
		}
		out = append(out, d)
	}
	return out
}

func checksum(name []byte) byte {
	var s byte
	for _, c := range name {
		s = (s>>1 | s<<7) + c
	}
	return s
}

func shortName(e []byte) string {
	base := strings.TrimRight(string(e[0:8]), " ")
	ext := strings.TrimRight(string(e[8:11]), " ")
	if e[0] == 0x05 {
		base = "\xe5" + base[1:]
	}
	if e[12]&0x08 != 0 {
		base = strings.ToLower(base)
	}
	if e[12]&0x10 != 0 {
		ext = strings.ToLower(ext)
	}
	if ext == "" {
		return base
	}
	return base + "." + ext
}

// fatTime converts a FAT date and time. FAT keeps no time zone: the
// laptop's local time is read as UTC.
func fatTime(date, tm uint16) time.Time {
	if date == 0 {
		return time.Time{}
	}
	return time.Date(1980+int(date>>9), time.Month(date>>5&0xF), int(date&0x1F),
		int(tm>>11), int(tm>>5&0x3F), int(tm&0x1F)*2, 0, time.UTC)
}

// ReadFile returns the file name from the root directory of the FAT file
// system r, if it is at most limit bytes long.
func ReadFile(r io.ReaderAt, name string, limit int64) (File, error) {
	v, err := open(r)
	if err != nil {
		return File{}, err
	}
	dir, err := v.rootDir()
	if err != nil {
		return File{}, err
	}
	for _, d := range entries(dir) {
		if !strings.EqualFold(d.name, name) || d.attr&0x10 != 0 {
			continue
		}
		f := File{Name: d.name, ModTime: d.mod}
		if int64(d.size) > limit {
			return f, fmt.Errorf("%s: %w (%d bytes, at most %d)", name, ErrTooLarge, d.size, limit)
		}
		if d.size == 0 {
			f.Data = []byte{}
			return f, nil
		}
		data, err := v.chain(d.cluster, int64(d.size))
		if err != nil {
			return f, fmt.Errorf("%s: %w", name, err)
		}
		if len(data) < int(d.size) {
			return f, fmt.Errorf("%s: damaged file system: the file's clusters end early", name)
		}
		f.Data = data
		return f, nil
	}
	return File{}, fmt.Errorf("%s: %w", name, ErrNotExist)
}
