package fat

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// makeFAT makes a FAT image of the given type and size with mkfs.vfat and
// copies files into its root with mcopy (Debian's dosfstools and mtools).
func makeFAT(t *testing.T, fatType, sizeKiB int, files map[string][]byte) string {
	t.Helper()
	for _, c := range []string{"mkfs.vfat", "mcopy"} {
		if _, err := exec.LookPath(c); err != nil {
			if _, err := os.Stat("/sbin/" + c); err != nil {
				t.Skipf("SKIPPED: %s not found (apt-get install dosfstools mtools)", c)
			}
		}
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "boot.fat")
	mkfs := "mkfs.vfat"
	if _, err := exec.LookPath(mkfs); err != nil {
		mkfs = "/sbin/mkfs.vfat"
	}
	out, err := exec.Command(mkfs, "-F", fmt.Sprint(fatType), "-C", img, fmt.Sprint(sizeKiB)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for name, data := range files {
		src := filepath.Join(dir, "src-"+strings.ReplaceAll(name, "/", "_"))
		require.NoError(t, os.WriteFile(src, data, 0o644))
		out, err := exec.Command("mcopy", "-i", img, src, "::"+name).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return img
}

func TestReadFile(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3000) // spans clusters
	files := map[string][]byte{
		"flipbot-token.txt": []byte("fsbm_0123456789abcdefghij\r\n"),
		"config.txt":        []byte("dtparam=i2c_arm=on\n"),
		"BIG.BIN":           big,
		"empty.txt":         {},
	}
	for _, c := range []struct{ fat, kib int }{{12, 2048}, {16, 32 << 10}, {32, 64 << 10}} {
		t.Run(fmt.Sprintf("FAT%d", c.fat), func(t *testing.T) {
			img := makeFAT(t, c.fat, c.kib, files)
			f, err := os.Open(img)
			require.NoError(t, err)
			defer f.Close()
			v, err := open(f)
			require.NoError(t, err)
			assert.Equal(t, c.fat, v.fatType)
			for name, want := range files {
				got, err := ReadFile(f, strings.ToUpper(name), 1<<20)
				require.NoError(t, err, name)
				assert.Equal(t, want, got.Data, name)
				assert.WithinDuration(t, time.Now(), got.ModTime, 48*time.Hour, "FAT time, zone unknown")
			}
			_, err = ReadFile(f, "missing.txt", 1<<20)
			assert.ErrorIs(t, err, ErrNotExist)
			_, err = ReadFile(f, "BIG.BIN", 4096)
			assert.ErrorIs(t, err, ErrTooLarge)
		})
	}
}

func TestReadFileRefusesDamage(t *testing.T) {
	img := makeFAT(t, 16, 32<<10, map[string][]byte{"flipbot-token.txt": []byte("fsbm_0123456789abcdefghij\n")})
	good, err := os.ReadFile(img)
	require.NoError(t, err)

	_, err = ReadFile(bytes.NewReader(good[:100]), "flipbot-token.txt", 4096)
	assert.Error(t, err, "truncated")
	noSig := bytes.Clone(good)
	noSig[510] = 0
	_, err = ReadFile(bytes.NewReader(noSig), "flipbot-token.txt", 4096)
	assert.ErrorContains(t, err, "not a FAT")
	zeroSPC := bytes.Clone(good)
	zeroSPC[13] = 0
	_, err = ReadFile(bytes.NewReader(zeroSPC), "flipbot-token.txt", 4096)
	assert.ErrorContains(t, err, "geometry")
	_, err = ReadFile(bytes.NewReader(make([]byte, 4096)), "x", 4096)
	assert.Error(t, err)
}

func FuzzReadFile(f *testing.F) {
	// Seeds: a real FAT16 image's first sectors, and noise.
	if img, err := seedImage(); err == nil {
		f.Add(img)
	}
	f.Add(make([]byte, 1024))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := ReadFile(bytes.NewReader(b), "flipbot-token.txt", 4096)
		if err == nil {
			assert.LessOrEqual(t, len(file.Data), 4096)
		}
	})
}

// seedImage builds a tiny FAT12 image holding the token file, or fails
// when the tools are missing.
func seedImage() ([]byte, error) {
	dir, err := os.MkdirTemp("", "fatseed")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	img := filepath.Join(dir, "s.fat")
	mkfs := "/sbin/mkfs.vfat"
	if p, err := exec.LookPath("mkfs.vfat"); err == nil {
		mkfs = p
	}
	if err := exec.Command(mkfs, "-F", "12", "-C", img, "128").Run(); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "t")
	if err := os.WriteFile(src, []byte("fsbm_0123456789abcdefghij\n"), 0o644); err != nil {
		return nil, err
	}
	if err := exec.Command("mcopy", "-i", img, src, "::flipbot-token.txt").Run(); err != nil {
		return nil, err
	}
	return os.ReadFile(img)
}
