package disk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FATHeader is the BIOS parameter block at the start of a FAT file system,
// as Microsoft's "FAT: General Overview of On-Disk Format" (fatgen103,
// 2000) lays it out in §3.1 (all FAT types) and §3.2 (FAT12/16). Only the
// FAT16 form is used here: that is what gok writes for the boot partition.
type FATHeader struct {
	OEM               string // BS_OEMName: gok writes "gokrazy!"
	BytesPerSector    uint16 // BPB_BytsPerSec
	SectorsPerCluster uint8  // BPB_SecPerClus
	ReservedSectors   uint16 // BPB_RsvdSecCnt
	FATs              uint8  // BPB_NumFATs
	RootEntries       uint16 // BPB_RootEntCnt
	TotalSectors      uint32 // BPB_TotSec16, or BPB_TotSec32 when that is 0
	Media             uint8  // BPB_Media
	FATSectors        uint16 // BPB_FATSz16
	SectorsPerTrack   uint16 // BPB_SecPerTrk
	Heads             uint16 // BPB_NumHeads
	HiddenSectors     uint32 // BPB_HiddSec
	DriveNumber       uint8  // BS_DrvNum
	VolumeID          uint32 // BS_VolID
	Label             string // BS_VolLab, spaces trimmed
	FSType            string // BS_FilSysType, spaces trimmed: "FAT16"
}

// ReadFATHeader reads the header of the FAT16 file system at the start of r.
func ReadFATHeader(r io.ReaderAt) (FATHeader, error) {
	b := make([]byte, SectorSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return FATHeader{}, fmt.Errorf("read FAT header: %w", err)
	}
	return parseFATHeader(b)
}

func parseFATHeader(b []byte) (FATHeader, error) {
	le := binary.LittleEndian
	if b[510] != 0x55 || b[511] != 0xAA {
		return FATHeader{}, errors.New("FAT header: no boot sector signature")
	}
	h := FATHeader{
		OEM:               string(b[3:11]),
		BytesPerSector:    le.Uint16(b[11:]),
		SectorsPerCluster: b[13],
		ReservedSectors:   le.Uint16(b[14:]),
		FATs:              b[16],
		RootEntries:       le.Uint16(b[17:]),
		TotalSectors:      uint32(le.Uint16(b[19:])),
		Media:             b[21],
		FATSectors:        le.Uint16(b[22:]),
		SectorsPerTrack:   le.Uint16(b[24:]),
		Heads:             le.Uint16(b[26:]),
		HiddenSectors:     le.Uint32(b[28:]),
		DriveNumber:       b[36],
		VolumeID:          le.Uint32(b[39:]),
		Label:             strings.TrimRight(string(b[43:54]), " "),
		FSType:            strings.TrimRight(string(b[54:62]), " "),
	}
	if h.TotalSectors == 0 {
		h.TotalSectors = le.Uint32(b[32:])
	}
	switch {
	case h.BytesPerSector != SectorSize:
		return h, fmt.Errorf("FAT header: %d bytes a sector, want %d", h.BytesPerSector, SectorSize)
	case h.SectorsPerCluster == 0 || h.SectorsPerCluster&(h.SectorsPerCluster-1) != 0:
		return h, fmt.Errorf("FAT header: %d sectors a cluster", h.SectorsPerCluster)
	case h.ReservedSectors == 0 || h.FATs == 0 || h.FATSectors == 0:
		return h, errors.New("FAT header: not FAT16 (no reserved sectors, FATs or 16-bit FAT size)")
	case b[38] != 0x29:
		return h, fmt.Errorf("FAT header: extended boot signature %#02x, want 0x29", b[38])
	case h.firstDataSector() >= h.TotalSectors:
		return h, errors.New("FAT header: no room for data")
	}
	if n := h.Clusters(); n < 4085 || n > 65524 {
		return h, fmt.Errorf("FAT header: %d clusters is not FAT16 (4085–65524, fatgen103 §3.5)", n)
	}
	return h, nil
}

func (h FATHeader) rootSectors() uint32 {
	return (uint32(h.RootEntries)*32 + uint32(h.BytesPerSector) - 1) / uint32(h.BytesPerSector)
}

func (h FATHeader) firstDataSector() uint32 {
	return uint32(h.ReservedSectors) + uint32(h.FATs)*uint32(h.FATSectors) + h.rootSectors()
}

