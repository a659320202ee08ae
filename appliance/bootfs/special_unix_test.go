//go:build unix

package bootfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadBootFileRefusesWhatIsNoPartition: a named pipe, a directory or a
// character device as the boot partition is refused at once. Before, a
// named pipe blocked the start in open(2) for ever.
func TestReadBootFileRefusesWhatIsNoPartition(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	paths := []string{fifo, dir}
	if _, err := os.Stat("/dev/null"); err == nil {
		paths = append(paths, "/dev/null")
	}
	for _, p := range paths {
		done := make(chan error, 1)
		go func() {
			_, err := ReadBootFile(p, "flipbot-token.txt", 4096)
			done <- err
		}()
		select {
		case err := <-done:
			require.ErrorIs(t, err, errNotPartition, p)
		case <-time.After(time.Second):
			t.Fatalf("ReadBootFile(%s) blocked", p)
		}
	}
}
