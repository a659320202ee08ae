package arena

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestBuiltinPlaysEveryMode: a challenge to a built-in bot starts at once
// and the server plays its side to the end.
func TestBuiltinPlaysEveryMode(t *testing.T) {
	modes := othello.AllModes()
	if testing.Short() {
		modes = []othello.Mode{othello.Std, othello.Octagon}
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 1, Modes: othello.AllModes()}}})
			a := f.client(t, "ta")
			a.poll()
			status, ans := a.call(map[string]any{"action": "agent_challenge", "target_name": "house", "game_mode": mode.String()})
			require.Equal(t, http.StatusOK, status, "%v", ans)
			id := int64(ans["match_id"].(float64))
			assert.Equal(t, "running", a.match(id).Status, "built-in bots start at once")
			for i := 0; i < 300 && a.step(); i++ {
				f.clock.Advance(100 * time.Millisecond)
				waitIdle(t, f.srv)
			}
			m := a.match(id)
			require.Equal(t, "finished", m.Status)
			assert.Equal(t, "discs", *m.State.FinishReason)
			for _, l := range m.State.Legs {
				assert.Equal(t, "finished", l.Status)
			}
		})
	}
}

// TestBuiltinChallenges: a built-in bot challenges a registered one
// (pending, bot_b = the registered bot, which accepts).
func TestBuiltinChallenges(t *testing.T) {
	f := newFixture(t, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 0, Modes: othello.AllModes()}}})
	_, err := f.srv.Challenge("house", "alpha", othello.Anti)
	require.Error(t, err, "alpha is not connected yet")
	a := f.client(t, "ta")
	a.poll()
	id, err := f.srv.Challenge("house", "alpha", othello.Anti)
	require.NoError(t, err)
	m := a.match(id)
	assert.Equal(t, "pending", m.Status)
	assert.Equal(t, int64(3), m.BotA)
	assert.Equal(t, int64(1), m.BotB)
	a.step()
	assert.Equal(t, "running", a.match(id).Status)
	waitIdle(t, f.srv)
}

// TestAutoMatch: idle online bots with auto-match on get std offers as
// bot_b; an ignored offer takes the bot out for 10 minutes; practice bots
// get none.
func TestAutoMatch(t *testing.T) {
	f := newFixture(t, Config{AutoMatch: true, Bots: []BotConfig{{Name: "house", Builtin: true, Level: 1}}})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	_, _ = b.call(map[string]any{"action": "agent_poll", "environment": map[string]any{"practice": true}})
	a.poll()
	f.srv.Tick()
	p := a.poll()
	require.Len(t, p.Matches, 1)
	m := p.Matches[0]
	assert.Equal(t, "pending", m.Status)
	assert.Equal(t, "std", m.GameMode)
	assert.Equal(t, int64(1), m.BotB, "the offered bot is bot_b")
	assert.Equal(t, int64(3), m.BotA, "the practising beta is not an opponent; the built-in is")
	_, bp := b.call(map[string]any{"action": "agent_poll", "environment": map[string]any{"practice": true}})
	assert.Empty(t, bp["matches"], "no offers to a practising bot")

	// Ignored for 120 s: expired, and no new offer for 10 minutes.
	for i := 0; i < 13; i++ {
		f.clock.Advance(10 * time.Second)
		a.poll()
		f.srv.Tick()
	}
	p = a.poll()
	require.Len(t, p.Matches, 1)
	assert.Equal(t, "expired", p.Matches[0].Status)
	f.clock.Advance(9 * time.Minute)
	a.poll()
	f.srv.Tick()
	p = a.poll()
	require.Len(t, p.Matches, 1)
	assert.Equal(t, "expired", p.Matches[0].Status, "no offer during the pause")
	f.clock.Advance(2 * time.Minute)
	a.poll()
	f.srv.Tick()
	p = a.poll()
	require.NotEmpty(t, p.Matches)
	last := p.Matches[len(p.Matches)-1]
	assert.Equal(t, "pending", last.Status, "a new offer after the pause")
	assert.Equal(t, int64(2), last.ID, "beta, practising and silent, got no offer meanwhile")
	waitIdle(t, f.srv)
}

// TestSearchLevels: built-in bots at search levels play a match to the
// end through the built-in search engine.
func TestSearchLevels(t *testing.T) {
	f := newFixture(t, Config{SearchThreads: 1, Bots: []BotConfig{
		{Name: "deep", Builtin: true, Level: 3, Modes: othello.AllModes()},
	}})
	eng := f.srv.bots[2].engine
	assert.Contains(t, eng.Name(), "depth 3")
	a := f.client(t, "ta")
	a.poll()
	status, ans := a.call(map[string]any{"action": "agent_challenge", "target_name": "deep", "game_mode": "octagon"})
	require.Equal(t, http.StatusOK, status, "%v", ans)
	id := int64(ans["match_id"].(float64))
	for i := 0; i < 300 && a.step(); i++ {
		f.clock.Advance(100 * time.Millisecond)
		waitIdle(t, f.srv)
	}
	m := a.match(id)
	require.Equal(t, "finished", m.Status)
	assert.Equal(t, "discs", *m.State.FinishReason)
	bots := a.poll().Bots
	require.Len(t, bots, 3)
}
