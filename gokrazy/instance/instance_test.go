package instance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// piConfig is the committed Raspberry Pi instance.
func piConfig(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "flipbot", "config.json"))
	require.NoError(t, err)
	return b
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestPiInstance(t *testing.T) {
	m := decode(t, piConfig(t))
	assert.Equal(t, "flipbot", m["Hostname"])
	assert.Equal(t, []any{"GOOS=linux", "GOARCH=arm64"}, m["Environment"])
	assert.Equal(t, "github.com/gokrazy/kernel.rpi", m["KernelPackage"])
	assert.Equal(t, "github.com/gokrazy/firmware", m["FirmwarePackage"])
	assert.Equal(t, "github.com/gokrazy/rpi-eeprom", m["EEPROMPackage"])
	assert.Equal(t, []any{"dtparam=i2c_arm=on"}, m["BootloaderExtraLines"])
	if u, ok := m["Update"].(map[string]any); ok {
		assert.NotContains(t, u, "HTTPPassword", "no password is committed: gok keeps one per user")
	}
	assert.NotContains(t, string(piConfig(t)), "machine-id", "a committed machine-id would be shared by every device")
}

func TestBuilddirReplaceIsRelative(t *testing.T) {
	for _, cmd := range []string{"flipbot", "flipbot-arena"} {
		b, err := os.ReadFile(filepath.Join("..", "flipbot", "builddir", "flipbot.dev", "flipbot", "cmd", cmd, "go.mod"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "replace flipbot.dev/flipbot => ../../../../../../..", cmd)
		root, err := filepath.Abs(filepath.Join("..", "flipbot", "builddir", "flipbot.dev", "flipbot", "cmd", cmd, "../../../../../../.."))
		require.NoError(t, err)
		_, err = os.Stat(filepath.Join(root, "go.mod"))
		assert.NoError(t, err, "the replace path leads to the repository")
	}
}

func TestTransformVariants(t *testing.T) {
	pi := piConfig(t)
	piFlags, err := FlipbotFlags(pi)
	require.NoError(t, err)
	require.NotEmpty(t, piFlags)

	vm, err := Transform(pi, Options{VM: true, UpdateHost: "localhost:18080"})
	require.NoError(t, err)
	m := decode(t, vm)
	assert.Equal(t, "github.com/gokrazy/kernel.arm64", m["KernelPackage"])
	assert.Equal(t, "", m["FirmwarePackage"])
	assert.Equal(t, "", m["EEPROMPackage"])
	assert.Equal(t, "ttyAMA0,115200", m["SerialConsole"])
	assert.NotContains(t, m, "BootloaderExtraLines")
	assert.Equal(t, "localhost:18080", m["Update"].(map[string]any)["Hostname"])
	vmFlags, err := FlipbotFlags(vm)
	require.NoError(t, err)
	assert.Equal(t, append(append([]string{}, piFlags...), "-indicators=false"), vmFlags, "the Pi's flags, one source of truth")

	off, err := Transform(pi, Options{Offline: true, ExtraFlags: []string{"-drain=9s"}})
	require.NoError(t, err)
	m = decode(t, off)
	assert.Contains(t, m["Packages"], ArenaPackage)
	assert.Equal(t, "github.com/gokrazy/kernel.rpi", m["KernelPackage"], "the offline Pi image is the Pi's (for the emulated Pi 3B)")
	assert.Equal(t, []any{"dtparam=i2c_arm=on"}, m["BootloaderExtraLines"])
	ntp := m["PackageConfig"].(map[string]any)[NTPPackage].(map[string]any)["CommandLineFlags"]
	assert.Equal(t, []any{"10.0.2.2", "0.gokrazy.pool.ntp.org", "1.gokrazy.pool.ntp.org", "2.gokrazy.pool.ntp.org", "3.gokrazy.pool.ntp.org"}, ntp,
		"the emulator's host answers the time, gokrazy's pool elsewhere")
	offVM, err := Transform(pi, Options{VM: true, Offline: true})
	require.NoError(t, err)
	assert.Equal(t, "github.com/gokrazy/kernel.arm64", decode(t, offVM)["KernelPackage"])
	arena := m["PackageConfig"].(map[string]any)[ArenaPackage].(map[string]any)["CommandLineFlags"]
	assert.Contains(t, arena, "--listen="+OfflineArenaAddr)
	assert.Contains(t, arena, "--auto-match")
	offFlags, _ := FlipbotFlags(off)
	assert.Contains(t, offFlags, "-api=http://"+OfflineArenaAddr+"/flipsight/bot_match_api.php")
	assert.Equal(t, "-drain=9s", offFlags[len(offFlags)-1], "extra flags come last and win")

	ega, err := Transform(pi, Options{Egaroucid: "/some/stage"})
	require.NoError(t, err)
	m = decode(t, ega)
	fb := m["PackageConfig"].(map[string]any)[FlipbotPackage].(map[string]any)
	assert.Equal(t, map[string]any{EgaroucidDir: "egaroucid"}, fb["ExtraFilePaths"])
	egaFlags, _ := FlipbotFlags(ega)
	assert.Contains(t, egaFlags, "-egaroucid="+EgaroucidDir+"/"+EgaroucidBinary)
	assert.Equal(t, "github.com/gokrazy/kernel.rpi", m["KernelPackage"], "still the Pi")
}

func TestTransformRefusesOtherInstances(t *testing.T) {
	for _, in := range []string{`[]`, `{"Packages":["example.com/x"]}`, `not json`, `null`} {
		_, err := Transform([]byte(in), Options{VM: true})
		assert.Error(t, err, in)
	}
}

func TestDerive(t *testing.T) {
	stage := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(stage, EgaroucidBinary), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(stage, "resources"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stage, "resources", "eval.egev2"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stage, "unrelated.log"), []byte("x"), 0o644))

	dst := filepath.Join(t.TempDir(), "deep", "er", "inst")
	require.NoError(t, Derive(filepath.Join("..", "flipbot"), dst, Options{VM: true, Egaroucid: stage}))
	b, err := os.ReadFile(filepath.Join(dst, "builddir", "flipbot.dev", "flipbot", "cmd", "flipbot", "go.mod"))
	require.NoError(t, err)
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	assert.Contains(t, string(b), "replace flipbot.dev/flipbot => "+root+"\n", "rewritten absolute, so the copy builds anywhere")
	_, err = os.Stat(filepath.Join(dst, "builddir", "github.com", "gokrazy", "kernel.arm64", "go.mod"))
	assert.NoError(t, err, "the pinned kernel.arm64 is copied")
	_, err = os.Stat(filepath.Join(dst, "egaroucid", "resources", "eval.egev2"))
	assert.NoError(t, err)
	_, err = os.Stat(filepath.Join(dst, "egaroucid", "unrelated.log"))
	assert.True(t, os.IsNotExist(err), "only the binary and resources are staged")

	err = Derive(filepath.Join("..", "flipbot"), dst, Options{Egaroucid: t.TempDir()})
	assert.ErrorContains(t, err, "make egaroucid")
	assert.False(t, strings.Contains(err.Error(), "\n"))
}
