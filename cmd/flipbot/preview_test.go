package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDisplayPreview(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"ssd1306", "sh1106", "ssd1306-32", "lcd1602", "lcd2004"} {
		out := filepath.Join(dir, d+".png")
		var errb bytes.Buffer
		require.Equal(t, 0, displayPreview([]string{"--state", "in_game", "--display", d, "--out", out}, &errb), errb.String())
		f, err := os.Open(out)
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err, d)
		assert.Greater(t, img.Bounds().Dx(), 0, d)
	}
	for _, args := range [][]string{
		{"--state", "flying", "--display", "ssd1306", "--out", filepath.Join(dir, "x.png")},
		{"--state", "online_idle", "--display", "vga", "--out", filepath.Join(dir, "x.png")},
		{"--state", "online_idle", "--display", "auto", "--out", filepath.Join(dir, "x.png")},
		{"--state", "online_idle"},
		{"extra"},
	} {
		var errb bytes.Buffer
		assert.Equal(t, 2, displayPreview(args, &errb), "%v", args)
		assert.NotEmpty(t, errb.String())
	}
	_, err := os.Stat(filepath.Join(dir, "x.png"))
	assert.True(t, os.IsNotExist(err), "no file written on bad input")
}
