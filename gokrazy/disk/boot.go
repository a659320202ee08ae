package disk

import (
	"context"
	"fmt"
	"io"
	"os"

	"flipbot.dev/flipbot/internal/fat"
)

// RoomyBoot makes the FAT boot file system at l fill its whole partition
// (GrowFAT16), so that a laptop can add flipbot-token.txt to the card.
// l.Size must be the partition's size.
func RoomyBoot(ctx context.Context, l Location) error {
	if l.Size <= 0 {
		return fmt.Errorf("boot partition: size unknown")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.OpenFile(l.Path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("boot partition: %w", err)
	}
	if err := GrowFAT16(f, l.Offset, l.Size); err != nil {
		f.Close()
		return fmt.Errorf("boot partition: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("boot partition: %w", err)
	}
	return f.Close()
}

// section is the part of the file at l: the whole partition of an image,
// or (Size 0) everything from Offset on.
func (l Location) section(f *os.File) io.ReaderAt {
	size := l.Size
	if size <= 0 {
		size = 1 << 62
	}
	return io.NewSectionReader(f, l.Offset, size)
}

// BootFree returns the free bytes of the FAT file system at l.
func BootFree(ctx context.Context, l Location) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, err := os.Open(l.Path)
	if err != nil {
		return 0, fmt.Errorf("boot partition: %w", err)
	}
	defer f.Close()
	return FreeBytes(l.section(f))
}

// BootHeader returns the header of the FAT file system at l.
func BootHeader(l Location) (FATHeader, error) {
	f, err := os.Open(l.Path)
	if err != nil {
		return FATHeader{}, fmt.Errorf("boot partition: %w", err)
	}
	defer f.Close()
	return ReadFATHeader(l.section(f))
}

// ReadBootFile reads the file name (at most limit bytes) from the root
// directory of the FAT file system at l, as the Pi's firmware does.
func ReadBootFile(l Location, name string, limit int64) ([]byte, error) {
	f, err := os.Open(l.Path)
	if err != nil {
		return nil, fmt.Errorf("boot partition: %w", err)
	}
	defer f.Close()
	file, err := fat.ReadFile(l.section(f), name, limit)
	if err != nil {
		return nil, err
	}
	return file.Data, nil
}
