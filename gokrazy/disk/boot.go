package disk

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// RoomyBoot rebuilds the FAT boot file system at l to fill its whole
// partition, keeping every file and directory. gok writes a FAT exactly as
// large as its content (0 bytes free), so a laptop could not add a file
// such as flipbot-token.txt to a freshly written card. The files are copied
// out, the partition is formatted as FAT16 with 2 KiB clusters (as gok's),
// labelled "gokrazy", and the files copied back with their times. Uses
// mtools; l.Size must be the partition's size.
func RoomyBoot(ctx context.Context, l Location) error {
	if l.Size <= 0 {
		return fmt.Errorf("boot partition: size unknown")
	}
	dir, err := os.MkdirTemp("", "flipbot-boot-*")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	spec := l.mtoolsSpec()
	if err := runQuiet(ctx, "mcopy", "-s", "-n", "-m", "-i", spec, "::*", dir+"/"); err != nil {
		return fmt.Errorf("boot partition: copy out: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		return fmt.Errorf("boot partition: nothing copied out")
	}
	sectors := l.Size / SectorSize
	hidden := l.Offset / SectorSize
	if err := runQuiet(ctx, "mformat", "-i", spec, "-T", strconv.FormatInt(sectors, 10), "-h", "64", "-s", "32",
		"-H", strconv.FormatInt(hidden, 10), "-c", "4", "-v", "gokrazy", "::"); err != nil {
		return fmt.Errorf("boot partition: format: %w", err)
	}
	args := []string{"-s", "-m", "-i", spec}
	for _, e := range ents {
		args = append(args, filepath.Join(dir, e.Name()))
	}
	if err := runQuiet(ctx, "mcopy", append(args, "::")...); err != nil {
		return fmt.Errorf("boot partition: copy back: %w", err)
	}
	return nil
}

// mtoolsSpec is the location in mtools' syntax (an offset after "@@").
func (l Location) mtoolsSpec() string {
	if l.Offset == 0 {
		return l.Path
	}
	return fmt.Sprintf("%s@@%d", l.Path, l.Offset)
}

var freeRE = regexp.MustCompile(`([\d ]+) bytes free`)

// BootFree returns the free bytes of the FAT file system at l.
func BootFree(ctx context.Context, l Location) (int64, error) {
	out, err := exec.CommandContext(ctx, "mdir", "-i", l.mtoolsSpec(), "::").Output()
	if err != nil {
		return 0, fmt.Errorf("mdir: %w", err)
	}
	m := freeRE.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("mdir: no free-space line")
	}
	return strconv.ParseInt(strings.ReplaceAll(string(m[1]), " ", ""), 10, 64)
}
