//go:build unix

package web

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/store"
)

// TestPasswordFileMustBeARegularFile: a named pipe as the admin password
// file shuts the admin pages at once (it used to block the request in
// open(2) for ever), and a link is not followed: gokrazy and flipbot write
// the file themselves, never as a link.
func TestPasswordFileMustBeARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gokr-pw.txt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() {
		_, err := passwordSource{files: []string{fifo}}.password()
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, store.ErrNotRegular)
		assert.Contains(t, err.Error(), fifo, "the error says which file")
	case <-time.After(time.Second):
		t.Fatal("reading the password blocked")
	}

	real := filepath.Join(dir, "real.txt")
	require.NoError(t, os.WriteFile(real, []byte("secret password\n"), 0o600))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink(real, link))
	_, err := passwordSource{files: []string{link}}.password()
	require.ErrorIs(t, err, store.ErrNotRegular)
	assert.NotContains(t, err.Error(), "secret password")
	pw, err := passwordSource{files: []string{real}}.password()
	require.NoError(t, err)
	assert.Equal(t, "secret password", pw)
}
