package imagetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/gokrazy/disk"
)

const testToken = "fsbm_image_test_token_0123456789"

// TestPiImage builds the Raspberry Pi image from this tree with a token
// file in a laptop's format, and reads it back.
func TestPiImage(t *testing.T) {
	need(t, "gok", "mtype", "unsquashfs", "/sbin/debugfs")
	dir := t.TempDir()
	img := filepath.Join(dir, "flipbot.img")
	tok := filepath.Join(dir, "token.txt")
	require.NoError(t, os.WriteFile(tok, []byte("\xef\xbb\xbftoken="+testToken+"\r\n"), 0o600))

	took := makeTarget(t, "image", "IMG="+img, "TOKEN_FILE="+tok)
	t.Logf("make image: %.1f s", took.Seconds())

	fi, err := os.Stat(img)
	require.NoError(t, err)
	assert.EqualValues(t, 2<<30, fi.Size(), "default size 2 GiB")
	used := fi.Sys().(*syscall.Stat_t).Blocks * 512
	assert.Less(t, used, fi.Size()/4, "the image file is sparse")

	tool := imageTool
	out := runCmd(t, tool, "check", img, "-token-file", tok)
	t.Logf("check:\n%s", out)
	for _, want := range []string{
		"ok   partition table",
		"ok   hybrid MBR: entry 1 is the boot partition, type 0x0C, active",
		"ok   boot file system: gok's FAT16, filling its partition",
		"ok   config.txt has dtparam=i2c_arm=on",
		"ok   boot partition has room for flipbot-token.txt",
		"ok   root file system: /user/flipbot for arm64 with the gokrazy tag",
		"ok   /perm is ext4",
		"ok   /perm/home/flipbot/fs_bot_token: 0600, root, expected content",
	} {
		assert.Contains(t, out, want)
	}

	// The boot file system is the one gok writes, grown: every header
	// field but those of its size is gok's own.
	raw := filepath.Join(dir, "gok.img")
	runCmd(t, gok(), "-i", filepath.Join(repoRoot(t), "build", "gokrazy", "flipbot"), "overwrite", "--full", raw, "--target_storage_bytes=2147483648")
	rawBoot, err := disk.PartitionOf(raw, disk.BootPartition)
	require.NoError(t, err)
	gokFAT, err := disk.BootHeader(rawBoot)
	require.NoError(t, err)
	imgBoot, err := disk.PartitionOf(img, disk.BootPartition)
	require.NoError(t, err)
	ours, err := disk.BootHeader(imgBoot)
	require.NoError(t, err)
	assert.Nil(t, ours.SameButSize(gokFAT), "gok's FAT16 header kept")
	assert.Equal(t, "gokrazy!", gokFAT.OEM)
	assert.Greater(t, ours.TotalSectors, gokFAT.TotalSectors)
	t.Logf("gok's boot file system: %+v; grown: %d sectors, FAT %d sectors, %d root entries", gokFAT, ours.TotalSectors, ours.FATSectors, ours.RootEntries)
	for _, f := range []string{"cmdline.txt", "config.txt", "bcm2710-rpi-3-b.dtb", "vmlinuz"} {
		a, err := disk.ReadBootFile(rawBoot, f, 128<<20)
		require.NoError(t, err, f)
		b, err := disk.ReadBootFile(imgBoot, f, 128<<20)
		require.NoError(t, err, f)
		assert.True(t, bytes.Equal(a, b), "%s is gok's", f)
	}

	// The check can fail: another token is not what the image holds.
	other := filepath.Join(dir, "other.txt")
	require.NoError(t, os.WriteFile(other, []byte("fsbm_some_other_token_0123456789\n"), 0o600))
	bad, err := runTool(tool, "check", img, "-token-file", other)
	require.Error(t, err)
	assert.Contains(t, bad, "FAIL /perm/home/flipbot/fs_bot_token")
	assert.NotContains(t, bad, testToken, "the check never prints a token")
	assert.NotContains(t, bad, "fsbm_some_other", "the check never prints a token")
}

