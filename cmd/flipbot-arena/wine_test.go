//go:build linux && amd64

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/winetest"
)

// TestFlipbotExeUnderWine: flipbot.exe, built for windows/amd64, plays a
// match under Wine against the arena on loopback, with flipengine.exe as
// its external engine (--engine): Windows' process supervision
// (engines/proc: the Job Object, the overlapped pipes) at work. After
// flipbot.exe has exited, no flipengine.exe is left.
func TestFlipbotExeUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: builds flipbot.exe and plays a match under Wine; skipped with -short")
	}
	w := winetest.New(t)
	dir := t.TempDir()
	flipbotExe := winetest.Build(t, dir, "flipbot.dev/flipbot/cmd/flipbot", false)
	engineExe := winetest.Build(t, dir, "flipbot.dev/flipbot/cmd/flipengine", false)

	// flipbot-arena demo runs its --flipbot with the demo's flags: this
	// script runs flipbot.exe under Wine with them, and the engine.
	script := filepath.Join(dir, "flipbot-wine")
	require.NoError(t, os.WriteFile(script, []byte(fmt.Sprintf(
		"#!/bin/sh\nexec '%s' '%s' \"$@\" --engine '%s engine'\n",
		w.Path, flipbotExe, winetest.WindowsPath(engineExe))), 0o700))

	// The engines are Linux processes whose command line names the
	// program as Windows does (Z:\tmp\…\flipengine.exe): found by the
	// test's own directory and the program's name.
	engines := func() int {
		n := 0
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, f := range cmdlines {
			b, _ := os.ReadFile(f)
			if bytes.Contains(b, []byte(filepath.Base(filepath.Dir(dir)))) && bytes.Contains(b, []byte("flipengine.exe")) {
				n++
			}
		}
		return n
	}
	seen := make(chan bool, 1)
	stop := make(chan struct{})
	go func() {
		for {
			if engines() > 0 {
				seen <- true
				return
			}
			select {
			case <-stop:
				seen <- false
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Setenv("WINEPREFIX", w.Prefix) // the demo's flipbot runs with our environment
	t.Setenv("WINEDEBUG", "-all")
	var out bytes.Buffer
	code := runDemo([]string{"--flipbot", script, "--clock-ms", "60000"}, &out, io.Discard)
	close(stop)
	s := out.String()
	require.Equal(t, 0, code, s)
	assert.NotContains(t, s, "cannot play yet", "flipbot.exe itself played")
	assert.Contains(t, s, "demo: match #1 finished")
	// The default move line names the source only when it is not the
	// engine: an engine move is a move line without one.
	engineMoves := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "msg=move ") && !strings.Contains(l, "source=") {
			engineMoves++
		}
	}
	assert.Positive(t, engineMoves, "flipengine.exe answered through the pipes")
	assert.True(t, <-seen, "flipengine.exe was seen running")
	assert.Eventually(t, func() bool { return engines() == 0 }, 10*time.Second, 100*time.Millisecond,
		"a flipengine.exe outlived flipbot.exe")
	if t.Failed() {
		t.Log(s)
	}
}
