// Package atomicfile replaces files crash-safely: a power cut or a crash
// at any point leaves a file's old content or its whole new one, never a
// torn file. The data goes to a temporary file in the same directory,
// which is fsynced, renamed over the file, and the directory fsynced so
// that the rename is durable.
//
// [WriteFile] and [Write] use the operating system; an [FS] with its
// fields set lets a test inject faults (such as EROFS) or end a write at
// a [Stage] as a power cut would.
//
// The files so written are read back by [ReadFileLimit]: only a regular
// file, never through a symbolic link, never blocking (a named pipe in
// its place fails at once, [ErrNotRegular]), and refused by its size over
// a limit before a byte is read ([ErrTooLarge]). [OpenRegular] opens a
// file of a directory held as an os.Root under the same rules, for
// reading or writing (bot/record's store).
//
// Files: atomicfile.go (the writes), read.go ([ReadFileLimit],
// [OpenRegular]),
// read_unix.go and read_other.go (how a file is opened without following a
// link or blocking: O_NOFOLLOW and O_NONBLOCK on unix, Lstat then Fstat of
// what was opened elsewhere). A leaf: it imports nothing of the module,
// and any package may import it.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Stage is a point of an atomic write at which a test can inject a fault
// (a crash or an error). A fault returned at a stage ends the write right
// there, leaving the files as a power cut at that moment would.
type Stage string

// The stages of a write, in order.
const (
	StageCreated Stage = "created" // temp file created, nothing written
	StageWritten Stage = "written" // data written and fsynced, not yet renamed
	StageRenamed Stage = "renamed" // renamed, directory not yet fsynced
)

// TempPrefix begins the names of the temporary files of writes: a write of
// dir/base goes through dir/TempPrefix+base+"-" and a random suffix.
// [CleanTemps] removes the ones a crash left.
const TempPrefix = ".tmp-"

// FS is the file system as an atomic write sees it. The zero FS is the
// operating system's; tests set single operations to inject faults or end
// a write at a Stage.
type FS struct {
	// CreateTemp creates the temp file (os.CreateTemp when nil).
	CreateTemp func(dir, pattern string) (*os.File, error)
	// Rename moves it into place (os.Rename when nil).
	Rename func(oldpath, newpath string) error
	// Fault, when set, is called at every stage; an error it returns
	// ends the write as if the power were cut there (the temp file is
	// left as it is).
	Fault func(stage Stage) error
}

// WriteFile replaces path with data, crash-safely, with the operating
// system's file system; the file gets mode perm.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return FS{}.WriteFile(path, data, perm)
}

// Write replaces path with what fill writes (through a 64 KiB buffer),
// crash-safely, with the operating system's file system; the file gets
// mode perm. An error from fill is returned as it is, and path keeps its
// old content.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return FS{}.Write(path, perm, fill)
}

// WriteFile replaces path with data so that a power cut at any point
// leaves either the old or the new content: write a temp file in the same
// directory, fsync it, rename it over path, fsync the directory. The file
// gets mode perm.
func (o FS) WriteFile(path string, data []byte, perm os.FileMode) error {
	return o.write(path, perm, func(w io.Writer) error {
		if _, err := w.Write(data); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
		return nil
	}, false)
}

// Write is [FS.WriteFile] with the content written by fill through a
// 64 KiB buffer, for content streamed from elsewhere (an export). An error
// from fill is returned as it is.
func (o FS) Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return o.write(path, perm, fill, true)
}

func (o FS) write(path string, perm os.FileMode, fill func(io.Writer) error, buffered bool) (err error) {
	createTemp, rename := o.CreateTemp, o.Rename
	if createTemp == nil {
		createTemp = os.CreateTemp
	}
	if rename == nil {
		rename = os.Rename
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, TempPrefix+base+"-*")
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
	if err := o.at(StageCreated); err != nil {
		crashed = true
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod temp file: %w", err)
	}
	if buffered {
		bw := bufio.NewWriterSize(f, 64<<10)
		if err := fill(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write temp file: %w", err)
		}
	} else if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	closed = true
	if err := o.at(StageWritten); err != nil {
		crashed = true
		return err
	}
	if err := rename(tmp, path); err != nil {
		return fmt.Errorf("rename temp file into place: %w", err)
	}
	if err := o.at(StageRenamed); err != nil {
		crashed = true
		return err
	}
	return SyncDir(dir)
}

func (o FS) at(stage Stage) error {
	if o.Fault == nil {
		return nil
	}
	return o.Fault(stage)
}

// SyncDir fsyncs a directory so that a rename in it is durable. On
// Windows, where a directory cannot be fsynced and NTFS journals the
// rename, it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
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

// CleanTemps removes the temp files that a write of base interrupted by a
// crash left in dir. Errors are ignored: a leftover is harmless, only
// untidy.
func CleanTemps(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix+base+"-") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