// TestImageRefusesBadTokenFile: a malformed TOKEN_FILE stops make image
// before anything is written to /perm, without echoing it.
func TestImageRefusesBadTokenFile(t *testing.T) {
	need(t, "/sbin/debugfs")
	dir := t.TempDir()
	tok := filepath.Join(dir, "token.txt")
	require.NoError(t, os.WriteFile(tok, []byte("my token is fsbm_0123456789abcdef\n"), 0o600))
	img := filepath.Join(dir, "x.img")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	out, err := runTool(imageTool, "perm", img, "-token-file", tok)
	require.Error(t, err)
	assert.Contains(t, out, "TOKEN_FILE")
	assert.NotContains(t, out, "fsbm_0123456789abcdef")
}

// egaroucidSrcEnv names an Egaroucid source tree for the tests that build
// it: a checkout of github.com/Nyanyan/Egaroucid made outside every
// repository, with its evaluation files in bin/resources (engines/README.md,
// "Real programs in tests").
const egaroucidSrcEnv = "FLIPBOT_EGAROUCID_SRC"

// egaroucidSrc returns the source tree that egaroucidSrcEnv names, or "" when
// it is unset or holds no src/Egaroucid_for_Console.cpp.
func egaroucidSrc() string {
	src := os.Getenv(egaroucidSrcEnv)
	if src == "" {
		return ""
	}
	if _, err := os.Stat(filepath.Join(src, "src", "Egaroucid_for_Console.cpp")); err != nil {
		return ""
	}
	return src
}

// egaroucidStage builds Egaroucid once for the package's tests (the VM
// test puts it into the image), or returns "" when it cannot be built here.
func egaroucidStage(t *testing.T) string {
	t.Helper()
	stageOnce.Do(func() {
		src := egaroucidSrc()
		if src == "" {
			return
		}
		for _, c := range []string{"aarch64-linux-gnu-g++", "qemu-aarch64"} {
			if _, err := exec.LookPath(c); err != nil {
				return
			}
		}
		dir := filepath.Join(scratch, "egaroucid")
		took := makeTarget(t, "egaroucid", "EGAROUCID_SRC="+src, "EGAROUCID_STAGE="+dir)
		t.Logf("make egaroucid: %.0f s", took.Seconds())
		stageDir = dir
	})
	return stageDir
}

// TestEgaroucidRecipe cross-compiles Egaroucid for linux/arm64 with make
// egaroucid from the source tree that FLIPBOT_EGAROUCID_SRC names, and plays
// a move with it under qemu-aarch64 (with the evaluation in its
// bin/resources).
func TestEgaroucidRecipe(t *testing.T) {
	need(t, "aarch64-linux-gnu-g++", "qemu-aarch64")
	if egaroucidSrc() == "" {
		t.Skipf("SKIPPED: set %s to an Egaroucid source tree (src/Egaroucid_for_Console.cpp, bin/resources; engines/README.md)", egaroucidSrcEnv)
	}
	stage := egaroucidStage(t)
	bin := filepath.Join(stage, "Egaroucid_for_Console")
	info := runCmd(t, "file", bin)
	assert.Contains(t, info, "ARM aarch64")
	assert.Contains(t, info, "statically linked")
	_, err := os.Stat(filepath.Join(stage, "resources", "eval.egev2"))
	require.NoError(t, err, "the resources are staged beside the binary")

	// The start position, black to move: Egaroucid must answer a legal
	// opening move (d3, c4, f5 or e6).
	board := strings.Repeat(".", 27) + "OX" + strings.Repeat(".", 6) + "XO" + strings.Repeat(".", 27)
	out, rss := runWithRSS(t, "setboard "+board+" X\ngo\nquit\n", "qemu-aarch64", bin, "-quiet", "-noboard", "-nobook", "-l", "1", "-hash", "16", "-t", "1")
	t.Logf("peak RSS under qemu-aarch64 at -hash 16: %d MiB", rss>>20)
	assert.Less(t, rss, int64(700<<20), "the low-memory build (the stock one takes 1.4 GB at any -hash)")
	t.Logf("egaroucid under qemu-aarch64: %q", out)
	found := false
	for _, m := range []string{"d3", "c4", "f5", "e6", "D3", "C4", "F5", "E6"} {
		found = found || strings.Contains(out, m)
	}
	assert.True(t, found, "a legal first move in %q", out)
}
