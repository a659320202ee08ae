//go:build !unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// openNonblock is 0: this system has no O_NONBLOCK for open.
const openNonblock = 0

// openNoFollow opens path for reading once Lstat has shown it to be a
// regular file (so neither a symbolic link nor a pipe), and checks that
// the file opened is the one looked at: a file swapped in between is
// refused. This system has no O_NOFOLLOW or O_NONBLOCK to do it in one
// step.
func openNoFollow(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, errNotRegular(before.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err == nil && !os.SameFile(before, after) {
		err = &fs.PathError{Op: "open", Path: path, Err: errors.New("replaced while being opened")}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
