package appliance

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// A shutdown (SIGTERM: the play's context cancelled without a cause)
// plays the running match to its end and keeps both legs before Play
// returns; a new token or new settings (errStopNow) abandon it at once.
func TestShutdownPlaysTheRunningMatchOut(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a std match in real time (about 15 s); skipped with -short")
	}
	for _, tc := range []struct {
		name  string
		cause error
	}{
		{"SIGTERM", nil},
		{"new token", errStopNow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, apiURL := startArena(t, arena.Config{
				Bots: []arena.BotConfig{
					{Name: "PiBot", Token: tokA, Modes: othello.AllModes()},
					{Name: "Greedy", Builtin: true, Level: 1, Modes: othello.AllModes()},
				},
				ClockPerLeg: 8 * time.Second, SearchThreads: 1,
			}, 20*time.Millisecond)
			var logs syncBuffer
			var games gameList
			player := newBotPlayer(botPlayerConfig{APIURL: apiURL, CPU: "test", Logger: testLogger(&logs), Records: &games,
				Evals: eval.BaselineSet, Drain: time.Minute})
			s := settings.Default()
			s.Threads, s.HashMB = 1, 4
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var online atomic.Bool
			done := make(chan error, 1)
			go func() {
				done <- player.Play(ctx, mustToken(t, tokA), s, func(st bot.Status) { online.Store(st.Online()) })
			}()
			require.Eventually(t, online.Load, 30*time.Second, 10*time.Millisecond, "the bot goes online")
			id, err := srv.Challenge("Greedy", "PiBot", othello.Std)
			require.NoError(t, err)
			waitLog(t, &logs, "msg=move")
			cancel(tc.cause)
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(45 * time.Second):
				t.Fatalf("Play did not return:\n%s", logs.String())
			}
			r, _ := srv.Result(id)
			if tc.cause == nil {
				assert.Equal(t, flipsight.MatchFinished, r.Status, logs.String())
				assert.Equal(t, 2, games.count(id), "both legs kept before Play returned")
			} else {
				assert.Equal(t, flipsight.MatchRunning, r.Status, "abandoned")
			}
		})
	}
}

// gameList is a bot.Recorder in memory.
type gameList struct {
	mu    sync.Mutex
	games []record.Game
}

func (l *gameList) Add(g record.Game) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.games = append(l.games, g)
	return nil
}

func (l *gameList) count(match int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, g := range l.games {
		if g.MatchID == match {
			n++
		}
	}
	return n
}

// Only a shutdown waits for the running matches: a new token stops the
// play with errStopNow (the matches abandoned at once), SIGTERM without it
// (played to their end).
func TestOnlyAShutdownWaitsForTheMatches(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
	})
	e.player.waitStart(t)
	e.a.runner.setToken(mustToken(t, tokB), state.BotInfo{})
	e.player.waitStart(t)
	assert.Equal(t, ExitSignalled, e.stop())
	e.player.mu.Lock()
	defer e.player.mu.Unlock()
	require.Len(t, e.player.causes, 2)
	assert.ErrorIs(t, e.player.causes[0], errStopNow, "a new token abandons the matches")
	assert.NotErrorIs(t, e.player.causes[1], errStopNow, "SIGTERM plays them out")
}
