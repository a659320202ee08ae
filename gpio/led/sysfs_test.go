package led

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3/gpio"
)

// fakeLED makes a /sys/class/leds/NAME look-alike. Unlike the kernel's
// file, writing "none" replaces the whole trigger file, which is enough to
// see what was written.
func fakeLED(t *testing.T, root, name, trigger, max string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trigger"), []byte(trigger), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "brightness"), []byte("0\n"), 0o644))
	if max != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "max_brightness"), []byte(max), 0o644))
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestSysfsLEDTakesAndRestoresTrigger(t *testing.T) {
	root := t.TempDir()
	dir := fakeLED(t, root, "ACT", "none rc-feedback kbd-scrolllock [mmc0] timer heartbeat\n", "255\n")

	l, err := OpenSysfs(dir)
	require.NoError(t, err)
	assert.Equal(t, "mmc0", l.Trigger())
	assert.Equal(t, "none", readFile(t, filepath.Join(dir, "trigger")), "trigger set to none before any brightness write")
	assert.Equal(t, "ACT", l.String())

	require.NoError(t, l.Out(gpio.High))
	assert.Equal(t, "255", readFile(t, filepath.Join(dir, "brightness")))
	require.NoError(t, l.Out(gpio.Low))
	assert.Equal(t, "0", readFile(t, filepath.Join(dir, "brightness")))

	require.NoError(t, l.Close())
	assert.Equal(t, "mmc0", readFile(t, filepath.Join(dir, "trigger")))
	require.NoError(t, l.Close(), "second Close is harmless")
	assert.Error(t, l.Out(gpio.High), "no writes after Close")
}

func TestSysfsLEDWithoutMaxBrightness(t *testing.T) {
	dir := fakeLED(t, t.TempDir(), "led0", "[heartbeat] none", "")
	l, err := OpenSysfs(dir)
	require.NoError(t, err)
	require.NoError(t, l.Out(gpio.High))
	assert.Equal(t, "1", readFile(t, filepath.Join(dir, "brightness")))
	require.NoError(t, l.Close())
	assert.Equal(t, "heartbeat", readFile(t, filepath.Join(dir, "trigger")))
}

func TestOpenSysfsErrors(t *testing.T) {
	_, err := OpenSysfs(filepath.Join(t.TempDir(), "nope"))
	assert.Error(t, err)
	dir := fakeLED(t, t.TempDir(), "ACT", "none mmc0", "")
	_, err = OpenSysfs(dir)
	assert.ErrorContains(t, err, "no active trigger")
}

func TestFindSysfs(t *testing.T) {
	root := t.TempDir()
	fakeLED(t, root, "led0", "[mmc0]", "")
	fakeLED(t, root, "PWR", "[default-on]", "")

	dir, err := FindSysfs(root, "ACT", "led0")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "led0"), dir)

	_, err = FindSysfs(root, "ACT", "../led0", "")
	assert.ErrorContains(t, err, "no LED named")
}

func TestParseTrigger(t *testing.T) {
	tests := map[string]string{
		"none [mmc0] timer":   "mmc0",
		"[none] mmc0":         "none",
		"actpwr [default-on]": "default-on",
	}
	for in, want := range tests {
		got, err := ParseTrigger(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"", "none mmc0", "[]", "[ mmc0 ]"} {
		_, err := ParseTrigger(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseTrigger(f *testing.F) {
	f.Add("none [mmc0] timer heartbeat")
	f.Add("[none]")
	f.Add("[")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTrigger(s)
		if err != nil {
			return
		}
		if got == "" || strings.ContainsAny(got, " \t\n[]") && !strings.Contains(s, "["+got+"]") {
			t.Fatalf("ParseTrigger(%q) = %q", s, got)
		}
		if !strings.Contains(s, "["+got+"]") {
			t.Fatalf("ParseTrigger(%q) = %q, not bracketed in the input", s, got)
		}
	})
}
