package appliance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/eval"
)

// An Egaroucid that does not answer its check keeps the device offline:
// Play returns ErrEngine with the cause, and FlipSight is never polled.
func TestBrokenEgaroucidKeepsTheBotOffline(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, "no", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ behaviour, want string }{
		{"crash", "exited"},
		{"illegal", "a1 is not legal"},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			var logs syncBuffer
			s := settings.Default()
			s.Engines["std"] = settings.EngineEgaroucid
			s.Threads, s.HashMB = 1, 4
			player := newBotPlayer(botPlayerConfig{APIURL: srv.URL + "/api", Egaroucid: egaroucidtest.Install(t, tc.behaviour),
				CPU: "test", Logger: testLogger(&logs), Machine: pi3, Evals: eval.BaselineSet})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := player.Play(ctx, mustToken(t, tokA), s, nil)
			require.ErrorIs(t, err, ErrEngine, logs.String())
			assert.Contains(t, err.Error(), "Egaroucid")
			assert.Contains(t, err.Error(), tc.want)
			assert.NoError(t, ctx.Err(), "returned before its bound")
			t.Log(err)
		})
	}
	assert.Zero(t, calls.Load(), "FlipSight was never polled")
}

// The runner shows an engine's failure as its own state, with the cause,
// and checks again after engineRetry, not after the network backoff.
func TestEngineFailureIsShownAndCheckedAgainLater(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).err = fmt.Errorf("%w: Egaroucid (/x): exited with exit status 139", ErrEngine)
	})
	e.player.waitStart(t)
	st := e.waitFor("engine failed", func(s state.Status) bool { return s.Kind == state.KindEngineFailed })
	assert.Contains(t, st.Detail, "exited with exit status 139")
	assert.Contains(t, st.Detail, "checking again in 1m0s")
	assert.False(t, st.Online)
	select {
	case <-e.player.started:
		t.Fatal("checked again before engineRetry")
	case <-time.After(2500 * time.Millisecond): // the network backoff would have retried after 1 s
	}
	assert.True(t, errors.Is(e.player.err, ErrEngine))
}

// New settings (std back to the built-in engine) are tried at once, not
// after the engine's next check.
func TestNewSettingsEndTheEngineWait(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).err = fmt.Errorf("%w: Egaroucid (/x): no answer in 1m0s", ErrEngine)
	})
	e.player.waitStart(t)
	e.waitFor("engine failed", func(s state.Status) bool { return s.Kind == state.KindEngineFailed })
	e.player.mu.Lock()
	e.player.err = nil
	e.player.mu.Unlock()
	s := settings.Default()
	s.Engines["std"] = settings.EngineBuiltin
	e.a.runner.setSettings(s)
	e.player.waitStart(t)
	st := e.waitFor("online", func(s state.Status) bool { return s.Kind == state.KindOnlineIdle })
	assert.False(t, st.EngineFailed)
	assert.Empty(t, st.Detail)
}
