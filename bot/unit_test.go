package bot

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

func TestRemaining(t *testing.T) {
	tests := []struct {
		name                string
		clockMS             float64
		serverNow, turnFrom int64
		since               time.Duration
		want                time.Duration
	}{
		{"spec example: 55.8 s, turn started 4.2 s ago", 55800, 1800000000000, 1799999995800, 0, 51600 * time.Millisecond},
		{"less the time since the answer arrived", 60000, 1000, 1000, 300 * time.Millisecond, 59700 * time.Millisecond},
		{"fractional clock", 1500.5, 0, 0, 0, 1500500 * time.Microsecond},
		{"turn start after now counts nothing", 60000, 1000, 2000, 0, 60 * time.Second},
		{"overdrawn is negative", 1000, 5000, 0, 0, -4 * time.Second},
		// Timestamps the checks allow, whose difference in nanoseconds
		// overflows: no time left, not an hour.
		{"huge elapsed time does not overflow", 60000, 18446740473711, 1, 0, -24 * time.Hour},
		{"huge clock is clamped", 1e15, 0, 0, 0, 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Remaining(tt.clockMS, tt.serverNow, tt.turnFrom, tt.since))
		})
	}
}

func TestQuickMove(t *testing.T) {
	// std start: every move is symmetric; the corner rule shows on a board
	// where a1 is legal.
	pos := othello.New(othello.Std)
	legal := pos.LegalMoves()
	mv, ok := quickMove(&pos, legal, nil)
	require.True(t, ok)
	assert.Contains(t, legal, mv)

	// Without a position: the first legal move not skipped.
	mv, ok = quickMove(nil, []int{19, 26, 37}, map[int]bool{19: true})
	require.True(t, ok)
	assert.Equal(t, 26, mv)
	_, ok = quickMove(nil, []int{19}, map[int]bool{19: true})
	assert.False(t, ok)

	// A corner is taken when legal (std), avoided in anti.
	board := make([]int, 64)
	board[9], board[18], board[27] = 2, 2, 1 // b2, c3 white; d4 black → a1 legal for black
	board[20], board[21] = 2, 1              // e3 white, f3 black → d3 legal too
	p, err := othello.FromBoard(othello.Std, board, othello.Black, othello.Placed{Black: 2, White: 3}, nil)
	require.NoError(t, err)
	legal = p.LegalMoves()
	require.Contains(t, legal, 0)
	mv, _ = quickMove(&p, legal, nil)
	assert.Equal(t, 0, mv)
	pa, err := othello.FromBoard(othello.Anti, board, othello.Black, othello.Placed{Black: 2, White: 3}, nil)
	require.NoError(t, err)
	mv, _ = quickMove(&pa, pa.LegalMoves(), nil)
	assert.NotEqual(t, 0, mv)
}

type countingEngine struct {
	fakeEngine
	id int
}

func TestEngineSetScopes(t *testing.T) {
	for _, tt := range []struct {
		scope     Scope
		instances int // for 2 matches × 2 legs
	}{{Shared, 1}, {PerMatch, 2}, {PerLeg, 4}} {
		var made []*countingEngine
		var n atomic.Int32
		f := EngineFactory{Scope: tt.scope, New: func() (engines.Engine, error) {
			e := &countingEngine{id: int(n.Add(1))}
			made = append(made, e)
			return e, nil
		}}
		s := newEngineSet(f, testLogger(t), 4)
		for _, m := range []int64{1, -2} {
			for leg := 0; leg < 2; leg++ {
				e1, err := s.get(legKey{m, leg})
				require.NoError(t, err)
				e2, err := s.get(legKey{m, leg})
				require.NoError(t, err)
				assert.Same(t, e1, e2)
			}
		}
		assert.Len(t, made, tt.instances)
		s.releaseMatch(1)
		s.closeAll()
		require.Eventually(t, func() bool {
			for _, e := range made {
				if e.closed.Load() != 1 {
					return false
				}
			}
			return true
		}, time.Second, 5*time.Millisecond, "every instance closed exactly once (scope %d)", tt.scope)
	}
}

// startingEngine counts its Start calls.
type startingEngine struct {
	countingEngine
	starts atomic.Int32
}

func (e *startingEngine) Start() error { e.starts.Add(1); return nil }

