package arena

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/proc"
	"flipbot.dev/flipbot/flipsight"
)

// TestMain lets the test binary act as a JSON-line engine (first legal
// move) when ARENA_TEST_ENGINE is set, so tournaments are tested with real
// processes.
func TestMain(m *testing.M) {
	if os.Getenv("ARENA_TEST_ENGINE") == "1" {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var req struct {
				LegalMoves []int `json:"legal_moves"`
			}
			mv := -1
			if json.Unmarshal(sc.Bytes(), &req) == nil && len(req.LegalMoves) > 0 {
				mv = req.LegalMoves[len(req.LegalMoves)-1]
			}
			fmt.Printf("{\"move\":%d}\n", mv)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestEloInterval(t *testing.T) {
	cases := []struct {
		name      string
		scores    []float64
		pct, elo  float64
		finiteLow bool
	}{
		{"even", []float64{1, 0, 1, 0}, 50, 0, true},
		{"draws", []float64{0.5, 0.5, 0.5}, 50, 0, true},
		{"three quarters", []float64{1, 1, 1, 0}, 75, 190.85, true},
		{"all wins", []float64{1, 1}, 100, math.Inf(1), false},
		{"all losses", []float64{0, 0, 0}, 0, math.Inf(-1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pct, elo, lo, hi := EloInterval(c.scores)
			assert.InDelta(t, c.pct, pct, 1e-9)
			if math.IsInf(c.elo, 0) {
				assert.Equal(t, c.elo, elo)
			} else {
				assert.InDelta(t, c.elo, elo, 0.01)
			}
			assert.LessOrEqual(t, lo, elo)
			assert.GreaterOrEqual(t, hi, elo)
		})
	}
	// All wins: +inf, with a finite lower bound (Wilson: n/(n+z²) = 10/13.84).
	_, _, lo, hi := EloInterval([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	assert.InDelta(t, -400*math.Log10(13.8415/10-1), lo, 0.5)
	assert.True(t, math.IsInf(hi, 1))
	// More games narrow the interval.
	_, _, lo4, hi4 := EloInterval([]float64{1, 0, 1, 0})
	_, _, lo40, hi40 := EloInterval(append(make([]float64, 0, 40), repeat([]float64{1, 0}, 20)...))
	assert.Less(t, hi40-lo40, hi4-lo4)
}

func repeat(xs []float64, n int) []float64 {
	var out []float64
	for i := 0; i < n; i++ {
		out = append(out, xs...)
	}
	return out
}

// TestTournamentBuiltins: in-process players, every match counted once.
func TestTournamentBuiltins(t *testing.T) {
	modes := []othello.Mode{othello.Std, othello.Octagon, othello.Reversi}
	if testing.Short() {
		modes = modes[1:2]
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			calls := 0
			stats, err := RunTournament(context.Background(), TournamentConfig{
				A:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(1), nil }, nil),
				B:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(0), nil }, nil),
				NameA: "greedy", NameB: "random", Mode: mode, Pairs: 4, Concurrency: 2,
				Clock: 5 * time.Second, Seed: 7,
				Progress: func(TournamentStats) { calls++ },
			})
			require.NoError(t, err)
			assert.Equal(t, 4, stats.Played)
			assert.Equal(t, 4, calls)
			assert.Equal(t, 4, stats.Wins+stats.Draws+stats.Losses+stats.Aborted)
			assert.Greater(t, stats.DiscsA+stats.DiscsB, 4*12)
			assert.LessOrEqual(t, stats.EloLow, stats.Elo)
			assert.GreaterOrEqual(t, stats.EloHigh, stats.Elo)
		})
	}
}

// TestTournamentProcesses: two JSON-line engine processes (this test
// binary) through the jsonline adapter.
func TestTournamentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts engine processes; skipped with -short")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	t.Setenv("ARENA_TEST_ENGINE", "1")
	// Engines get an allow-listed environment: pass the switch by name.
	t.Setenv(proc.ExtraEnvVar, "ARENA_TEST_ENGINE")
	factory := func() (engines.Engine, error) {
		return jsonline.New(jsonline.Options{Command: exe})
	}
	stats, err := RunTournament(context.Background(), TournamentConfig{
		A: engines.PerMatch(factory, nil), B: engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(1), nil }, nil),
		NameA: "proc", NameB: "greedy", Mode: othello.Grand, Pairs: 2, Concurrency: 2, Clock: 10 * time.Second,
	})
	require.NoError(t, err)
	assert.Equal(t, 2, stats.Played)
	assert.Equal(t, 0, stats.Aborted)
	assert.Equal(t, 0, stats.Timeouts)
}

