package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"flipbot.dev/flipbot/internal/atomicfile"
)

// Format is how a File keeps its value: the file's name, what errors call
// it, how it is encoded and decoded, and what Load gives when there is no
// usable file.
type Format[T any] struct {
	// Name is the file's name in its directory.
	Name string
	// What names the value in errors ("token", "settings").
	What string
	// Encode makes the file's content of a value; its error refuses the
	// value (nothing is written).
	Encode func(T) ([]byte, error)
	// Decode reads a value from the file's content; its error means the
	// file is damaged.
	Decode func([]byte) (T, error)
	// Default, when set, is the value the device runs with when no file
	// is stored (Load returns it without an error) or when the file cannot
	// be read or decoded (Load returns it with the error).
	Default func() T
	// Missing is what Load's error wraps when no file is stored and there
	// is no Default (fs.ErrNotExist when nil).
	Missing error
	// MaxBytes is the largest file Load reads (DefaultMaxBytes when 0); a
	// larger one is damaged and is not read.
	MaxBytes int64
}

// DefaultMaxBytes is the largest file a File reads when its Format sets
// no MaxBytes: a token or the settings are a few hundred bytes.
const DefaultMaxBytes = 64 << 10

// ErrTooLarge is wrapped by ReadFileLimit's error for a file over its
// limit: [atomicfile.ErrTooLarge].
var ErrTooLarge = atomicfile.ErrTooLarge

// ErrNotRegular is wrapped by ReadFileLimit's error for a path that is not
// a regular file: [atomicfile.ErrNotRegular].
var ErrNotRegular = atomicfile.ErrNotRegular

// ReadFileLimit reads the regular file path when it holds at most limit
// bytes, never blocking on what it opens and never following a symbolic
// link as path's last element: [atomicfile.ReadFileLimit].
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	return atomicfile.ReadFileLimit(path, limit)
}

// File keeps one value in one file of a directory: mode 0600 in a
// directory created 0700, every write atomic (a power cut leaves the old
// or the new value, never a torn one) and the temp files of an interrupted
// write removed by the next. It holds no state besides its directory and
// format, so concurrent use is safe as far as the file system's rename is.
type File[T any] struct {
	// Dir is the directory holding the file.
	Dir string
	// FS writes the file (the zero FS: the operating system's).
	FS     FS
	format Format[T]
}

// NewFile returns the file of format f in dir.
func NewFile[T any](dir string, f Format[T]) *File[T] {
	return &File[T]{Dir: dir, format: f}
}

// Path is the file's path.
func (f *File[T]) Path() string { return filepath.Join(f.Dir, f.format.Name) }

// Load returns the stored value (see Format.Default and Format.Missing for
// a file that is missing or damaged). Errors name the file, never its
// content.
func (f *File[T]) Load() (T, error) {
	var zero T
	if f.format.Default != nil {
		zero = f.format.Default()
	}
	limit := f.format.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	b, err := ReadFileLimit(f.Path(), limit)
	switch {
	case errors.Is(err, fs.ErrNotExist) && f.format.Default != nil:
		return zero, nil
	case errors.Is(err, fs.ErrNotExist) && f.format.Missing != nil:
		return zero, fmt.Errorf("read %s %s: %w", f.format.What, f.Path(), f.format.Missing)
	case err != nil:
		return zero, fmt.Errorf("read %s %s: %w", f.format.What, f.Path(), err)
	}
	v, err := f.format.Decode(b)
	switch {
	case err != nil && f.format.Default != nil:
		return zero, fmt.Errorf("%s %s: %w (using the defaults)", f.format.What, f.Path(), err)
	case err != nil:
		return zero, fmt.Errorf("%s %s: %w", f.format.What, f.Path(), err)
	}
	return v, nil
}

// Save writes v atomically with mode 0600, creating the directory (0700)
// when missing.
func (f *File[T]) Save(v T) error {
	b, err := f.format.Encode(v)
	if err != nil {
		return fmt.Errorf("save %s: %w", f.format.What, err)
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		return fmt.Errorf("save %s: create %s: %w", f.format.What, f.Dir, err)
	}
	CleanTemps(f.Dir, f.format.Name)
	if err := f.FS.WriteFile(f.Path(), b, 0o600); err != nil {
		return fmt.Errorf("save %s: %w", f.format.What, err)
	}
	return nil
}

// Remove deletes the file (no error when there is none) and makes the
// removal durable.
func (f *File[T]) Remove() error {
	err := os.Remove(f.Path())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", f.format.What, err)
	}
	CleanTemps(f.Dir, f.format.Name)
	if err == nil {
		if err := SyncDir(f.Dir); err != nil {
			return fmt.Errorf("remove %s: %w", f.format.What, err)
		}
	}
	return nil
}

// ModTime returns when the file was last written.
func (f *File[T]) ModTime() (time.Time, error) {
	fi, err := os.Stat(f.Path())
	if err != nil {
		return time.Time{}, fmt.Errorf("%s file: %w", f.format.What, err)
	}
	return fi.ModTime(), nil
}