func TestEngineSetStartsAheadAndKeepsWarm(t *testing.T) {
	var made []*startingEngine
	f := EngineFactory{Scope: PerLeg, New: func() (engines.Engine, error) {
		e := &startingEngine{}
		made = append(made, e)
		return e, nil
	}}
	s := newEngineSet(f, testLogger(t), 2)
	s.prepare(MatchInfo{ID: 7, Mode: othello.Std, Legs: 2})
	require.Len(t, made, 2, "both legs' engines are made when the match is accepted")
	require.Eventually(t, func() bool { return made[0].starts.Load() == 1 && made[1].starts.Load() == 1 },
		5*time.Second, 5*time.Millisecond, "and started")
	s.releaseMatch(7)
	for _, e := range made {
		assert.Zero(t, e.closed.Load(), "kept warm for the next match")
	}
	e, err := s.get(legKey{8, 0})
	require.NoError(t, err)
	assert.Len(t, made, 2, "the next match takes a warm engine")
	assert.Contains(t, []engines.Engine{made[0], made[1]}, e)
	s.closeAll()
	for _, e := range made {
		assert.Equal(t, int32(1), e.closed.Load(), "closed at the end, warm or not")
	}
}

func TestEngineSetPrewarmsTheFirstMatchsEngines(t *testing.T) {
	var mu sync.Mutex
	var made []*startingEngine
	f := EngineFactory{Scope: PerLeg, New: func() (engines.Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		e := &startingEngine{}
		made = append(made, e)
		return e, nil
	}}
	s := newEngineSet(f, testLogger(t), 4)
	s.prewarm()
	require.Len(t, made, 2, "two legs' engines made before any match")
	require.Eventually(t, func() bool { return made[0].starts.Load() == 1 && made[1].starts.Load() == 1 },
		5*time.Second, 5*time.Millisecond, "and started")
	s.prepare(MatchInfo{ID: 9, Mode: othello.Std, Legs: 2})
	assert.Len(t, made, 2, "the first match takes them: nothing new to start")
	s.closeAll()
	for _, e := range made {
		assert.Equal(t, int32(1), e.closed.Load())
	}
	for _, sc := range []Scope{Shared, PerMatch} {
		n := 0
		s := newEngineSet(EngineFactory{Scope: sc, New: func() (engines.Engine, error) { n++; return &startingEngine{}, nil }}, testLogger(t), 4)
		s.prewarm()
		assert.Zero(t, n, "scope %d: nothing made ahead", sc)
	}
}

func TestEngineSetReplacesADiscardedEngineOffTheMove(t *testing.T) {
	var (
		mu   sync.Mutex
		made []*startingEngine
	)
	f := EngineFactory{Scope: PerLeg, New: func() (engines.Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		e := &startingEngine{}
		made = append(made, e)
		return e, nil
	}}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(made) }
	s := newEngineSet(f, testLogger(t), 0)
	key := legKey{3, 1}
	old, err := s.get(key)
	require.NoError(t, err)
	s.discard(key, old, othello.Grand)
	require.Equal(t, 2, count(), "the replacement is made at once")
	require.Eventually(t, func() bool { return made[1].starts.Load() == 1 && made[0].closed.Load() == 1 },
		5*time.Second, 5*time.Millisecond, "started (and the old one closed) in the background, before the next move")
	e, err := s.get(key)
	require.NoError(t, err)
	assert.Same(t, made[1], e, "the next move takes the started replacement")

	s.releaseMatch(3)
	s.discard(key, e, othello.Grand)
	assert.Equal(t, 2, count(), "no replacement for a leg whose match was released")
	s.closeAll()
	assert.Equal(t, int32(1), made[1].closed.Load(), "closed once, by the release")

	// A warm engine discarded late is taken out of the warm list and closed.
	s = newEngineSet(f, testLogger(t), 2)
	key = legKey{4, 0}
	w, err := s.get(key)
	require.NoError(t, err)
	s.releaseMatch(4)
	s.discard(key, w, othello.Std)
	s.closeAll()
	assert.Equal(t, int32(1), made[2].closed.Load(), "closed once, not kept warm")
	assert.Equal(t, 3, count())
}

func TestStatusCloneIsDeep(t *testing.T) {
	s := Status{Matches: []MatchStatus{{Legs: []LegStatus{{Board: []int{1, 2}}}}}, Results: []Result{{MatchID: 1}}}
	c := s.clone()
	c.Matches[0].Legs[0].Board[0] = 9
	c.Results[0].MatchID = 9
	assert.Equal(t, 1, s.Matches[0].Legs[0].Board[0])
	assert.Equal(t, int64(1), s.Results[0].MatchID)
}

func TestNewValidates(t *testing.T) {
	_, err := New(Options{})
	assert.Error(t, err)
}

