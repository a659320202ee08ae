package store

import (
	"errors"
	"syscall"

	"flipbot.dev/flipbot/internal/atomicfile"
)

// Stage is a point of an atomic write at which a test can inject a fault
// (a crash or an error): [atomicfile.Stage].
type Stage = atomicfile.Stage

// The stages of FS.WriteFile, in order.
const (
	StageCreated = atomicfile.StageCreated // temp file created, nothing written
	StageWritten = atomicfile.StageWritten // data written and fsynced, not yet renamed
	StageRenamed = atomicfile.StageRenamed // renamed, directory not yet fsynced
)

// tempPrefix marks the temp files of atomic writes; leftovers from a crash
// are removed by CleanTemps.
const tempPrefix = atomicfile.TempPrefix

// FS is the file system as an atomic write sees it: [atomicfile.FS]. The
// zero FS is the operating system's; tests set single operations to
// inject faults (such as EROFS) or end a write at a Stage. Its WriteFile
// replaces a file so that a power cut at any point leaves the old or the
// new content, never a torn file.
type FS = atomicfile.FS

// SyncDir fsyncs a directory so that a rename in it is durable.
func SyncDir(dir string) error { return atomicfile.SyncDir(dir) }

// CleanTemps removes the temp files that a write of base interrupted by a
// crash left in dir. Errors are ignored: a leftover is harmless, only
// untidy.
func CleanTemps(dir, base string) { atomicfile.CleanTemps(dir, base) }

// IsReadOnly reports whether err means the file system cannot be written
// (EROFS: gok did not create /perm's file system), as opposed to a passing
// failure.
func IsReadOnly(err error) bool {
	return errors.Is(err, syscall.EROFS)
}