// Clusters is the number of data clusters (fatgen103 §3.5).
func (h FATHeader) Clusters() uint32 {
	return (h.TotalSectors - h.firstDataSector()) / uint32(h.SectorsPerCluster)
}

// ClusterBytes is the size of a cluster.
func (h FATHeader) ClusterBytes() int64 {
	return int64(h.SectorsPerCluster) * int64(h.BytesPerSector)
}

// SameButSize reports the fields in which h and o differ, leaving out those
// that follow from the file system's size: the total sectors, the sectors
// of one FAT and the root directory's entries. nil means the same.
func (h FATHeader) SameButSize(o FATHeader) []string {
	h.TotalSectors, h.FATSectors, h.RootEntries = o.TotalSectors, o.FATSectors, o.RootEntries
	if h == o {
		return nil
	}
	var diff []string
	add := func(name string, a, b any) {
		if a != b {
			diff = append(diff, fmt.Sprintf("%s %v, not %v", name, a, b))
		}
	}
	add("OEM name", h.OEM, o.OEM)
	add("sectors a cluster", h.SectorsPerCluster, o.SectorsPerCluster)
	add("reserved sectors", h.ReservedSectors, o.ReservedSectors)
	add("FATs", h.FATs, o.FATs)
	add("media", h.Media, o.Media)
	add("sectors a track", h.SectorsPerTrack, o.SectorsPerTrack)
	add("heads", h.Heads, o.Heads)
	add("hidden sectors", h.HiddenSectors, o.HiddenSectors)
	add("drive number", h.DriveNumber, o.DriveNumber)
	add("volume ID", h.VolumeID, o.VolumeID)
	add("label", h.Label, o.Label)
	add("file system type", h.FSType, o.FSType)
	return diff
}

// FreeBytes counts the free clusters of the FAT16 file system at the start
// of r (entries that are 0 in the first FAT) and returns their size.
func FreeBytes(r io.ReaderAt) (int64, error) {
	h, err := ReadFATHeader(r)
	if err != nil {
		return 0, err
	}
	fat := make([]byte, int64(h.FATSectors)*SectorSize)
	if _, err := r.ReadAt(fat, int64(h.ReservedSectors)*SectorSize); err != nil {
		return 0, fmt.Errorf("read FAT: %w", err)
	}
	var free int64
	for c := uint32(2); c < h.Clusters()+2 && int(2*c+1) < len(fat); c++ {
		if binary.LittleEndian.Uint16(fat[2*c:]) == 0 {
			free++
		}
	}
	return free * h.ClusterBytes(), nil
}

// RootDirEntries is the root directory size a grown boot file system gets
// at least: 512 entries (16 KiB), the usual FAT16 value (fatgen103 §3.1,
// BPB_RootEntCnt). gok writes as many as its files need plus a few; a
// laptop that adds flipbot-token.txt (three entries with its long name)
// may also add its own (macOS: ._ files, .fseventsd, .Spotlight-V100).
const RootDirEntries = 512

// fatDevice is what GrowFAT16 reads and writes: an image file or a card.
type fatDevice interface {
	io.ReaderAt
	io.WriterAt
}

