package record

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrReadOnly is returned (wrapped) by the writes of a Store opened with
// Options.ReadOnly.
var ErrReadOnly = errors.New("games store opened read-only")

// openRoot opens the store's directory as an os.Root: no name opened,
// written or deleted through it resolves outside the directory, whatever
// symbolic links it holds.
func (s *Store) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, fmt.Errorf("games directory: %w", err)
	}
	return root, nil
}

// subdirOK reports whether name in root is a directory of the store's own:
// a directory, not a symbolic link to one. A missing one is made when
// create is set (false is returned when it cannot be, with the error).
func subdirOK(root *os.Root, name string, create bool) (bool, error) {
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		if err := root.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("make %s: %w", name, err)
		}
		return subdirOK(root, name, false)
	case err != nil:
		return false, err
	case !fi.IsDir():
		return false, fmt.Errorf("%s is not a directory of the store (%v): refused", name, fi.Mode().Type())
	}
	return true, nil
}

// diskBytes is what a file takes on the disk: its blocks where the system
// tells them (and never less than its size), else its size rounded up to
// 4 KiB.
func diskBytes(fi fs.FileInfo) int64 {
	if b, ok := allocatedBytes(fi); ok {
		return max(b, fi.Size())
	}
	return (fi.Size() + 4095) &^ 4095
}
