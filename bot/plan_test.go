package bot

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

func TestPlan(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name                string
		remaining, cap, ovh time.Duration
		left                int
		want                time.Duration
	}{
		{"the cap wins with plenty of time", 60 * time.Second, time.Second, 100 * ms, 30, time.Second},
		// spare = 60 s − 0.75 s − 48 × 1.5 × 0.5 s = 23.25 s; 2 × 23.25 s / 48.
		{"twice the even share of the spare time", 60 * time.Second, 0, 500 * ms, 48, 968750 * time.Microsecond},
		// spare = 2 s − 0.75 s − 1.5 × 0.1 s = 1.1 s: the last move may take it all.
		{"the last move takes the spare time", 2 * time.Second, 0, 100 * ms, 1, 1100 * ms},
		{"the spec's formula still bounds it", 2 * time.Second, 300 * ms, 100 * ms, 1, 300 * ms},
		{"panic: the reserve is all there is", 5 * time.Second, time.Second, 100 * ms, 29, 0},
		// spare = 3 s − 0.75 s − 14 × 0.15 s = 150 ms; 2 × 150 ms / 14 is too little.
		{"panic: too little to ask an engine", 3 * time.Second, time.Second, 100 * ms, 14, 0},
		{"a cap below the engine floor is the user's", 60 * time.Second, 30 * ms, 100 * ms, 30, 30 * ms},
		{"no moves left counts as one", 2 * time.Second, 0, 100 * ms, 0, 1100 * ms},
		{"never negative", 100 * ms, time.Second, 100 * ms, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Plan(tt.remaining, tt.cap, tt.ovh, tt.left))
		})
	}
}

// TestPlanKeepsTheClock plays out legs on paper: the engine never answers
// within its budget (every move costs its whole budget plus the overhead),
// with the overheads the soak and the tests measured on a starved machine,
// the meter starting from its first guess. With the plan the clock never
// runs out; with the spec's formula alone (the bot before the plan) it
// does, which is how the soak lost grand legs on time.
func TestPlanKeepsTheClock(t *testing.T) {
	// Every eighth move costs two and a half times the overhead (a GC, a
	// scheduling hiccup, the spikes of the race-detector run).
	cost := func(overhead time.Duration, i int) time.Duration {
		if i%8 == 7 {
			return overhead * 5 / 2
		}
		return overhead
	}
	play := func(clock time.Duration, moves int, overhead time.Duration, budget func(remaining time.Duration, left int) time.Duration) (time.Duration, int) {
		remaining := clock
		for i := range moves {
			remaining -= budget(remaining, moves-i) + cost(overhead, i)
			if remaining <= 0 {
				return remaining, i
			}
		}
		return remaining, moves
	}
	for _, tc := range []struct {
		clock    time.Duration
		moves    int
		overhead time.Duration
		cap      time.Duration
	}{
		{60 * time.Second, 48, 50 * time.Millisecond, time.Second},
		{60 * time.Second, 48, 250 * time.Millisecond, time.Second},
		{60 * time.Second, 48, 500 * time.Millisecond, time.Second},
		{60 * time.Second, 48, time.Second, time.Second},
		{60 * time.Second, 48, 500 * time.Millisecond, 0},
		{60 * time.Second, 48, 20 * time.Millisecond, 0},
		// The race-detector run of the slow-link test: 6 s, ~30 moves,
		// 140 ms a move, against a first guess of 100 ms.
		{6 * time.Second, 30, 140 * time.Millisecond, 0},
		{6 * time.Second, 30, 140 * time.Millisecond, time.Second},
	} {
		t.Run(fmt.Sprintf("%v clock %d moves overhead %v cap %v", tc.clock, tc.moves, tc.overhead, tc.cap), func(t *testing.T) {
			m := NewOverheadMeter()
			i := 0
			left, moved := play(tc.clock, tc.moves, tc.overhead, func(remaining time.Duration, left int) time.Duration {
				b := Plan(remaining, tc.cap, m.Estimate(), left+1)
				m.Observe(cost(tc.overhead, i))
				i++
				return b
			})
			assert.Equal(t, tc.moves, moved, "all moves of the leg made")
			assert.Positive(t, left)
		})
	}
	t.Run("the spec's formula alone runs out", func(t *testing.T) {
		_, moved := play(60*time.Second, 48, 500*time.Millisecond, func(remaining time.Duration, _ int) time.Duration {
			return engines.SpecBudget(remaining, time.Second)
		})
		assert.Less(t, moved, 48)
	})
}

func TestOverheadMeter(t *testing.T) {
	m := NewOverheadMeter()
	assert.Equal(t, initialOverhead, m.Estimate())
	m.Observe(900 * time.Millisecond)
	assert.Equal(t, 500*time.Millisecond, m.Estimate(), "rises half-way at once")
	m.Observe(900 * time.Millisecond)
	assert.Equal(t, 700*time.Millisecond, m.Estimate())
	m.Observe(0)
	assert.Equal(t, 612500*time.Microsecond, m.Estimate(), "falls an eighth of the way")
	for range 100 {
		m.Observe(0)
	}
	assert.Equal(t, minOverhead, m.Estimate(), "never below the floor")
}

func TestMovesLeft(t *testing.T) {
	std := othello.New(othello.Std)
	assert.Equal(t, 30+1, MovesLeft(&std, nil), "60 empties: 30 each, plus one")
	grand := othello.New(othello.Grand)
	require.Positive(t, grand.Empties().Count())
	assert.Equal(t, (grand.Empties().Count()+1)/2+1, MovesLeft(&grand, nil))
	board := make([]int, 64)
	board[0], board[1], board[2] = 1, 2, 1
	assert.Equal(t, 31+1, MovesLeft(nil, board), "61 empty cells: 31 rounded up, plus one")
}

func TestMoveOverhead(t *testing.T) {
	arrived := time.Unix(1000, 0)
	j := moveJob{serverNow: 5300, arrived: arrived}
	j.leg.TurnStartedMS = 5000
	done := arrived.Add(1400 * time.Millisecond)
	// 1.4 s from arrival to the answer, 1 s of it waiting for the engine;
	// the 300 ms on the server before the state arrived (a poll's delay)
	// are the clock's, not the per-move overhead.
	assert.Equal(t, 400*time.Millisecond, moveOverhead(j, done, time.Second, time.Second))
	assert.Equal(t, 600*time.Millisecond, moveOverhead(j, done, time.Second, 800*time.Millisecond),
		"a wait past the budget is overhead")
	j.serverNow = 5000 + 900 // a state seen 0.9 s late through a poll
	assert.Equal(t, 400*time.Millisecond, moveOverhead(j, done, time.Second, time.Second), "poll latency is not overhead")
	assert.Equal(t, time.Duration(0), moveOverhead(j, arrived, time.Second, time.Second), "never negative")
}
