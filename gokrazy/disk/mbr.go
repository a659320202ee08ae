package disk

import (
	"encoding/binary"
	"fmt"
	"io"
)

// MBREntry is one of the four primary entries of a master boot record.
//
// A Raspberry Pi's boot ROM reads only the MBR (it knows nothing of GPT):
// it takes the first FAT partition it finds there, whatever its boot flag.
// gok writes a hybrid MBR: entry 1 is the FAT boot partition (type 0x0C,
// FAT32 with LBA, boot flag 0x80; the file system inside is FAT16, which the
// Pi reads by its own header, not by the type), entry 2 the protective
// 0xEE entry that covers the GPT, and the other two are empty.
// Layout: the MBR is sector 0, the entries at byte 446, 16 bytes each, and
// the signature 0x55 0xAA at byte 510 ("Master Boot Record", UEFI 2.10
// §5.2.1, table 5.1–5.2).
type MBREntry struct {
	// Boot is the boot indicator: 0x80 active, 0x00 not.
	Boot byte
	// Type is the partition type byte.
	Type byte
	// FirstLBA and Sectors locate the partition.
	FirstLBA, Sectors uint32
}

// Offset is the partition's first byte.
func (e MBREntry) Offset() int64 { return int64(e.FirstLBA) * SectorSize }

// Size is the partition's length in bytes.
func (e MBREntry) Size() int64 { return int64(e.Sectors) * SectorSize }

// MBR partition types that gokrazy images use.
const (
	// MBRTypeFAT32LBA is the type gok gives the boot partition.
	MBRTypeFAT32LBA = 0x0C
	// MBRTypeProtective covers the GPT (UEFI 2.10 §5.2.3).
	MBRTypeProtective = 0xEE
)

// ReadMBR reads the four primary entries of the master boot record.
func ReadMBR(r io.ReaderAt) ([4]MBREntry, error) {
	var out [4]MBREntry
	b := make([]byte, SectorSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return out, fmt.Errorf("read MBR: %w", err)
	}
	if b[510] != 0x55 || b[511] != 0xAA {
		return out, fmt.Errorf("no MBR signature (0x55AA) in sector 0")
	}
	le := binary.LittleEndian
	for i := range out {
		e := b[446+16*i : 446+16*(i+1)]
		out[i] = MBREntry{Boot: e[0], Type: e[4], FirstLBA: le.Uint32(e[8:]), Sectors: le.Uint32(e[12:])}
	}
	return out, nil
}

// checkHybridMBR checks the MBR the way a Pi's boot ROM uses it: entry 1
// is the FAT boot partition, active, of gok's type, exactly where the GPT
// puts partition 1.
func checkHybridMBR(r io.ReaderAt, parts []Partition) error {
	mbr, err := ReadMBR(r)
	if err != nil {
		return err
	}
	boot, err := Find(parts, BootPartition)
	if err != nil {
		return err
	}
	e := mbr[0]
	switch {
	case e.Type != MBRTypeFAT32LBA:
		return fmt.Errorf("MBR entry 1 has type %#02x, want %#02x (what gok writes)", e.Type, MBRTypeFAT32LBA)
	case e.Boot != 0x80:
		return fmt.Errorf("MBR entry 1 is not marked active (boot flag %#02x)", e.Boot)
	case e.Offset() != boot.Offset() || e.Size() != boot.Size():
		return fmt.Errorf("MBR entry 1 (%d+%d bytes) is not GPT partition 1 (%d+%d bytes)", e.Offset(), e.Size(), boot.Offset(), boot.Size())
	}
	if mbr[1].Type != MBRTypeProtective {
		return fmt.Errorf("MBR entry 2 has type %#02x, want the protective %#02x", mbr[1].Type, MBRTypeProtective)
	}
	return nil
}
