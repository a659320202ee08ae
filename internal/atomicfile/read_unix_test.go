//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// within runs f and fails the test when it has not returned after a
// second: a read that blocks would hang the test for ever. (The module's
// other tests have internal/testutil.Within; a leaf's tests import
// nothing of the module.)
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		t.Fatalf("%s blocked", what)
		return nil
	}
}

// TestSpecialFilesAreRefusedAtOnce: a named pipe, a symbolic link (to a
// regular file or to a pipe), a directory or a device where a file should
// be is refused at once, unread. Before, a named pipe blocked the read in
// open(2) for ever (every page of the game it stood for, or the whole
// start when it stood for the rating history), a link was followed and a
// device was read.
func TestSpecialFilesAreRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	require.NoError(t, os.WriteFile(regular, []byte("fsbm_0123456789abcdefghij\n"), 0o600))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	linkToFile := filepath.Join(dir, "link-to-file")
	require.NoError(t, os.Symlink(regular, linkToFile))
	linkToFIFO := filepath.Join(dir, "link-to-fifo")
	require.NoError(t, os.Symlink(fifo, linkToFIFO))
	cases := []struct{ name, path, kind string }{
		{"named pipe", fifo, "named pipe"},
		{"link to a file", linkToFile, "symbolic link"},
		{"link to a pipe", linkToFIFO, "symbolic link"},
		{"directory", dir, "directory"},
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		cases = append(cases, struct{ name, path, kind string }{"device", "/dev/null", "device"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := within(t, "ReadFileLimit", func() error {
				_, err := ReadFileLimit(c.path, 1<<10)
				return err
			})
			require.ErrorIs(t, err, ErrNotRegular)
			assert.Contains(t, err.Error(), c.kind)
			assert.NotContains(t, err.Error(), "0123456789abcdefghij", "never the content")
		})
	}
	b, err := ReadFileLimit(regular, 1<<10)
	require.NoError(t, err, "the regular file itself is read")
	assert.Equal(t, "fsbm_0123456789abcdefghij\n", string(b))
}

// TestOpenRegularRefusesSpecialFiles: through a root, a named pipe, a
// symbolic link or a directory is refused at once, for reading and for
// appending; a regular file opens, and a missing one is made when the
// flag creates it.
func TestOpenRegularRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "regular"), []byte("abc"), 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	require.NoError(t, os.Symlink("regular", filepath.Join(dir, "link")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	for _, c := range []struct{ name, kind string }{{"fifo", "named pipe"}, {"link", "symbolic link"}, {"sub", "directory"}} {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND | os.O_CREATE} {
			err := within(t, c.name, func() error {
				_, _, err := OpenRegular(root, c.name, flag, 0o600)
				return err
			})
			require.ErrorIs(t, err, ErrNotRegular, "%s flag %#x", c.name, flag)
			assert.Contains(t, err.Error(), c.kind)
			assert.Contains(t, err.Error(), c.name, "the error names the file")
		}
	}
	f, fi, err := OpenRegular(root, "regular", os.O_RDONLY, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(3), fi.Size())
	require.NoError(t, f.Close())

	_, _, err = OpenRegular(root, "missing", os.O_RDONLY, 0)
	require.ErrorIs(t, err, os.ErrNotExist)
	f, _, err = OpenRegular(root, "missing", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	require.NoError(t, err, "a missing file is made when the flag creates it")
	require.NoError(t, f.Close())
	assert.FileExists(t, filepath.Join(dir, "missing"))
}
