package vm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadEvents(t *testing.T) {
	var got []string
	in := "data: first line\n\ndata: time=x level=INFO msg=\"setup needed\" pairing_code=123456 pages=http://10.0.2.15:8080/\n\n: comment\nevent: stdout\ndata:nospace\n\n"
	require.NoError(t, ReadEvents(strings.NewReader(in), func(l string) { got = append(got, l) }))
	assert.Equal(t, []string{"first line", `time=x level=INFO msg="setup needed" pairing_code=123456 pages=http://10.0.2.15:8080/`, "nospace"}, got)
	assert.Equal(t, "123456", PairingCode(got[1]))
	assert.Equal(t, "", PairingCode(got[0]))
	assert.Equal(t, "", PairingCode("pairing_code=1234567"))

	err := ReadEvents(strings.NewReader("data: "+strings.Repeat("x", 70<<10)+"\n"), func(string) {})
	assert.Error(t, err, "an endless line is refused")
}

func TestArgs(t *testing.T) {
	cfg := Config{Image: "/tmp/x.img", HTTPPort: 18080, AppPort: 18081}
	soft := strings.Join(cfg.Args(false), " ")
	assert.Contains(t, soft, "-machine virt,highmem=off -cpu cortex-a72")
	assert.Contains(t, soft, "-bios "+Firmware)
	assert.Contains(t, soft, "hostfwd=tcp:127.0.0.1:18080-:80,hostfwd=tcp:127.0.0.1:18081-:8080")
	assert.Contains(t, soft, "-device i6300esb")
	assert.Contains(t, soft, "romfile=")
	assert.Contains(t, soft, "-smp 2 -m 1024")
	kvm := strings.Join(cfg.Args(true), " ")
	assert.Contains(t, kvm, "-accel kvm -cpu host")

	require.NoError(t, cfg.Ports())
	assert.Equal(t, 18080, cfg.HTTPPort, "set ports are kept")
	free := Config{}
	require.NoError(t, free.Ports())
	assert.NotZero(t, free.HTTPPort)
	assert.NotEqual(t, free.HTTPPort, free.AppPort)
}

func TestPassword(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	_, err := Password("flipbot")
	assert.ErrorContains(t, err, "http-password.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "gokrazy", "hosts", "flipbot"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gokrazy", "http-password.txt"), []byte("general\n"), 0o600))
	pw, err := Password("flipbot")
	require.NoError(t, err)
	assert.Equal(t, "general", pw)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gokrazy", "hosts", "flipbot", "http-password.txt"), []byte("per-host\n"), 0o600))
	pw, err = Password("flipbot")
	require.NoError(t, err)
	assert.Equal(t, "per-host", pw, "the per-host file wins, as in gok")
}
