// Package disk works on gokrazy disk images and SD cards from the host:
// it reads the partition tables (gpt.go: the GPT; mbr.go: the hybrid MBR a
// Pi's boot ROM reads), grows gok's FAT16 boot file system to fill its
// partition so that a laptop can add a token file (fat16.go, boot.go),
// makes /perm's ext4 file system (gok only prints the mkfs command) and
// pre-provisions the bot token into it with e2fsprogs' debugfs without
// mounting anything (perm.go), reads an image back to check what was built
// (check.go), and refuses to overwrite a drive that is not a whole,
// unmounted, removable disk (drive.go).
//
// It runs e2fsprogs (mkfs.ext4, debugfs) and squashfs-tools (unsquashfs)
// as external commands; the FAT is read and grown here. Nothing here needs
// root for an image file.
//
// Files: gpt.go (the partition table, [ReadPartitions]), mbr.go (the
// hybrid MBR, [ReadMBR]), fat16.go (gok's FAT16: [ReadFATHeader],
// [GrowFAT16], [FreeBytes]), boot.go (the boot partition of an image or
// card: [RoomyBoot], [ReadBootFile]), perm.go (/perm: [MakeExt4],
// [WriteFile], [ReadFile] through debugfs), check.go (an image read back,
// [Check]), drive.go (the drive guard, [Host.CheckDrive]).
//
// It imports internal/fat (the FAT reader the device uses too) and
// nothing else of the module: it knows the appliance by its paths, never
// by its code; cmd/flipbot-image, gokrazy/vm and the image tests import it.
package disk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
)

// SectorSize is the logical sector size of gokrazy images and SD cards.
const SectorSize = 512

// gokrazy's partitions, numbered from 1.
const (
	BootPartition  = 1 // FAT: kernel, firmware, config.txt, cmdline.txt
	RootAPartition = 2 // squashfs root A
	RootBPartition = 3 // squashfs root B
	PermPartition  = 4 // /perm: the rest of the disk
)

// Partition is one entry of a partition table.
type Partition struct {
	// Number counts from 1.
	Number int
	// Type is the partition type GUID (GPT) in its textual form.
	Type string
	// Name is the GPT partition name.
	Name string
	// FirstLBA and LastLBA are inclusive sector numbers.
	FirstLBA, LastLBA uint64
}

// Offset is the partition's first byte.
func (p Partition) Offset() int64 { return int64(p.FirstLBA) * SectorSize }

// Size is the partition's length in bytes.
func (p Partition) Size() int64 { return int64(p.LastLBA-p.FirstLBA+1) * SectorSize }

// ErrNoGPT means the disk holds no GUID partition table.
var ErrNoGPT = errors.New("no GPT partition table (not a gokrazy image?)")

// ReadPartitions reads the GUID partition table of a disk or image. Only
// used entries are returned, in table order.
func ReadPartitions(r io.ReaderAt) ([]Partition, error) {
	hdr := make([]byte, 92)
	if _, err := r.ReadAt(hdr, SectorSize); err != nil {
		return nil, fmt.Errorf("read GPT header: %w", err)
	}
	if !bytes.Equal(hdr[:8], []byte("EFI PART")) {
		return nil, ErrNoGPT
	}
	le := binary.LittleEndian
	entriesLBA := le.Uint64(hdr[72:])
	count := le.Uint32(hdr[80:])
	size := le.Uint32(hdr[84:])
	if count == 0 || count > 1024 || size < 128 || size > 4096 {
		return nil, fmt.Errorf("GPT header: implausible %d entries of %d bytes", count, size)
	}
	buf := make([]byte, int(count)*int(size))
	if _, err := r.ReadAt(buf, int64(entriesLBA)*SectorSize); err != nil {
		return nil, fmt.Errorf("read GPT entries: %w", err)
	}
	var parts []Partition
	for i := 0; i < int(count); i++ {
		e := buf[i*int(size) : (i+1)*int(size)]
		if allZero(e[:16]) {
			continue
		}
		p := Partition{
			Number:   i + 1,
			Type:     guidString(e[:16]),
			FirstLBA: le.Uint64(e[32:]),
			LastLBA:  le.Uint64(e[40:]),
			Name:     utf16Name(e[56:128]),
		}
		if p.LastLBA < p.FirstLBA {
			return nil, fmt.Errorf("GPT entry %d: last sector %d before first %d", p.Number, p.LastLBA, p.FirstLBA)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// Find returns partition n of parts.
func Find(parts []Partition, n int) (Partition, error) {
	for _, p := range parts {
		if p.Number == n {
			return p, nil
		}
	}
	return Partition{}, fmt.Errorf("partition %d not found", n)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// guidString formats a GPT GUID (mixed-endian) as text.
func guidString(b []byte) string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08X-%04X-%04X-%X-%X", le.Uint32(b[0:]), le.Uint16(b[4:]), le.Uint16(b[6:]), b[8:10], b[10:16])
}

func utf16Name(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}
