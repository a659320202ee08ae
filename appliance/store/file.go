package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
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
// limit.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by ReadFileLimit's error for a path that is not
// a regular file: a symbolic link, a named pipe, a device, a socket or a
// directory.
var ErrNotRegular = errors.New("not a regular file")

// ReadFileLimit reads the regular file path when it holds at most limit
// bytes. It never blocks on what it opens and never follows a symbolic
// link as path's last element: on unix the file is opened with O_NOFOLLOW
// and O_NONBLOCK (a named pipe opens at once, with no writer), elsewhere
// it is checked with Lstat before it is opened; either way what was
// opened is checked with Fstat, and anything but a regular file is
// refused unread (ErrNotRegular). A larger file is refused by its size
// (its apparent size: a sparse file too) before a byte is read, and a
// file that grows meanwhile, or one whose size says nothing (a /proc
// file), is read no further than limit+1 bytes. Errors wrap ErrTooLarge,
// ErrNotRegular, or the operating system's error (which names path); the
// former two name neither path nor content, so that the caller says which
// file.
func ReadFileLimit(path string, limit int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular(fi.Mode())
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%d bytes, at most %d: %w", fi.Size(), limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("over %d bytes: %w", limit, ErrTooLarge)
	}
	return b, nil
}

// errNotRegular is the error for a file of mode m, not a regular one: it
// names the file's type, not its path.
func errNotRegular(m fs.FileMode) error {
	return fmt.Errorf("%s: %w", fileKind(m), ErrNotRegular)
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
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