func TestHumanNewRoundStartsOver(t *testing.T) {
	r1, r2, at := int64(1), int64(2), "2026-12-01 10:00:00"
	k1 := roundKey(flipsight.Match{RoundNo: &r1, RoomCreatedAt: &at})
	assert.NotEqual(t, k1, roundKey(flipsight.Match{RoundNo: &r2, RoomCreatedAt: &at}))
	assert.Equal(t, "", roundKey(flipsight.Match{ID: 3}))

	tok, _ := flipsight.NewToken("fsbm_x")
	c, err := flipsight.NewClient(flipsight.Config{APIURL: "http://127.0.0.1:1/api", Token: tok})
	require.NoError(t, err)
	eng := &fakeEngine{behave: "slow", delay: time.Minute}
	b, err := New(Options{Client: c, Engine: factoryOf(eng, Shared), Logger: testLogger(t)})
	require.NoError(t, err)
	b.me = 2
	pos := othello.New(othello.Std)
	human := func(round *int64) flipsight.Match {
		return flipsight.Match{ID: -5, Kind: flipsight.KindHuman, BotA: 0, BotB: 2, Status: flipsight.MatchRunning,
			GameMode: "std", RoundNo: round, RoomCreatedAt: &at,
			State: &flipsight.MatchState{GameMode: "std", BoardSize: 8, BlockedSquares: []int{}, Status: flipsight.StateActive,
				Legs: []flipsight.Leg{{Board: pos.Board(), Turn: 1, BlackParticipant: 1, ClocksMS: []float64{60000, 60000},
					Revision: 0, Status: flipsight.LegActive, LegalMoves: pos.LegalMoves(), Placed: flipsight.Placed{Black: 2, White: 2}}}}}
	}
	now := time.Now()
	b.observe(human(&r1), now.UnixMilli(), now)
	m := b.matches[-5]
	require.NotNil(t, m)
	first := m.legs[0].task
	require.NotNil(t, first, "a move task for round 1, revision 0")
	b.observe(human(&r2), now.UnixMilli(), now)
	second := m.legs[0].task
	require.NotNil(t, second, "a new move task for round 2, revision 0 again")
	assert.NotSame(t, first, second)
	assert.Error(t, first.ctx.Err(), "the old round's search is dropped")
	second.cancel()
	b.tasks.Wait()
}

// matchEngine is an engine made by NewMatch: it knows its match.
type matchEngine struct {
	startingEngine
	info MatchInfo
}

func TestEngineSetNewMatch(t *testing.T) {
	var (
		mu   sync.Mutex
		made []*matchEngine
		// open counts, per match, the engines made and not yet closed
		// when the next one is made: a replacement comes before the close.
		open = map[int64]int{}
	)
	f := EngineFactory{Scope: PerLeg, NewMatch: func(m MatchInfo) (engines.Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		e := &matchEngine{info: m}
		n := 0
		for _, o := range made {
			if o.info.ID == m.ID && o.closed.Load() == 0 {
				n++
			}
		}
		open[m.ID] = max(open[m.ID], n)
		made = append(made, e)
		return e, nil
	}}
	s := newEngineSet(f, testLogger(t), 4)
	s.prewarm()
	assert.Empty(t, made, "nothing made ahead of a match")
	info := MatchInfo{ID: 7, Mode: othello.Std, Human: true, Legs: 1}
	s.prepare(info)
	require.Len(t, made, 1, "the match's engine is made when the match is accepted")
	assert.Equal(t, info, made[0].info, "knowing its match")
	require.Eventually(t, func() bool { return made[0].starts.Load() == 1 }, 5*time.Second, 5*time.Millisecond, "and started")
	e, err := s.get(legKey{7, 0})
	require.NoError(t, err)
	assert.Same(t, made[0], e)

	s.discard(legKey{7, 0}, e, othello.Std)
	mu.Lock()
	require.Len(t, made, 2, "the replacement is made at once")
	assert.Equal(t, info, made[1].info, "for the same match")
	assert.Equal(t, 1, open[7], "before the failed engine is closed")
	mu.Unlock()
	require.Eventually(t, func() bool { return made[1].starts.Load() == 1 && made[0].closed.Load() == 1 },
		5*time.Second, 5*time.Millisecond, "started, and the failed one closed")
	n, err := s.get(legKey{7, 0})
	require.NoError(t, err)
	assert.Same(t, made[1], n)
	s.discard(legKey{7, 0}, e, othello.Std)
	assert.Len(t, made, 2, "a stale discard replaces nothing")

	s.prepare(MatchInfo{ID: 8, Mode: othello.Grand, Legs: 2})
	require.Len(t, made, 3, "one engine for both legs")
	assert.Equal(t, MatchInfo{ID: 8, Mode: othello.Grand, Legs: 2}, made[2].info)
	s.releaseMatch(7)
	require.Eventually(t, func() bool { return made[1].closed.Load() == 1 }, 5*time.Second, 5*time.Millisecond,
		"closed when its match ends: not kept warm")
	s.closeAll()
	for _, e := range made {
		assert.Equal(t, int32(1), e.closed.Load(), "every match engine closed exactly once")
	}
}
