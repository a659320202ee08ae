//go:build unix

package appliance

import "golang.org/x/sys/unix"

// freeBytes returns the space available to us on the file system of path,
// 0 when unknown.
func freeBytes(path string) uint64 {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0
	}
	return uint64(st.Bavail) * uint64(st.Bsize)
}
