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
