package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
