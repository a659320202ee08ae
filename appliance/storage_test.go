package appliance

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/appliance/store"
)

// erofs is the file system of a /perm that was never created: every
// write fails with EROFS.
func erofs() store.FS {
	return store.FS{CreateTemp: func(dir, _ string) (*os.File, error) {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.EROFS}
	}}
}

func TestCheckStorage(t *testing.T) {
	perm := t.TempDir()
	st := checkStorage(perm, filepath.Join(perm, "home", "flipbot"), store.FS{})
	assert.True(t, st.OK, st.Problem)
	assert.NotZero(t, st.FreeBytes)

	st = checkStorage(filepath.Join(perm, "missing"), filepath.Join(perm, "missing", "home"), store.FS{})
	assert.False(t, st.OK)
	assert.Contains(t, st.Problem, "missing")

	st = checkStorage(perm, filepath.Join(perm, "home"), erofs())
	assert.False(t, st.OK)
	assert.Contains(t, st.Problem, "read-only")
	assert.Contains(t, st.Problem, "mkfs")
}
