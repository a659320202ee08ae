package bootfs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBootPartition(t *testing.T) {
	root := t.TempDir()
	mk := func(p, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(content), 0o644))
	}
	mk("proc/self/mountinfo", "20 1 254:2 / / ro,relatime - squashfs /dev/root ro\n21 20 254:4 / /perm rw - ext4 /dev/vda4 rw\n")
	for i := 1; i <= 4; i++ {
		mk(fmt.Sprintf("sys/devices/pci0/virtio1/block/vda/vda%d/partition", i), fmt.Sprint(i))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/dev/block"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "sys/devices/pci0/virtio1/block/vda/vda2"), filepath.Join(root, "sys/dev/block/254:2")))
	dev, err := Host{Root: root}.BootPartition()
	require.NoError(t, err)
	assert.Equal(t, "/dev/vda1", dev)

	mk("proc/self/mountinfo", "20 1 0:19 / / rw - tmpfs tmpfs rw\n")
	_, err = Host{Root: root}.BootPartition()
	assert.Error(t, err, "a root on no block device")
}
