package appliance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
)

// The "done when", on a PC against the local arena: a new user opens
// the page, enters the pairing code and the token, the bot goes online with
// the real player and (without -short) plays a match to its result.
func TestApplianceAgainstArena(t *testing.T) {
	srv, apiURL := startArena(t, arena.Config{
		Bots: []arena.BotConfig{
			{Name: "PiBot", Token: tokA, Modes: othello.AllModes()},
			{Name: "Greedy", Builtin: true, Level: 1, Modes: othello.AllModes()},
		},
		ClockPerLeg: 20 * time.Second,
	}, 50*time.Millisecond)

	gamesDir := t.TempDir()
	e := startEnv(t, func(c *Config, a *app) {
		a.token.checker = FlipSightChecker{APIURL: apiURL}
		a.useGames(t, record.Open(record.Options{Dir: gamesDir}))
		a.runner.player = newBotPlayer(botPlayerConfig{APIURL: apiURL, CPU: "test", Logger: a.log, Records: a.cfg.Games})
		one := settings.Default()
		one.Threads = 1
		require.NoError(t, settings.NewFile(c.Dir).Save(one))
	})
	defer e.stop() // before the arena closes: the bot's stream must end first
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)

	status, body, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokB}}, "", "")
	require.Equal(t, http.StatusUnprocessableEntity, status)
	assert.Contains(t, body, "rejected", "the arena does not know tokB")

	status, _, _ = e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokA}}, "", "")
	require.Equal(t, http.StatusSeeOther, status)
	// The real player loads the trained evaluations first: ≈11 s under
	// -race on the shared 2-core machine, longer than waitFor's 10 s.
	st := e.waitForLong("online", time.Minute, func(s state.Status) bool { return s.Kind == state.KindOnlineIdle && s.Bot.Name == "PiBot" })
	assert.Equal(t, state.TokenStored, st.Token)

	if testing.Short() {
		return
	}
	id, err := srv.Challenge("Greedy", "PiBot", othello.Std)
	require.NoError(t, err)
	st = e.waitForLong("in game with both legs", 30*time.Second, func(s state.Status) bool {
		return s.Kind == state.KindInGame && len(s.Matches[0].Legs) == 2
	})
	_, page := e.get("/", false)
	assert.Contains(t, page, `class="board s8"`)
	st = e.waitForLong("a result", 3*time.Minute, func(s state.Status) bool { return len(s.Results) > 0 })
	assert.Equal(t, id, st.Results[0].MatchID)
	// The bot names the opponent from its polls; it sometimes has only
	// "bot 2" when the match ends (the bot package's concern).
	assert.NotEmpty(t, st.Results[0].Opponent)
	assert.Contains(t, []string{"win", "loss", "draw"}, st.Results[0].Outcome)
	t.Logf("result: %+v", st.Results[0])
	assert.NotContains(t, e.logs.String(), tokA)
	// The arena rates the match (Glicko-2, as FlipSight would), so the
	// device's rating history gains a sample with the match's result: the
	// rating graph fills offline too.
	require.Eventually(t, func() bool {
		h := e.a.ratings.history()
		n := len(h.Samples)
		return n >= 2 && h.Result(n-1) == st.Results[0].Outcome && h.Samples[n-1].Rating != h.Samples[0].Rating
	}, 30*time.Second, 50*time.Millisecond, "the rating history records the rated match: %+v", e.a.ratings.history())

	// Both legs are kept; after a restart (a new process reading the same
	// directory, as after a reboot or gok update) the games page lists
	// them, they are analysed in the background (no match runs) and each
	// replays with its graph and its marked moves.
	ids := st.Results[0].Games
	require.Len(t, ids, 2)
	require.Eventually(t, func() bool { return e.a.cfg.Games.Status().Games == 2 }, 5*time.Second, 20*time.Millisecond)
	e.stop()
	done := make(chan string, 4)
	e2 := startEnv(t, func(c *Config, a *app) { a.useGames(t, record.Open(record.Options{Dir: gamesDir})) },
		withAnalysis(builtinAnalysis, done))
	for range ids {
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatal("the games were not analysed")
		}
	}
	code2, _, list := e2.fetch(t, "/games")
	require.Equal(t, http.StatusOK, code2)
	for _, id := range ids {
		assert.Contains(t, list, "/games/"+id)
		code2, _, page := e2.fetch(t, "/games/"+id)
		require.Equal(t, http.StatusOK, code2)
		g, err := e2.a.cfg.Games.Get(id)
		require.NoError(t, err)
		assert.Equal(t, len(g.Moves), strings.Count(page, `class="mv `), "every move in the list")
		assert.NotContains(t, page, "does not replay")
		assert.Contains(t, page, `id="g-line"`, "the score graph")
		assert.Contains(t, page, `id="analysis-summary"`)
		a, err := e2.a.cfg.Games.Analysis(id)
		require.NoError(t, err)
		marked := 0
		for _, m := range a.Moves {
			if c := record.LossClass(m.Loss); m.Move != othello.Pass && c != record.ClassBest {
				marked++
			}
		}
		assert.Equal(t, marked, strings.Count(page, "<sup>"), "every move that lost discs is marked in the list")
		t.Logf("game %s: %d moves, %d marked", id, len(g.Moves), marked)
	}
}

// startArena runs an arena with cfg behind an httptest server, ticking
// every tick, until the test ends, and returns it and its API URL.
func startArena(t *testing.T, cfg arena.Config, tick time.Duration) (*arena.Server, string) {
	t.Helper()
	srv, err := arena.New(cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Run(ctx, tick)
	t.Cleanup(func() {
		cancel()
		ts.Close()
		srv.Close()
	})
	return srv, ts.URL + arena.APIPath
}