// failing is an engine that fails every move.
type failing struct{}

func (failing) Name() string               { return "failing" }
func (failing) Supports(othello.Mode) bool { return true }
func (failing) Close() error               { return nil }
func (failing) Move(context.Context, engines.Request) (engines.Result, error) {
	return engines.Result{}, fmt.Errorf("no answer")
}

// TestTournamentStrict: a strict failing engine loses on time; a lenient
// one plays fallback moves.
func TestTournamentStrict(t *testing.T) {
	for _, strict := range []bool{true, false} {
		stats, err := RunTournament(context.Background(), TournamentConfig{
			A:     engines.PerMatch(func() (engines.Engine, error) { return failing{}, nil }, nil),
			B:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(1), nil }, nil),
			NameA: "failing", NameB: "greedy", Mode: othello.Std, Pairs: 1,
			Clock: 300 * time.Millisecond, StrictA: strict,
		})
		require.NoError(t, err)
		require.Equal(t, 1, stats.Played)
		if strict {
			assert.Equal(t, 1, stats.Timeouts, "strict: lost on time")
			assert.Equal(t, 1, stats.Losses)
		} else {
			assert.Equal(t, 0, stats.Timeouts, "lenient: fallback moves")
		}
	}
}

// asks records each ask of a strict engine (answering the first legal
// move at once): the request, when Move was called and the ask's deadline.
type asks struct {
	mu   sync.Mutex
	list []askRecord
}

type askRecord struct {
	req              engines.Request
	called, deadline time.Time
}

func (a *asks) Name() string               { return "asks" }
func (a *asks) Supports(othello.Mode) bool { return true }
func (a *asks) Close() error               { return nil }
func (a *asks) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(24 * time.Hour)
	}
	a.mu.Lock()
	a.list = append(a.list, askRecord{req: req, called: time.Now(), deadline: dl})
	a.mu.Unlock()
	return engines.Result{Move: fallback(req.Position)}, nil
}

// TestStrictAskLastsAsTheConnectorWaits: a strict (command) engine is
// asked as by the official connector, whose engine the match's two legs
// share: a request may wait while the other leg's is answered, and is then
// written with the clock at the write and the spec's budget_ms
// (min(--max-think-seconds, remaining − 0.75 s)), awaited that long from
// the write (engines/jsonline). The ask must last that long: once it ended
// within budget_ms of a request that had waited — bounded by its Budget
// from the turn's start, and with budget_ms on the wire not capped at the
// connector's 10 s — and the leg was lost on time (issue 38, 60 s clocks).
func TestStrictAskLastsAsTheConnectorWaits(t *testing.T) {
	for _, viaAPI := range []bool{false, true} {
		t.Run(fmt.Sprintf("via API %v", viaAPI), func(t *testing.T) {
			if viaAPI && testing.Short() {
				t.Skip("a real-time match over HTTP; skipped with -short")
			}
			rec := &asks{}
			stats, err := RunTournament(context.Background(), TournamentConfig{
				A:     engines.PerMatch(func() (engines.Engine, error) { return rec, nil }, nil),
				B:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(1), nil }, nil),
				NameA: "asks", NameB: "greedy", Mode: othello.Std, Pairs: 1,
				Clock: time.Minute, StrictA: true, ViaAPI: viaAPI, PollEvery: 10 * time.Millisecond,
			})
			require.NoError(t, err)
			require.Equal(t, 1, stats.Played)
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.NotEmpty(t, rec.list)
			for _, a := range rec.list {
				// The connector writes the request after waiting half of
				// what the clock allows (a clock without At was read when
				// Move was called, as engines/jsonline takes it).
				at := a.req.At
				if at.IsZero() {
					at = a.called
				}
				wait := (a.req.Remaining - engines.SpecMargin) / 2
				written := at.Add(wait)
				remaining, budget := a.req.ClockAt(written)
				if a.req.At.IsZero() {
					remaining, budget = a.req.Remaining-wait, engines.SpecBudget(a.req.Remaining-wait, a.req.Cap)
				}
				if !assert.Equal(t, min(10*time.Second, remaining-engines.SpecMargin), budget,
					"budget_ms is the official connector's: min(10 s, remaining − 0.75 s) at the write (remaining %v)", a.req.Remaining) ||
					!assert.False(t, written.Add(budget).After(a.deadline),
						"the ask lasts budget_ms from the write (remaining %v: ends %v after the call, the answer may come %v after it)",
						a.req.Remaining, a.deadline.Sub(a.called), written.Add(budget).Sub(a.called)) {
					break
				}
			}
		})
	}
}

