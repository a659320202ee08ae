package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

func TestLegClocksPlanWithTheClocksFall(t *testing.T) {
	c := newLegClocks()
	req := othello.NewEngineRequest(othello.New(othello.Grand))
	req.MatchID, req.RemainingMS, req.BudgetMS = 7, 60000, 10000
	t0 := time.Unix(1000, 0)
	first, over := c.plan(req, t0)
	assert.Positive(t, first)
	assert.LessOrEqual(t, first, 10*time.Second, "never past budget_ms")
	pos, err := req.Position()
	require.NoError(t, err)
	assert.Equal(t, timeplan.Plan(timeplan.Count(pos), timeplan.Clock{Remaining: time.Minute, Cap: 10 * time.Second, Overhead: over}).Limit, first,
		"the one planner's budget")
	c.answered(req, first, t0.Add(first))
	// Next turn of the same leg: the clock fell by the think plus 900 ms
	// spent outside the engine (a poll's delay).
	req.RemainingMS -= first.Milliseconds() + 900
	second, _ := c.plan(req, t0.Add(first+2*time.Second))
	assert.Less(t, second, first, "the time outside the engine is reserved for the moves left")
	assert.Greater(t, c.over.Estimate(), 400*time.Millisecond)
	// budget_ms is the connector's wait, past which the leg is lost: the
	// plan keeps the reply's margin back from it.
	short := req
	short.MatchID, short.RemainingMS, short.BudgetMS = 70, 60000, 1000
	sb, _ := c.plan(short, t0.Add(first))
	assert.Equal(t, 800*time.Millisecond, sb)
	// The clock nearly out: still a move, at once.
	req.RemainingMS = 300
	b, _ := c.plan(req, t0.Add(time.Minute))
	assert.Equal(t, time.Millisecond, b)
	// Legs not heard of for the window are forgotten.
	c.answered(req, 0, t0.Add(time.Minute))
	other := req
	other.MatchID = 8
	c.answered(other, 0, t0.Add(time.Minute+legWindow+time.Second))
	assert.Len(t, c.legs, 1)
}

// TestLegClocksTheOtherLegsThinkIsNotOverhead: both legs of a match share
// the process; leg 0's clock fell by its own think, the 2 s its request
// waited while leg 1's was answered, and 50 ms of real overhead. Counted
// as overhead, the wait made every later plan reserve it for each move
// left (the old plan: both legs thought next to nothing).
func TestLegClocksTheOtherLegsThinkIsNotOverhead(t *testing.T) {
	c := newLegClocks()
	t0 := time.Unix(1000, 0)
	leg0 := othello.NewEngineRequest(othello.New(othello.Std))
	leg0.MatchID, leg0.RemainingMS, leg0.BudgetMS = 9, 60000, 10000
	leg1 := leg0
	leg1.Leg = 1
	now := t0
	for range 6 {
		_, _ = c.plan(leg0, now)
		now = now.Add(time.Second)
		c.answered(leg0, time.Second, now)
		_, _ = c.plan(leg1, now)
		now = now.Add(2 * time.Second)
		c.answered(leg1, 2*time.Second, now)
		leg0.RemainingMS -= 1000 + 2000 + 50
		leg1.RemainingMS -= 2000 + 50
	}
	assert.Less(t, c.over.Estimate(), 100*time.Millisecond, "the meter learns 50 ms, not the other leg's 2 s")
}

// TestLegClocksShareTheProcess: no answer is planned longer than the
// budget the plan last gave the other leg still playing, so that a leg
// rich in time cannot make the other's request wait past its own plan.
func TestLegClocksShareTheProcess(t *testing.T) {
	c := newLegClocks()
	t0 := time.Unix(1000, 0)
	poor := othello.NewEngineRequest(othello.New(othello.Std))
	poor.MatchID, poor.RemainingMS, poor.BudgetMS = 9, 8000, 7250
	rich := poor
	rich.Leg, rich.RemainingMS, rich.BudgetMS = 1, 60000, 59250
	poorBudget, _ := c.plan(poor, t0)
	c.answered(poor, poorBudget, t0.Add(poorBudget))
	richBudget, _ := c.plan(rich, t0.Add(poorBudget))
	assert.Equal(t, poorBudget, richBudget, "bounded by the poor leg's")
	c.answered(rich, richBudget, t0.Add(poorBudget+richBudget))
	alone, _ := c.plan(rich, t0.Add(poorBudget+richBudget+shareWindow+time.Second))
	assert.Greater(t, alone, poorBudget, "a leg not heard of for the window bounds nothing")
}

// TestLegClocksLearnFromAClockThatDoesNotFall: a harness (moveloss) asks
// position after position of one leg with the same remaining_ms; nothing
// was spent outside the engine, and the meter learns it instead of
// keeping its first guess (the old plan: 43–122 ms thinks at remaining
// 4 s, budget 2 s).
func TestLegClocksLearnFromAClockThatDoesNotFall(t *testing.T) {
	c := newLegClocks()
	t0 := time.Unix(1000, 0)
	req := othello.NewEngineRequest(othello.New(othello.Std))
	req.MatchID, req.RemainingMS, req.BudgetMS = 1, 4000, 2000
	first, _ := c.plan(req, t0)
	now := t0
	var last time.Duration
	for range 20 {
		last, _ = c.plan(req, now)
		now = now.Add(last)
		c.answered(req, last, now)
	}
	assert.Less(t, c.over.Estimate(), 50*time.Millisecond)
	assert.Greater(t, last, first)
}

