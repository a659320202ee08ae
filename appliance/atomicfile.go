package appliance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Stages of an atomic write at which a test can inject a fault (a crash or
// an error). A fault returned at a stage ends the write right there, leaving
// the files as a power cut at that moment would.
const (
	stageCreated = "created" // temp file created, nothing written
	stageWritten = "written" // data written and fsynced, not yet renamed
	stageRenamed = "renamed" // renamed, directory not yet fsynced
)

// tempPrefix marks the temp files of atomic writes; leftovers from a crash
// are removed by cleanTemps.
const tempPrefix = ".tmp-"

// fileOps is the file system as an atomic write sees it. The real one is
// osFileOps; tests replace single operations to inject faults such as EROFS.
type fileOps struct {
	createTemp func(dir, pattern string) (*os.File, error)
	rename     func(oldpath, newpath string) error
	// fault, when set, is called at every stage; an error it returns ends
	// the write as if the power were cut there.
	fault func(stage string) error
}

func osFileOps() fileOps {
	return fileOps{createTemp: os.CreateTemp, rename: os.Rename}
}

// writeFileAtomic replaces path with data so that a power cut at any point
// leaves either the old or the new content, never a torn file: write a temp
// file in the same directory, fsync it, rename it over path, fsync the
// directory. The file gets mode perm.
func (o fileOps) writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := o.createTemp(dir, tempPrefix+base+"-*")
	if err != nil {
		return fmt.Errorf("create temp file in %s: %w", dir, err)
	}
	tmp := f.Name()
	closed := false
	crashed := false
	defer func() {
		if !closed {
			f.Close()
		}
		// A real error (not a simulated crash) cleans up after itself.
		if err != nil && !crashed {
			os.Remove(tmp)
		}
	}()
	if err := o.at(stageCreated); err != nil {
		crashed = true
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod temp file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	closed = true
	if err := o.at(stageWritten); err != nil {
		crashed = true
		return err
	}
	if err := o.rename(tmp, path); err != nil {
		return fmt.Errorf("rename temp file into place: %w", err)
	}
	if err := o.at(stageRenamed); err != nil {
		crashed = true
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return nil
}

func (o fileOps) at(stage string) error {
	if o.fault == nil {
		return nil
	}
	return o.fault(stage)
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s for fsync: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		// Some file systems (vfat on old kernels) refuse fsync on a
		// directory with EINVAL; the rename is then as durable as it gets.
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

// cleanTemps removes temp files left in dir by a write interrupted by a
// crash. Errors are ignored: a leftover is harmless, only untidy.
func cleanTemps(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix+base+"-") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// isReadOnly reports whether err means the file system cannot be written
// (EROFS: gok did not create /perm's file system), as opposed to a passing
// failure.
func isReadOnly(err error) bool {
	return errors.Is(err, syscall.EROFS)
}
