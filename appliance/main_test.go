package appliance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMainFlags(t *testing.T) {
	var stderr bytes.Buffer
	env := func(string) string { return "" }
	usage := 2
	if OnDevice {
		usage = ExitStayStopped // a wrong flag in the image: gokrazy must not restart it
	}
	assert.Equal(t, usage, Main(context.Background(), []string{"-port", "x"}, env, &stderr))
	assert.Equal(t, usage, Main(context.Background(), []string{"extra"}, env, &stderr))
	assert.Equal(t, 0, Main(context.Background(), []string{"-h"}, env, &stderr))
}

// On a PC, Main makes an admin password file (0600, never logged) and
// stops cleanly when its context ends.
func TestMainOnPC(t *testing.T) {
	if OnDevice {
		t.Skip("gokrazy build: the pages would bind every private address, not loopback")
	}
	dir := t.TempDir()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"-dir", dir, "-port", "-1", "-indicators=false", "-api", "http://127.0.0.1:1/flipsight/bot_match_api.php"}, func(string) string { return "" }, &stderr)
	}()
	pw := filepath.Join(dir, "admin-password.txt")
	require.Eventually(t, func() bool { _, err := os.Stat(pw); return err == nil }, 10*time.Second, 10*time.Millisecond)
	fi, err := os.Stat(pw)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Eventually(t, func() bool { return bytes.Contains([]byte(stderr.String()), []byte("pairing_code=")) }, 10*time.Second, 10*time.Millisecond)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, ExitSignalled, code)
	case <-time.After(20 * time.Second):
		t.Fatal("Main did not stop")
	}
	b, err := os.ReadFile(pw)
	require.NoError(t, err)
	assert.NotContains(t, stderr.String(), string(bytes.TrimSpace(b)), "the password is not logged")
}

// TestOwnerNamedFileResolvesLinks: a -password-file the owner made as a
// link is resolved once at the start (the reads follow no link); a file
// not there yet is kept as named.
func TestOwnerNamedFileResolvesLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	require.NoError(t, os.WriteFile(real, []byte("pw\n"), 0o600))
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	want, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	assert.Equal(t, want, ownerNamedFile(link))
	missing := filepath.Join(dir, "missing.txt")
	assert.Equal(t, missing, ownerNamedFile(missing))
}
