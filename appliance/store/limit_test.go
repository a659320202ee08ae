package store

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHugeFilesAreNotRead: a token or settings file of 300 MB (sparse
// here) is refused by its size; before, Load read it whole (a 300 MB token
// file took the device to 628 MB).
func TestHugeFilesAreNotRead(t *testing.T) {
	dir := t.TempDir()
	tokens := NewTokenFile(dir)
	require.NoError(t, os.Truncate(mustCreate(t, tokens.Path()), 300<<20))
	var err error
	n := allocated(func() { _, err = tokens.Load() })
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), tokens.Path(), "the error says which file")
	assert.Less(t, n, uint64(1<<20), "bytes allocated by Load")

	other := NewFile(dir, Format[string]{Name: "settings.json", What: "settings",
		Decode: func(b []byte) (string, error) { return string(b), nil }, Default: func() string { return "default" }})
	require.NoError(t, os.Truncate(mustCreate(t, other.Path()), DefaultMaxBytes+1))
	v, err := other.Load()
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Equal(t, "default", v, "a file too large is damaged: the defaults apply")
}

// TestReadFileLimit: a file of limit bytes is read, one more is not, a
// sparse file is refused by its size unread, and a device that never ends
// (/dev/zero) is refused as no regular file.
func TestReadFileLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("12345"), 0o600))
	b, err := ReadFileLimit(p, 5)
	require.NoError(t, err)
	assert.Equal(t, "12345", string(b))
	_, err = ReadFileLimit(p, 4)
	assert.ErrorIs(t, err, ErrTooLarge)
	_, err = ReadFileLimit(filepath.Join(t.TempDir(), "missing"), 4)
	assert.ErrorIs(t, err, os.ErrNotExist)
	sparse := mustCreate(t, filepath.Join(t.TempDir(), "sparse"))
	require.NoError(t, os.Truncate(sparse, 4<<30))
	n := allocated(func() { _, err = ReadFileLimit(sparse, 1<<10) })
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "4294967296 bytes")
	assert.Less(t, n, uint64(64<<10), "bytes allocated")
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err = ReadFileLimit("/dev/zero", 1<<10)
		assert.ErrorIs(t, err, ErrNotRegular)
	}
}

func mustCreate(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path
}
