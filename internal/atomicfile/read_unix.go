//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock opens a named pipe without waiting for its other end (and a
// device without waiting for a carrier).
const openNonblock = syscall.O_NONBLOCK

// openNoFollow opens path for reading without following a symbolic link
// as its last element (O_NOFOLLOW) and without blocking (O_NONBLOCK: a
// named pipe with no writer opens at once, and so does a device that
// waits for a carrier). The caller checks what it opened.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|openNonblock, 0)
	if err != nil {
		// O_NOFOLLOW fails with ELOOP (EMLINK or EFTYPE on some BSDs)
		// on a link: say so.
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, errNotRegular(fi.Mode())
		}
		return nil, err
	}
	return f, nil
}
