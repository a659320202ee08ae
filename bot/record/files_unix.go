//go:build unix

package record

import (
	"io/fs"
	"syscall"
)

// allocatedBytes returns the bytes of the disk blocks of fi's file.
func allocatedBytes(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int64(st.Blocks) * 512, true
}
