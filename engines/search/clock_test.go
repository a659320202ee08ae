package search

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

func TestPlanMoveStaysInsideTheClock(t *testing.T) {
	positions := []othello.Position{
		randomGame(othello.Std, 52, 1), randomGame(othello.Std, 30, 2), randomGame(othello.Std, 20, 3),
		randomGame(othello.Std, 8, 4), randomGame(othello.Grand, 88, 5), randomGame(othello.Octagon, 20, 6),
	}
	for _, pos := range positions {
		for _, c := range []struct{ remaining, budget time.Duration }{
			{time.Minute, 10 * time.Second},
			{time.Minute, 0},
			{5 * time.Second, 4250 * time.Millisecond},
			{800 * time.Millisecond, 50 * time.Millisecond},
			{100 * time.Millisecond, 0},
			{0, 0},
		} {
			plan := planMove(pos, c.remaining, c.budget)
			n := pos.Empties().Count()
			assert.True(t, plan.trySolve)
			assert.LessOrEqual(t, plan.soft, plan.hard, "%d empties %v", n, c)
			assert.GreaterOrEqual(t, plan.hard, minThink)
			if c.budget > 0 {
				assert.LessOrEqual(t, plan.hard, max(c.budget-returnMargin, minThink), "%d empties %v", n, c)
			}
			if c.remaining > time.Second {
				assert.Less(t, plan.hard, c.remaining*3/4, "one move never takes three quarters of the clock: %d empties %v", n, c)
				p := timeplan.ForRequest(engines.Request{Position: pos, Remaining: c.remaining, Budget: c.budget})
				if p.Limit > minThink+returnMargin {
					assert.Equal(t, p.Limit-returnMargin, plan.hard, "the one plan's budget: %d empties %v", n, c)
					assert.Equal(t, min(p.Target, plan.hard), plan.soft, "the one plan's think: %d empties %v", n, c)
				}
			}
		}
	}
}

func TestPlanMoveSpendsLessEarlyThanInTheSolveWindow(t *testing.T) {
	early := planMove(randomGame(othello.Std, 50, 1), time.Minute, 10*time.Second)
	late := planMove(randomGame(othello.Std, 22, 1), 20*time.Second, 10*time.Second)
	assert.Less(t, early.soft, 5*time.Second)
	assert.Greater(t, late.hard, early.hard)
}

func TestSolveFits(t *testing.T) {
	assert.True(t, solveFits(12, 0, 0, time.Second, exactCost8))
	assert.False(t, solveFits(30, 0, 0, time.Second, exactCost8))
	assert.False(t, solveFits(12, 0, 0, 0, exactCost8))
	// A faster measured rate allows more empties.
	slow := solveFits(22, 1e5, time.Second, 5*time.Second, exactCost8)
	fast := solveFits(22, 1e8, time.Second, 5*time.Second, exactCost8)
	assert.True(t, fast)
	assert.False(t, slow)
	// The selective endgame's first pass fits where the exact solve does not.
	assert.False(t, solveFits(26, 1e6, time.Second, 10*time.Second, exactCost8))
	assert.True(t, solveFits(26, 1e6, time.Second, 10*time.Second, selectiveCost8))
}

func TestSolveCostFollowsTheSelectiveEndgame(t *testing.T) {
	ev, err := eval.Embedded()
	require.NoError(t, err)
	e := New(Options{HashMB: 1, Eval8: ev.Eval8, Eval10: ev.Eval10})
	th := &thread{mpc: e.mpc[othello.Std]}
	pos := randomGame(othello.Std, endRampMin, 1)
	require.NotNil(t, th.mpc.end, "std has a selective endgame")
	assert.Equal(t, selectiveCost8, newRootSearch8(pos).cost(th))
	assert.Equal(t, exactCost8, newRootSearch8(randomGame(othello.Std, endRampMin-1, 1)).cost(th))
	assert.Equal(t, exactCost8, newRootSearch8(pos).cost(&thread{}))
}

func TestStartIterationChoosesTheNearerEnd(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name                string
		soft, hard, elapsed time.Duration
		last, prev          time.Duration
		want                bool
	}{
		// Next iteration 750 ms: ends at 1.25 s, 0.25 s past the soft
		// second, nearer than stopping 0.5 s short (stopping at two
		// fifths of the soft time stopped here).
		{"past two fifths, the next ends nearer", 1000 * ms, 2000 * ms, 500 * ms, 300 * ms, 120 * ms, true},
		// Next 1 s: ends at 1.7 s, 0.7 s past; stopping is 0.3 s short.
		{"stopping is nearer", 1000 * ms, 2000 * ms, 700 * ms, 400 * ms, 160 * ms, false},
		{"the next would pass the hard limit", 1000 * ms, 1200 * ms, 500 * ms, 300 * ms, 120 * ms, false},
		{"past the soft time", 1000 * ms, 2000 * ms, 1100 * ms, 1 * ms, 1 * ms, false},
		{"no limit", 1 << 62, 0, 500 * ms, 300 * ms, 120 * ms, true},
		// Short iterations: their ratio is noise, the next is taken as 3×.
		{"short iterations", 100 * ms, 200 * ms, 10 * ms, 900 * time.Microsecond, 10 * time.Microsecond, true},
		// A ratio of 20 is kept at 6: 6 × 100 ms ends at 0.8 s.
		{"a ratio kept at six", 1000 * ms, 2000 * ms, 200 * ms, 100 * ms, 5 * ms, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{start: time.Now().Add(-tt.elapsed), soft: tt.soft, hard: tt.hard}
			assert.Equal(t, tt.want, j.startIteration(tt.last, tt.prev))
		})
	}
}

func TestNextIteration(t *testing.T) {
	const ms = time.Millisecond
	assert.Equal(t, 750*ms, nextIteration(300*ms, 120*ms))
	assert.Equal(t, 150*ms, nextIteration(100*ms, 90*ms), "at least 1.5×")
	assert.Equal(t, 600*ms, nextIteration(100*ms, 5*ms), "at most 6×")
	assert.Equal(t, 3*time.Microsecond*900, nextIteration(900*time.Microsecond, 10*time.Microsecond), "3× when short")
}