// GrowFAT16 makes the FAT16 file system that gok wrote at offset off of
// dev fill size bytes, in place: every file, directory entry and header
// field stays as gok wrote it (OEM name, cluster size, reserved sectors,
// number of FATs, media, geometry, hidden sectors, volume ID and label),
// except what follows from the new size: the total sectors, the FAT's
// size and the root directory's entries (at least RootDirEntries). gok
// writes its FAT exactly as large as its content, with no free cluster, so
// a laptop could not add flipbot-token.txt to a freshly written card.
//
// The clusters keep their numbers: the FAT is extended with free entries,
// the root directory with empty ones, and the data region moved up by the
// space they gained (copied from its end, as it moves to higher offsets).
func GrowFAT16(dev fatDevice, off, size int64) error {
	sec := make([]byte, SectorSize)
	if _, err := dev.ReadAt(sec, off); err != nil {
		return fmt.Errorf("read FAT header: %w", err)
	}
	old, err := parseFATHeader(sec)
	if err != nil {
		return err
	}
	if old.FSType != "FAT16" {
		return fmt.Errorf("boot file system is %q, want FAT16 (what gok writes)", old.FSType)
	}
	total := size / SectorSize
	if total < int64(old.TotalSectors) {
		return fmt.Errorf("boot file system (%d sectors) is larger than its partition (%d)", old.TotalSectors, total)
	}
	if total > 0xFFFFFFFF {
		return fmt.Errorf("boot partition of %d bytes is too large for FAT16", size)
	}
	grown := old
	grown.TotalSectors = uint32(total)
	grown.RootEntries = max(old.RootEntries, RootDirEntries)
	// The FAT must hold an entry (2 bytes) for each cluster plus the two
	// reserved ones; more FAT sectors leave fewer clusters, so iterate to
	// the fixed point from below (fatgen103 §3.5 gives the same bound).
	grown.FATSectors = old.FATSectors
	for {
		need := (grown.Clusters() + 2) * 2
		secs := (need + SectorSize - 1) / SectorSize
		if secs <= uint32(grown.FATSectors) {
			break
		}
		if secs > 0xFFFF {
			return fmt.Errorf("boot partition of %d bytes needs a FAT of %d sectors", size, secs)
		}
		grown.FATSectors = uint16(secs)
	}
	if n := grown.Clusters(); n > 65524 {
		return fmt.Errorf("boot partition of %d bytes has %d clusters of %d bytes: more than FAT16 holds", size, n, old.ClusterBytes())
	}
	if grown.RootEntries == old.RootEntries && grown.FATSectors == old.FATSectors && grown.TotalSectors == old.TotalSectors {
		return nil
	}

	// The data region: move it up, copying from its end.
	oldData := off + int64(old.firstDataSector())*SectorSize
	newData := off + int64(grown.firstDataSector())*SectorSize
	used := int64(old.Clusters()) * old.ClusterBytes()
	buf := make([]byte, 1<<20)
	for end := used; end > 0; {
		n := min(int64(len(buf)), end)
		start := end - n
		if _, err := dev.ReadAt(buf[:n], oldData+start); err != nil {
			return fmt.Errorf("read data region: %w", err)
		}
		if _, err := dev.WriteAt(buf[:n], newData+start); err != nil {
			return fmt.Errorf("write data region: %w", err)
		}
		end = start
	}

	// The root directory, then the FATs: both start at lower offsets than
	// before is overwritten, so read them first.
	root := make([]byte, int64(grown.rootSectors())*SectorSize)
	oldRoot := off + int64(uint32(old.ReservedSectors)+uint32(old.FATs)*uint32(old.FATSectors))*SectorSize
	if _, err := dev.ReadAt(root[:int64(old.rootSectors())*SectorSize], oldRoot); err != nil {
		return fmt.Errorf("read root directory: %w", err)
	}
	fat := make([]byte, int64(grown.FATSectors)*SectorSize)
	if _, err := dev.ReadAt(fat[:int64(old.FATSectors)*SectorSize], off+int64(old.ReservedSectors)*SectorSize); err != nil {
		return fmt.Errorf("read FAT: %w", err)
	}
	// Entries past the old clusters are free (fatgen103 §4: 0 is free);
	// gok's FAT may end in a partial sector of padding, cleared here too.
	for c := int64(old.Clusters()) + 2; 2*c+1 < int64(len(fat)); c++ {
		fat[2*c], fat[2*c+1] = 0, 0
	}
	newRoot := off + int64(uint32(grown.ReservedSectors)+uint32(grown.FATs)*uint32(grown.FATSectors))*SectorSize
	if _, err := dev.WriteAt(root, newRoot); err != nil {
		return fmt.Errorf("write root directory: %w", err)
	}
	for i := range int64(grown.FATs) {
		if _, err := dev.WriteAt(fat, off+int64(grown.ReservedSectors)*SectorSize+i*int64(len(fat))); err != nil {
			return fmt.Errorf("write FAT %d: %w", i+1, err)
		}
	}
	le := binary.LittleEndian
	le.PutUint16(sec[17:], grown.RootEntries)
	if grown.TotalSectors < 0x10000 {
		le.PutUint16(sec[19:], uint16(grown.TotalSectors))
		le.PutUint32(sec[32:], 0)
	} else {
		le.PutUint16(sec[19:], 0)
		le.PutUint32(sec[32:], grown.TotalSectors)
	}
	le.PutUint16(sec[22:], grown.FATSectors)
	if _, err := dev.WriteAt(sec, off); err != nil {
		return fmt.Errorf("write FAT header: %w", err)
	}
	return nil
}
