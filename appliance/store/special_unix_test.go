//go:build unix

package store

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

// mkfifo makes a named pipe at path; nothing ever writes to it.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o600))
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
	mkfifo(t, fifo)
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

// TestFilesThatArePipesDoNotBlock: a named pipe as the token file or the
// settings file makes Load fail at once (the settings' defaults apply),
// saying which file; a link is not followed.
func TestFilesThatArePipesDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	tokens := NewTokenFile(dir)
	mkfifo(t, tokens.Path())
	err := within(t, "the token's Load", func() error { _, err := tokens.Load(); return err })
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), tokens.Path(), "the error says which file")
	assert.NotErrorIs(t, err, ErrNoToken)

	settings := NewFile(dir, Format[string]{Name: "settings.json", What: "settings",
		Decode: func(b []byte) (string, error) { return string(b), nil }, Default: func() string { return "default" }})
	mkfifo(t, settings.Path())
	var v string
	err = within(t, "the settings' Load", func() (err error) { v, err = settings.Load(); return err })
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Equal(t, "default", v, "the defaults apply")

	// A link to a good token is not followed: the token file is flipbot's
	// own, written by rename, never a link.
	other := t.TempDir()
	require.NoError(t, NewTokenFile(other).Save(mustToken(t, tokA)))
	linked := NewTokenFile(t.TempDir())
	require.NoError(t, os.Symlink(NewTokenFile(other).Path(), linked.Path()))
	_, err = linked.Load()
	require.ErrorIs(t, err, ErrNotRegular)
	assert.NotContains(t, err.Error(), tokA)

	// Saving over the pipe replaces it with a regular file (rename).
	require.NoError(t, tokens.Save(mustToken(t, tokA)))
	got, err := tokens.Load()
	require.NoError(t, err)
	assert.Equal(t, tokA, got.Reveal())
}
