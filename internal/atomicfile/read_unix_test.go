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
// second: a read that blocks would hang the test for ever.
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
