package adapt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

func TestForcedAndCheck(t *testing.T) {
	start := othello.New(othello.Std)
	_, ok, err := Forced(start)
	require.NoError(t, err)
	assert.False(t, ok, "four legal moves: the engine chooses")

	pass := othello.Position{Mode: othello.Std, Turn: othello.White, Black: othello.Bit(0), White: othello.Bit(1)}
	m, ok, err := Forced(pass)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, othello.Pass, m)
	require.NoError(t, Check(pass, othello.Pass))

	one := pass
	one.Turn = othello.Black
	m, ok, err = Forced(one)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 2, m, "c1 is black's only move")

	over := othello.Position{Mode: othello.Std, Turn: othello.Black, Black: othello.Bit(0)}
	_, _, err = Forced(over)
	require.ErrorIs(t, err, ErrGameOver)

	require.NoError(t, Check(start, start.LegalMoves()[0]))
	require.Error(t, Check(start, othello.Pass))
	require.Error(t, Check(start, 0))
	require.Error(t, Check(start, 27), "occupied")
}

func TestThinkTime(t *testing.T) {
	pos := othello.New(othello.Std)
	req := engines.Request{Position: pos, Remaining: 60 * time.Second, Budget: 10 * time.Second}
	early := ThinkTime(req, 200*time.Millisecond)
	assert.Greater(t, early, time.Second)
	assert.LessOrEqual(t, early, 10*time.Second-200*time.Millisecond)

	req.Budget = time.Second
	assert.Equal(t, 800*time.Millisecond, ThinkTime(req, 200*time.Millisecond), "capped by the budget less the margin")

	req.Budget, req.Remaining = 60*time.Millisecond, 60*time.Millisecond
	got := ThinkTime(req, 200*time.Millisecond)
	assert.Positive(t, got)
	assert.LessOrEqual(t, got, 60*time.Millisecond)

	// Less time left: less time to think.
	req = engines.Request{Position: pos, Remaining: 20 * time.Second, Budget: 10 * time.Second}
	assert.Less(t, ThinkTime(req, 0), early)
}

func TestBudget(t *testing.T) {
	assert.Equal(t, DefaultBudget, Budget(engines.Request{}))
	assert.Equal(t, time.Second, Budget(engines.Request{Budget: time.Second}))
	assert.Zero(t, Budget(engines.Request{Remaining: time.Second}))
	assert.Zero(t, Budget(engines.Request{Remaining: 500 * time.Millisecond, Budget: -250 * time.Millisecond}))
}

// TestThinkTimeKeepsShortClocksOutOfFallback plays out the mover's half of
// a game on a simulated clock: every move takes its think time and a tenth
// more plus 20 ms (an engine that stops late), plus the planner's default
// overhead (the network), and the clock must never fall under the bot's 750 ms margin,
// at any clock from 10 s to 300 s, with or without a cap.
func TestThinkTimeKeepsShortClocksOutOfFallback(t *testing.T) {
	const botMargin = 750 * time.Millisecond
	for _, clock := range []time.Duration{10 * time.Second, 20 * time.Second, 60 * time.Second, 300 * time.Second} {
		for _, cap := range []time.Duration{0, 10 * time.Second} {
			remaining := clock
			minLeft := clock
			for empties := 60; empties >= 2; empties -= 2 {
				budget := remaining - botMargin
				if cap > 0 {
					budget = min(budget, cap)
				}
				require.Positive(t, budget, "clock %v cap %v: no budget left at %d empties", clock, cap, empties)
				req := engines.Request{Position: withEmpties(t, empties), Remaining: remaining, Budget: budget}
				think := ThinkTime(req, 200*time.Millisecond)
				used := min(think+think/10+20*time.Millisecond, budget) + timeplan.DefaultOverhead
				remaining -= used
				minLeft = min(minLeft, remaining)
			}
			assert.Greater(t, minLeft, botMargin, "clock %v cap %v", clock, cap)
		}
	}
}

// withEmpties returns a std position (not necessarily reachable) with the
// given number of empty squares.
func withEmpties(t *testing.T, empties int) othello.Position {
	t.Helper()
	pos := othello.New(othello.Std)
	var filled othello.Bits
	for sq := 0; sq < 64 && 64-filled.Count() > empties; sq++ {
		filled = filled.Or(othello.Bit(sq))
	}
	pos.Black = filled
	pos.White = othello.Bits{}
	return pos
}

func TestReadyBy(t *testing.T) {
	start := time.Now()
	req := engines.Request{Position: othello.New(othello.Std), Remaining: time.Minute, Budget: 4 * time.Second}
	assert.Equal(t, start.Add(4*time.Second-ReadyMargin), ReadyBy(start, req), "ReadyMargin before the budget")
	req.Budget = 300 * time.Millisecond
	assert.Equal(t, start.Add(150*time.Millisecond), ReadyBy(start, req), "half a budget shorter than the margin")
	req.Budget = -time.Second
	assert.Equal(t, start, ReadyBy(start, req), "no budget, no wait")
}

func TestAfter(t *testing.T) {
	req := engines.Request{Position: othello.New(othello.Std), Remaining: time.Minute, Budget: 4 * time.Second}
	got := After(req, 1500*time.Millisecond)
	assert.Equal(t, 58500*time.Millisecond, got.Remaining)
	assert.Equal(t, 2500*time.Millisecond, Budget(got))
	assert.Less(t, ThinkTime(got, 200*time.Millisecond), ThinkTime(req, 200*time.Millisecond))
	assert.Equal(t, req, After(req, 0))

	assert.Zero(t, Budget(After(req, 5*time.Second)), "nothing left")
	assert.Positive(t, After(req, 2*time.Minute).Remaining)

	offAPI := engines.Request{Position: othello.New(othello.Std)}
	assert.Equal(t, DefaultBudget-time.Second, Budget(After(offAPI, time.Second)), "a request without a budget waits DefaultBudget")
	assert.Zero(t, After(offAPI, time.Second).Remaining, "an unknown clock stays unknown")
}
