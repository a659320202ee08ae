package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/testutil"
)

// An engine that does not answer its probe: flipbot exits 1 with one line
// naming the flag, the program and the cause, and never reaches FlipSight.
func TestConnectRefusesABrokenEngine(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	write := func(name, body string, perm os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), perm))
		return p
	}
	crash := write("crash", "echo 'Segmentation fault' >&2\nexit 139", 0o755)
	plain := write("plain", "exit 0", 0o644)
	illegal := write("illegal", `while read l; do echo '{"move": 0}'; done`, 0o755)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing --engine", []string{"--engine", "/nonexistent/engine"}, "flipbot: --engine /nonexistent/engine: not found"},
		{"missing --nboard", []string{"--nboard", "/nope/nb"}, "flipbot: --nboard /nope/nb: not found"},
		{"missing --edax", []string{"--edax", "/nope/lEdax"}, "flipbot: --edax /nope/lEdax: "},
		{"missing --egaroucid", []string{"--egaroucid", "/nope/Egaroucid_for_Console.out"}, "flipbot: --egaroucid /nope/Egaroucid_for_Console.out: "},
		{"not executable", []string{"--engine", plain}, "flipbot: --engine " + plain + ": not executable"},
		{"exits 139", []string{"--engine", crash}, "flipbot: --engine " + crash + ": exited with exit status 139; its last stderr: Segmentation fault"},
		{"illegal answer", []string{"--engine", illegal}, "flipbot: --engine " + illegal + ": an illegal answer in the std start position"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out testutil.SyncBuffer
			code := connect(append([]string{"--api", srv.URL + "/api"}, tt.args...), env(testToken), &out, &out, noSignals)
			assert.Equal(t, exitFailure, code, out.String())
			var lines []string
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "flipbot: ") {
					lines = append(lines, l)
				}
			}
			require.Len(t, lines, 1, out.String())
			assert.True(t, strings.HasPrefix(lines[0], tt.want), "%q\nwant the prefix %q", lines[0], tt.want)
			assert.NotContains(t, out.String(), "bot starting")
		})
	}
	assert.Zero(t, calls.Load(), "no request reached FlipSight")
}

// scriptedSignals is a signalFunc the test drives: first cancels the
// context (the first signal), second closes quit (the second).
type scriptedSignals struct {
	first  chan struct{}
	second chan struct{}
}

func newScriptedSignals() *scriptedSignals {
	return &scriptedSignals{first: make(chan struct{}), second: make(chan struct{})}
}

func (s *scriptedSignals) ctx(parent context.Context, _ *slog.Logger) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(parent)
	go func() {
		select {
		case <-s.first:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, s.second, cancel
}

// registerMe registers "me" with the arena: a short run.
func registerMe(t *testing.T, api string) {
	t.Helper()
	var out testutil.SyncBuffer
	require.Equal(t, exitMaxRuntime, connect(append([]string{"--api", api, "--max-runtime", "0.2"}, builtinFlags...), env(testToken), &out, &out, noSignals))
}

// The first signal in the middle of a match: no new match, the match is
// played to its end and both legs recorded before flipbot exits 0.
func TestFirstSignalFinishesTheMatch(t *testing.T) {
	a, api := newArena(t)
	registerMe(t, api)
	games := t.TempDir()
	sig := newScriptedSignals()
	var out testutil.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- connect(append([]string{"--api", api, "--games-dir", games, "--drain", "60s", "--eval", "baseline"}, builtinFlags...),
			env(testToken), &out, &out, sig.ctx)
	}()
	var id int64
	require.Eventually(t, func() bool {
		var err error
		id, err = a.Challenge("house", "me", othello.Std)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "msg=move") }, time.Minute, 10*time.Millisecond)
	close(sig.first)
	select {
	case c := <-code:
		require.Equal(t, exitOK, c, out.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("flipbot did not exit after the match:\n%s", out.String())
	}
	r, ok := a.Result(id)
	require.True(t, ok)
	assert.Equal(t, flipsight.MatchFinished, r.Status, out.String())
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason)
	list, n := record.Open(record.Options{Dir: games}).List(record.Filter{}, 0, 0)
	require.Equal(t, 2, n, "both legs recorded before the exit:\n%s", out.String())
	for _, g := range list {
		assert.Equal(t, id, g.MatchID)
	}
	logs := out.String()
	assert.Contains(t, logs, "playing the running matches to their end")
	assert.Contains(t, logs, "matches=1")
	assert.Contains(t, logs, "send the signal again")
	assert.Less(t, strings.Index(logs, "match finished"), strings.Index(logs, "bot stopped"))
}

// A second signal during the drain exits promptly, the match abandoned.
func TestSecondSignalExitsPromptly(t *testing.T) {
	a, api := newArena(t)
	registerMe(t, api)
	sig := newScriptedSignals()
	var out testutil.SyncBuffer
	code := make(chan int, 1)
	go func() {
		code <- connect([]string{"--api", api, "--no-records", "--max-think-seconds", "1", "--threads", "1", "--hash-mb", "4", "--eval", "baseline"},
			env(testToken), &out, &out, sig.ctx)
	}()
	var id int64
	require.Eventually(t, func() bool {
		var err error
		id, err = a.Challenge("house", "me", othello.Std)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "msg=move") }, time.Minute, 10*time.Millisecond)
	close(sig.first)
	select {
	case c := <-code:
		t.Fatalf("exited (%d) on the first signal with the match running:\n%s", c, out.String())
	case <-time.After(300 * time.Millisecond):
	}
	close(sig.second)
	select {
	case c := <-code:
		assert.Equal(t, exitOK, c)
	case <-time.After(5 * time.Second):
		t.Fatalf("flipbot did not exit promptly on the second signal:\n%s", out.String())
	}
	if r, ok := a.Result(id); ok {
		assert.Equal(t, flipsight.MatchRunning, r.Status)
	}
}
