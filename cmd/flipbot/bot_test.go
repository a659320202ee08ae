package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/testutil"
)

const testToken = "fsbm_CMDTESTSECRET"

func newArena(t *testing.T) (*arena.Server, string) {
	t.Helper()
	a, err := arena.New(arena.Config{Bots: []arena.BotConfig{
		{Name: "me", Token: testToken, Modes: othello.AllModes(), NoAutoMatch: true},
		{Name: "house", Builtin: true, Level: 1, Modes: othello.AllModes(), NoAutoMatch: true},
	}, ClockPerLeg: 20 * time.Second, PingInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	srv := httptest.NewServer(a.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	go a.Run(ctx, 20*time.Millisecond)
	t.Cleanup(func() { cancel(); srv.CloseClientConnections(); srv.Close(); a.Close() })
	return a, srv.URL + arena.APIPath
}

func env(tok string) func(string) string {
	return func(k string) string {
		if k == "FS_BOT_TOKEN" {
			return tok
		}
		return ""
	}
}

func noSignals(ctx context.Context, _ *slog.Logger) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(ctx)
	return ctx, nil, cancel
}

var builtinFlags = []string{"--max-think-seconds", "0.05", "--threads", "1", "--hash-mb", "4"}

func TestConnectExitCodes(t *testing.T) {
	_, api := newArena(t)
	tests := []struct {
		name string
		args []string
		tok  string
		want int
	}{
		{"token missing", nil, "", exitToken},
		{"token rejected", []string{"--api", api, "--max-runtime", "5"}, "fsbm_WRONG", exitToken},
		{"max-runtime reached", []string{"--api", api, "--max-runtime", "0.3"}, testToken, exitMaxRuntime},
		{"bad flag", []string{"--max-think-seconds", "999"}, testToken, exitToken},
		{"help", []string{"-h"}, testToken, exitOK},
		{"http off loopback", []string{"--api", "http://example.com/api"}, testToken, exitToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out testutil.SyncBuffer
			code := connect(append(append([]string{}, builtinFlags...), tt.args...), env(tt.tok), &out, &out, noSignals)
			assert.Equal(t, tt.want, code, out.String())
			assert.NotContains(t, out.String(), "SECRET")
			assert.NotContains(t, out.String(), "WRONG")
		})
	}
}

func TestConnectOnceMatchWithBuiltinEngine(t *testing.T) {
	a, api := newArena(t)
	// Register "me" as connected: a short first run.
	var out testutil.SyncBuffer
	require.Equal(t, exitMaxRuntime, connect(append([]string{"--api", api, "--max-runtime", "0.2"}, builtinFlags...), env(testToken), &out, &out, noSignals))
	var id int64
	require.Eventually(t, func() bool {
		var err error
		id, err = a.Challenge("house", "me", othello.Std)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	games := t.TempDir()
	code := connect(append([]string{"--api", api, "--once-match", itoa(id), "--max-runtime", "60", "--games-dir", games}, builtinFlags...),
		env(testToken), &out, &out, noSignals)
	require.Equal(t, exitOK, code, out.String())
	r, ok := a.Result(id)
	require.True(t, ok)
	assert.Equal(t, flipsight.MatchFinished, r.Status)
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason)
	assert.True(t, strings.Contains(out.String(), "match finished"))
	// Both legs were kept, and a new run reads them back.
	list, n := record.Open(record.Options{Dir: games}).List(record.Filter{}, 0, 0)
	require.Equal(t, 2, n, out.String())
	for _, g := range list {
		assert.Equal(t, id, g.MatchID)
		assert.Equal(t, "house", g.Opponent)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestConnectWithJSONLineEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole match through a Python engine")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	a, api := newArena(t)
	var out testutil.SyncBuffer
	require.Equal(t, exitMaxRuntime, connect([]string{"--api", api, "--max-runtime", "0.2"}, env(testToken), &out, &out, noSignals))
	var id int64
	require.Eventually(t, func() bool {
		id, err = a.Challenge("house", "me", othello.Std)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	code := connect([]string{"--api", api, "--once-match", itoa(id), "--max-runtime", "60",
		"--engine", py + " testdata/my_adapter.py"}, env(testToken), &out, &out, noSignals)
	require.Equal(t, exitOK, code, out.String())
	r, ok := a.Result(id)
	require.True(t, ok)
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason)
	// The own moves came from the engine: the match's line counts them
	// (the move lines name the source only when it is not the engine).
	m := regexp.MustCompile(`msg="match finished" .*moves="([0-9]+) engine, [0-9]+ forced, ([0-9]+) fallback"`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	assert.NotEqual(t, "0", m[1], "moves from the engine")
	assert.Equal(t, "0", m[2], "no fallback move")
}