// TestTournamentViaAPI: both engines play as registered bots through the
// HTTP API (flipsight.Client), challenge and accept included.
func TestTournamentViaAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time match over HTTP (~2-4 s under -race); skipped with -short")
	}
	pairs := 2
	stats, err := RunTournament(context.Background(), TournamentConfig{
		A:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(1), nil }, nil),
		B:     engines.PerMatch(func() (engines.Engine, error) { return NewPlayer(0), nil }, nil),
		NameA: "greedy", NameB: "random", Mode: othello.Anti, Pairs: pairs, Concurrency: 2,
		Clock: 20 * time.Second, ViaAPI: true, PollEvery: 10 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.Equal(t, pairs, stats.Played)
	assert.Equal(t, 0, stats.Aborted)
	assert.Equal(t, 0, stats.Timeouts)
	assert.Equal(t, pairs, stats.Wins+stats.Draws+stats.Losses)
}

// sessionCounter counts the sessions its provider opened and closed, per
// match.
type sessionCounter struct {
	engines.Provider
	mu            sync.Mutex
	opens, closes map[int64]int
	legs          map[int64]int
}

func (c *sessionCounter) Open(ctx context.Context, m engines.MatchInfo) (engines.Session, error) {
	s, err := c.Provider.Open(ctx, m)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens[m.ID]++
	c.legs[m.ID] = m.Legs
	return &countedSession{Session: s, c: c, id: m.ID}, nil
}

type countedSession struct {
	engines.Session
	c  *sessionCounter
	id int64
}

func (s *countedSession) Close() error {
	s.c.mu.Lock()
	s.c.closes[s.id]++
	s.c.mu.Unlock()
	return s.Session.Close()
}

// TestTournamentUsesSessions: each side plays each match with one session,
// opened once and closed once (when the match ends), both legs on it; the
// engines are made per match.
func TestTournamentUsesSessions(t *testing.T) {
	for _, viaAPI := range []bool{false, true} {
		if viaAPI && testing.Short() {
			continue
		}
		t.Run(fmt.Sprintf("via API %v", viaAPI), func(t *testing.T) {
			var made atomic.Int32
			newCounter := func(level int) *sessionCounter {
				return &sessionCounter{Provider: engines.PerMatch(func() (engines.Engine, error) {
					made.Add(1)
					return NewPlayer(level), nil
				}, nil), opens: map[int64]int{}, closes: map[int64]int{}, legs: map[int64]int{}}
			}
			a, b := newCounter(1), newCounter(0)
			var ended []int64
			var mu sync.Mutex
			stats, err := RunTournament(context.Background(), TournamentConfig{
				A: a, B: b, NameA: "greedy", NameB: "random", Mode: othello.Octagon, Pairs: 3, Concurrency: 2,
				Clock: 5 * time.Second, Seed: 3, ViaAPI: viaAPI, PollEvery: 10 * time.Millisecond,
				OnMatch: func(m flipsight.Match) { mu.Lock(); ended = append(ended, m.ID); mu.Unlock() },
			})
			require.NoError(t, err)
			require.Equal(t, 3, stats.Played)
			require.Len(t, ended, 3)
			for _, c := range []*sessionCounter{a, b} {
				c.mu.Lock()
				for _, id := range ended {
					assert.Equal(t, 1, c.opens[id], "match %d: one session", id)
					assert.Equal(t, 1, c.closes[id], "match %d: closed once", id)
					assert.Equal(t, 2, c.legs[id], "match %d: both legs", id)
				}
				assert.Len(t, c.opens, 3, "no session for another match")
				c.mu.Unlock()
			}
			assert.Equal(t, int32(6), made.Load(), "one engine per match and side")
		})
	}
}
