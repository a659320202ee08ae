package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

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

// OpenRegular opens name in root with flag (os.O_RDONLY, os.O_WRONLY|
// os.O_APPEND, os.O_CREATE…) and perm, and returns the file and its Stat
// when it is a regular file. Like ReadFileLimit it never blocks on what it
// opens (O_NONBLOCK where the system has it: a named pipe in a file's
// place opens at once) and refuses anything but a regular file, closed
// and unread or unwritten (ErrNotRegular): a name that is a symbolic
// link, a pipe or a directory is refused by Lstat before it is opened
// (unless it does not exist and flag creates it), and what was opened is
// checked again with Fstat. Errors name name; root keeps every name
// inside its directory.
func OpenRegular(root *os.Root, name string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	if fi, err := root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", name, errNotRegular(fi.Mode()))
	} else if err != nil && (flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist)) {
		return nil, nil, err
	}
	f, err := root.OpenFile(name, flag|openNonblock, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, errNotRegular(fi.Mode()))
	}
	return f, fi, nil
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
