package appliance

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// withAnalysis analyses the games in the background with engine (quickly:
// 3 plies, exact from 8 empties), starting at once, and sends the ids
// analysed to done.
func withAnalysis(engine AnalysisEngine, done chan<- string) envOption {
	return func(c *Config, a *app) {
		c.Analysis = engine
		c.AnalysisOptions = analysis.Options{Depth: 3, ExactEmpties: 8}
		a.analysis.after, a.analysis.recheck = 0, 50*time.Millisecond
		a.analysis.onAnalysed = func(id string) { done <- id }
	}
}

func builtinAnalysis(settings.Settings) analysis.Searcher {
	return search.New(search.Options{Threads: 1, HashMB: 8})
}

// TestBackgroundAnalysis: with no match running, every kept game is
// analysed, newest first, kept beside its game and shown on its replay.
func TestBackgroundAnalysis(t *testing.T) {
	old := sampleGame(t, othello.Std, 1, 40, "Edax")
	mid := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	newest := sampleGame(t, othello.Anti, 3, 42, "Zebra")
	done := make(chan string, 8)
	e := startEnv(t, withGames(t, mid, newest, old), withAnalysis(builtinAnalysis, done))
	var order []string
	for range 3 {
		select {
		case id := <-done:
			order = append(order, id)
		case <-time.After(60 * time.Second):
			t.Fatalf("analysed only %v", order)
		}
	}
	assert.Equal(t, []string{newest.ID, mid.ID, old.ID}, order, "newest first")
	for _, g := range []record.Game{old, mid, newest} {
		a, err := e.a.cfg.Games.Analysis(g.ID)
		require.NoError(t, err)
		assert.Len(t, a.Moves, len(g.Moves))
	}
	code, _, body := e.fetch(t, "/games/"+mid.ID)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="analysis-summary"`)
	assert.Contains(t, e.logs.String(), "game analysed")
	select {
	case id := <-done:
		t.Fatalf("%s analysed twice", id)
	case <-time.After(200 * time.Millisecond):
	}
}

// gatedEngine blocks every search until its context ends while blocking
// is set; otherwise it answers at once with the first legal move.
type gatedEngine struct {
	mu       sync.Mutex
	blocking bool
	started  chan struct{} // a search started
	stopped  chan struct{} // a blocked search saw its context end
}

func (g *gatedEngine) Search(ctx context.Context, pos othello.Position, lim search.Limits) (engines.Result, error) {
	g.mu.Lock()
	blocking := g.blocking
	g.mu.Unlock()
	select {
	case g.started <- struct{}{}:
	default:
	}
	if blocking {
		<-ctx.Done()
		g.stopped <- struct{}{}
	}
	return engines.Result{Move: pos.LegalMoves()[0], Depth: 1, Exact: lim.Exact}, nil
}

func (g *gatedEngine) setBlocking(b bool) {
	g.mu.Lock()
	g.blocking = b
	g.mu.Unlock()
}

// TestBackgroundAnalysisStopsWhenAMatchStarts: the analysis under way
// stops as soon as the bot reports a match, nothing is analysed while the
// match runs, and the game is analysed once the match is over.
func TestBackgroundAnalysisStopsWhenAMatchStarts(t *testing.T) {
	g := sampleGame(t, othello.Std, 1, 40, "Edax")
	eng := &gatedEngine{blocking: true, started: make(chan struct{}, 1), stopped: make(chan struct{}, 1)}
	done := make(chan string, 4)
	e := provisioned(t, withGames(t, g), withAnalysis(func(settings.Settings) analysis.Searcher { return eng }, done))
	select {
	case <-eng.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no analysis started")
	}
	match := bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot"}, Matches: []bot.MatchStatus{testMatch()}}
	at := time.Now()
	e.player.push(match)
	select {
	case <-eng.stopped:
		assert.Less(t, time.Since(at), time.Second, "stopped at once")
	case <-time.After(5 * time.Second):
		t.Fatal("the analysis went on during the match")
	}
	eng.setBlocking(false)
	select {
	case <-eng.started:
		t.Fatal("a search started during the match")
	case <-done:
		t.Fatal("a game was analysed during the match")
	case <-time.After(300 * time.Millisecond):
	}
	_, err := e.a.cfg.Games.Analysis(g.ID)
	require.ErrorIs(t, err, record.ErrNoAnalysis, "nothing half done is kept")
	assert.Contains(t, e.logs.String(), "game analysis stopped: a match started")

	e.player.push(bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot"}})
	select {
	case id := <-done:
		assert.Equal(t, g.ID, id)
	case <-time.After(10 * time.Second):
		t.Fatal("not analysed after the match")
	}
	_, err = e.a.cfg.Games.Analysis(g.ID)
	require.NoError(t, err)
}

// TestMatchGate: set wakes the waiters only on a change.
func TestMatchGate(t *testing.T) {
	g := newMatchGate()
	busy, changed := g.state()
	assert.False(t, busy)
	g.set(false)
	select {
	case <-changed:
		t.Fatal("woken without a change")
	default:
	}
	g.set(true)
	<-changed
	busy, _ = g.state()
	assert.True(t, busy)
}

// TestAnalysisOfAFailingGameIsNotRetried: a game whose analysis fails is
// logged and left alone; the others are analysed.
func TestAnalysisOfAFailingGameIsNotRetried(t *testing.T) {
	good := sampleGame(t, othello.Std, 1, 40, "Edax")
	bad := sampleGame(t, othello.Std, 2, 41, "Zebra")
	done := make(chan string, 4)
	calls := map[string]int{}
	var mu sync.Mutex
	eng := func(settings.Settings) analysis.Searcher {
		return failingFor{search.New(search.Options{Threads: 1, HashMB: 8}), bad, &mu, calls}
	}
	e := startEnv(t, withGames(t, good, bad), withAnalysis(eng, done))
	select {
	case id := <-done:
		assert.Equal(t, good.ID, id)
	case <-time.After(30 * time.Second):
		t.Fatal("the good game was not analysed")
	}
	time.Sleep(300 * time.Millisecond)
	assert.True(t, strings.Contains(e.logs.String(), "game not analysed"))
	mu.Lock()
	assert.Equal(t, 1, calls["bad"], "a failed game is not tried again")
	mu.Unlock()
}

// failingFor fails every search of bad's start position.
type failingFor struct {
	*search.Engine
	bad   record.Game
	mu    *sync.Mutex
	calls map[string]int
}

func (f failingFor) Search(ctx context.Context, pos othello.Position, lim search.Limits) (engines.Result, error) {
	positions, _ := f.bad.Replay()
	if pos == positions[len(positions)-1] || pos == positions[len(positions)-2] {
		f.mu.Lock()
		f.calls["bad"]++
		f.mu.Unlock()
		return engines.Result{}, context.DeadlineExceeded
	}
	return f.Engine.Search(ctx, pos, lim)
}
