package appliance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/bot"
)

// SIGTERM (gokrazy update or reboot): the bot finishes its move in flight,
// the pages close and Run returns 0 so that gokrazy does not restart it.
func TestSIGTERMDrains(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := NotifyStop(context.Background(), func(code int) { exited <- code })
	defer stop()
	e := startEnvCtx(t, ctx, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		p := a.cfg.Player.(*fakePlayer)
		p.drain = 200 * time.Millisecond // a move in flight
		p.setReport(bot.Status{State: bot.StateOnline, Matches: []bot.MatchStatus{testMatch()}})
	})
	e.player.waitStart(t)
	e.waitFor("in game", func(s state.Status) bool { return s.Kind == state.KindInGame })
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	var code int
	select {
	case code = <-e.done:
		e.done <- code
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	assert.Equal(t, ExitSignalled, code)
	e.player.mu.Lock()
	assert.Equal(t, 1, e.player.drained, "the move in flight was finished")
	e.player.mu.Unlock()
	assert.Equal(t, state.KindStopping, e.a.hub.Snapshot().Kind, "the last state shown")
	_, err := http.Get(e.base + "/api/status")
	assert.Error(t, err, "the pages are closed")
	assert.Contains(t, e.logs.String(), "stopping")
	select {
	case code := <-exited:
		t.Fatalf("one signal must not force an exit (got %d)", code)
	default:
	}
}

// A bot that does not stop is left behind after the drain time: the
// process still exits in seconds.
func TestDrainIsBounded(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).hang = hang
		a.runner.drain, a.runner.moveDrain = 100*time.Millisecond, 100*time.Millisecond
	})
	e.player.waitStart(t)
	assert.Equal(t, ExitSignalled, e.stop())
	assert.Contains(t, e.logs.String(), "did not stop within the drain time")
}

func TestSecondSignalExitsAtOnce(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := NotifyStop(context.Background(), func(code int) { exited <- code })
	defer stop()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	<-ctx.Done()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-exited:
		assert.Equal(t, ExitRetry, code)
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal did not exit")
	}
}

func TestWaitsForClockBeforeTLS(t *testing.T) {
	clock := make(chan struct{})
	e := startEnv(t, func(c *Config, a *app) { c.Platform = fakePlatform{clock: clock} })
	e.waitFor("waiting for the clock", func(s state.Status) bool { return s.Kind == state.KindWaitingClock })
	_, body := e.get("/", false)
	assert.Contains(t, body, "Waiting for network/clock")
	assert.Contains(t, body, `id="waiting"`)
	csrf := csrfRe.FindStringSubmatch(body)[1]
	status, body, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {"000000"}, "token": {tokA}}, "", "")
	assert.Equal(t, http.StatusServiceUnavailable, status, "no pairing code exists before the clock: %s", body)
	assert.Contains(t, body, "waiting for the network")
	assert.Equal(t, 0, e.checker.calls, "no TLS call before the clock is set")
	close(clock)
	e.waitFor("setup needed", func(s state.Status) bool { return s.Kind == state.KindSetupNeeded && s.PairingCode != "" })
}

// A retryable failure backs off inside the process instead of exiting
// (gokrazy would restart it every second, forever).
func TestRetryableFailureBacksOff(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).err = fmt.Errorf("stream: %w: dial tcp: i/o timeout", ErrNetwork)
	})
	e.player.waitStart(t)
	st := e.waitFor("no network", func(s state.Status) bool { return s.Kind == state.KindNoNetwork })
	assert.Contains(t, st.Detail, "retrying in 1s")
	e.player.waitStart(t) // retried after the backoff, same process
	st = e.waitFor("backoff doubled", func(s state.Status) bool {
		return s.Kind == state.KindNoNetwork && s.Detail != "" && s.Detail != st.Detail
	})
	assert.Contains(t, st.Detail, "retrying in 2s")
	select {
	case code := <-e.done:
		t.Fatalf("Run ended with %d on a retryable failure", code)
	default:
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	code := Run(context.Background(), Config{Logger: slog.New(slog.DiscardHandler)})
	assert.Equal(t, ExitStayStopped, code)
	_, err := newApp(Config{Dir: t.TempDir()})
	assert.True(t, err != nil && !errors.Is(err, context.Canceled))
}