// TestLegClocksAStaleClock: a connector that stamps remaining_ms before
// its request waits for this process (the arena's server-side players)
// sends leg 0's clock as it was before leg 1's 6 s answer; planned on that
// figure, a think in the solve window outlived the real clock (the first
// 60 s measurement lost both legs of a match on time). The plan takes the
// other leg's answers off.
func TestLegClocksAStaleClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	leg0 := othello.NewEngineRequest(othello.New(othello.Std))
	leg0.MatchID, leg0.RemainingMS, leg0.BudgetMS = 3, 12000, 10000
	leg1 := leg0
	leg1.Leg = 1
	alone := newLegClocks()
	_, _ = alone.plan(leg0, t0)
	alone.answered(leg0, time.Second, t0.Add(time.Second))
	b, _ := alone.plan(leg0, t0.Add(2*time.Second))

	shared := newLegClocks()
	_, _ = shared.plan(leg0, t0)
	shared.answered(leg0, time.Second, t0.Add(time.Second))
	_, _ = shared.plan(leg1, t0.Add(time.Second))
	shared.answered(leg1, 6*time.Second, t0.Add(7*time.Second))
	stale, _ := shared.plan(leg0, t0.Add(7*time.Second))
	pos, err := leg0.Position()
	require.NoError(t, err)
	want := timeplan.Plan(timeplan.Count(pos), timeplan.Clock{Remaining: 6 * time.Second, Cap: 10 * time.Second, Overhead: shared.over.Estimate()}).Limit
	assert.Equal(t, min(want, shared.legs[[2]int64{3, 1}].planned), stale, "planned on 12 s less the 6 s answer of the other leg")
	assert.Less(t, stale, b)
}

// TestLegClocksLeaveTheWaitingLegItsClock: leg 0 answered 5 s ago with 8 s
// left after its think; it may have been waiting since (in the arena a
// leg waited through two long answers of the other and lost on time).
// Leg 1's answer
// leaves it half of that: at most (8 s − 5 s) / 2.
func TestLegClocksLeaveTheWaitingLegItsClock(t *testing.T) {
	c := newLegClocks()
	t0 := time.Unix(1000, 0)
	// Leg 0 near its solve, so that its own plan is large.
	late := othello.New(othello.Std)
	for late.Empties().Count() > 20 && !late.GameOver() {
		mv := othello.Pass
		if legal := late.LegalMoves(); len(legal) > 0 {
			mv = legal[0]
		}
		var err error
		late, err = late.Play(mv)
		require.NoError(t, err)
	}
	leg0 := othello.NewEngineRequest(late)
	leg0.MatchID, leg0.RemainingMS, leg0.BudgetMS = 4, 9000, 8250
	leg1 := othello.NewEngineRequest(othello.New(othello.Std))
	leg1.MatchID, leg1.Leg, leg1.RemainingMS, leg1.BudgetMS = 4, 1, 60000, 10000
	_, _ = c.plan(leg0, t0)
	c.answered(leg0, time.Second, t0.Add(time.Second))
	b, _ := c.plan(leg1, t0.Add(6*time.Second))
	require.Greater(t, c.legs[[2]int64{4, 0}].planned, time.Second)
	assert.Equal(t, 1500*time.Millisecond, b)
	// Once leg 0's clock would have run out, it has ended (or is not
	// waiting): its own plan alone bounds leg 1.
	b, _ = c.plan(leg1, t0.Add(10*time.Second))
	assert.Greater(t, b, 1500*time.Millisecond)
}

// TestLegClocksAnEndedMatchBoundsNothing: flipbot keeps an engine process
// per leg and gives it the next match's leg as soon as one ends. The ended
// leg, heard of a second ago with 3 s on its clock, once bounded the new
// leg's first moves to half of what it had left (a fifth of a second where
// the plan gives seconds): only the same match's other leg shares a process.
func TestLegClocksAnEndedMatchBoundsNothing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ended := othello.NewEngineRequest(othello.New(othello.Std))
	ended.MatchID, ended.RemainingMS, ended.BudgetMS = 5, 3000, 2250
	next := othello.NewEngineRequest(othello.New(othello.Std))
	next.MatchID, next.RemainingMS, next.BudgetMS = 6, 60000, 10000

	alone := newLegClocks()
	want, _ := alone.plan(next, t0)

	c := newLegClocks()
	_, _ = c.plan(ended, t0)
	c.answered(ended, 2*time.Second, t0.Add(2*time.Second))
	got, _ := c.plan(next, t0.Add(3*time.Second))
	assert.Equal(t, want, got, "the ended match's leg bounds nothing")

	// The same match's other leg still does.
	other := next
	other.Leg = 1
	c.answered(next, got, t0.Add(3*time.Second+got))
	b, _ := c.plan(other, t0.Add(3*time.Second+got))
	assert.LessOrEqual(t, b, got)
}
