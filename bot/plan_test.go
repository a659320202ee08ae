package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

// TestPlanMove: the bot's seam into the one planner counts the moves left
// in the position, or in the board's empty cells when the leg made no
// position, and plans with the measured overhead and the cap.
func TestPlanMove(t *testing.T) {
	std := othello.New(othello.Std)
	p, m := planMove(&std, nil, 8, time.Minute, 0, 100*time.Millisecond)
	assert.Equal(t, timeplan.Count(std), m)
	assert.Equal(t, timeplan.Plan(m, timeplan.Clock{Remaining: time.Minute, Overhead: 100 * time.Millisecond}), p)
	board := make([]int, 100)
	board[0], board[1], board[2] = 1, 2, 1
	_, m = planMove(nil, board, 10, time.Minute, 0, 100*time.Millisecond)
	assert.Equal(t, timeplan.CountEmpties(97, 10), m, "97 empty cells of a 10×10 board")
	p, _ = planMove(&std, nil, 8, time.Minute, time.Second, 100*time.Millisecond)
	assert.Equal(t, time.Second, p.Limit, "the cap")
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

func TestMoveOverhead(t *testing.T) {
	arrived := time.Unix(1000, 0)
	j := moveJob{serverNow: 5300, arrived: arrived}
	j.leg.TurnStartedMS = 5000
	done := arrived.Add(1400 * time.Millisecond)
	// 1.4 s from arrival to the answer, 1 s of it waiting for the engine;
	// the 300 ms on the server before the state arrived (a poll's delay)
	// are the clock's, not the per-move overhead.
	second := choice{waited: time.Second, budget: time.Second}
	assert.Equal(t, 400*time.Millisecond, moveOverhead(j, done, second))
	assert.Equal(t, 600*time.Millisecond, moveOverhead(j, done, choice{waited: time.Second, budget: 800 * time.Millisecond}),
		"a wait past the budget is overhead")
	j.serverNow = 5000 + 900 // a state seen 0.9 s late through a poll
	assert.Equal(t, 400*time.Millisecond, moveOverhead(j, done, second), "poll latency is not overhead")
	assert.Equal(t, time.Duration(0), moveOverhead(j, arrived, second), "never negative")
	// The panic mode (no budget): a quick search of 50 ms in 60 ms.
	assert.Equal(t, 10*time.Millisecond, moveOverhead(j, arrived.Add(60*time.Millisecond), choice{quick: 50 * time.Millisecond}),
		"a fallback's quick search is think, not overhead")
}
