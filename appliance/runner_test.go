package appliance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/bot"
)

// inGame starts an env whose bot reports a match, and hands it new
// settings (one thread) while the match runs: they must wait.
func inGame(t *testing.T, meanwhile func(e *testEnv)) *testEnv {
	t.Helper()
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).setReport(bot.Status{State: bot.StateOnline, Matches: []bot.MatchStatus{testMatch()}})
	})
	e.player.waitStart(t)
	e.waitFor("in game", func(s state.Status) bool { return s.Kind == state.KindInGame })
	if meanwhile != nil {
		meanwhile(e)
	}
	s := settings.Default()
	s.Threads = 1
	e.a.ApplySettings(s)
	select {
	case <-e.player.started:
		t.Fatal("the bot was restarted in the middle of a match")
	default:
	}
	return e
}

func TestSettingsWaitForIdle(t *testing.T) {
	e := inGame(t, nil)
	// The match ends: the runner applies the settings.
	e.player.setReport(bot.Status{State: bot.StateOnline})
	e.a.runner.mu.Lock()
	cur := e.a.runner.current
	e.a.runner.mu.Unlock()
	e.a.runner.report(cur, bot.Status{State: bot.StateOnline})
	e.player.waitStart(t)
	assert.Equal(t, 1, e.player.lastSettings().Threads)
}

// The runner decides from what the bot reports, not from reading the
// status back: a status whose matches another writer cleared does not make
// it restart the bot in the middle of a match (it did when it read
// hub.Snapshot().Matches).
func TestSettingsWaitForTheBotsOwnReport(t *testing.T) {
	inGame(t, func(e *testEnv) {
		e.a.hub.Update(func(st *state.Status) { st.Matches = nil })
	})
}
