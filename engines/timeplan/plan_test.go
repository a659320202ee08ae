package timeplan

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

const ms = time.Millisecond

// withEmpties returns a position of mode (not necessarily reachable) with
// the given number of empty playable squares, black to move.
func withEmpties(t *testing.T, mode othello.Mode, empties int) othello.Position {
	t.Helper()
	pos := othello.New(mode)
	free := pos.Empties().Or(pos.Black).Or(pos.White)
	var black othello.Bits
	for sq := 0; sq < pos.Size()*pos.Size() && free.Count()-black.Count() > empties; sq++ {
		if free.Has(sq) {
			black = black.Or(othello.Bit(sq))
		}
	}
	pos.Black, pos.White = black, othello.Bits{}
	require.Equal(t, empties, pos.Empties().Count())
	return pos
}

func TestCount(t *testing.T) {
	tests := []struct {
		name    string
		mode    othello.Mode
		empties int
		placed  int // discs the mover placed (reversi)
		want    Moves
	}{
		{"std start: 30 each plus one; 20 before the solve, plus the solve", othello.Std, 60, 0, Moves{Own: 31, Search: 21}},
		{"std at the solve", othello.Std, 20, 0, Moves{Own: 11, Search: 1}},
		{"std in the solve window", othello.Std, 12, 0, Moves{Own: 7, Search: 1}},
		{"odd empties round up", othello.Std, 21, 0, Moves{Own: 12, Search: 2}},
		{"anti as std", othello.Anti, 60, 0, Moves{Own: 31, Search: 21}},
		{"grand: 96 empties", othello.Grand, 96, 0, Moves{Own: 49, Search: 40}},
		{"grand solves at 18", othello.Grand, 18, 0, Moves{Own: 10, Search: 1}},
		{"grand, two empties before the solve", othello.Grand, 20, 0, Moves{Own: 11, Search: 2}},
		{"octagon: 88 playable, 84 empty at the start", othello.Octagon, 84, 0, Moves{Own: 43, Search: 34}},
		{"reversi, early: the cap is far", othello.Reversi, 60, 2, Moves{Own: 31, Search: 21}},
		{"reversi: 32 discs each, 4 left to place", othello.Reversi, 30, 28, Moves{Own: 5, Search: 5}},
		{"reversi: cap reached", othello.Reversi, 20, 32, Moves{Own: 1, Search: 1}},
		{"no empties: one move, this one", othello.Std, 0, 0, Moves{Own: 1, Search: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pos := withEmpties(t, tt.mode, tt.empties)
			pos.Placed = othello.Placed{Black: tt.placed, White: tt.placed}
			assert.Equal(t, tt.want, Count(pos))
		})
	}
	assert.Equal(t, Moves{Own: 31, Search: 21}, CountEmpties(60, 8))
	assert.Equal(t, Moves{Own: 1, Search: 1}, CountEmpties(-3, 8), "never below one")
	assert.Equal(t, CountEmpties(84, 10), Count(withEmpties(t, othello.Octagon, 84)))
}

func TestPlan(t *testing.T) {
	std60 := Count(withEmpties(t, othello.Std, 60))
	std20 := Count(withEmpties(t, othello.Std, 20))
	grand96 := Count(withEmpties(t, othello.Grand, 96))
	tests := []struct {
		name string
		m    Moves
		c    Clock
		want Move
	}{
		// reserve = 0.75 s + 31 × 150 ms = 5.4 s; spare 54.6 s over 21 moves; the budget twice that.
		{"std opening at 60 s", std60, Clock{Remaining: time.Minute}, Move{Target: 2600 * ms, Limit: 5200 * ms, Spare: 54600 * ms, Quick: MinThink}},
		// The measured overhead, not the default: 0.75 s + 31 × 30 ms = 1.68 s.
		{"a measured overhead", std60, Clock{Remaining: time.Minute, Overhead: 20 * ms}, Move{Target: 2777142857, Limit: 5554285714, Spare: 58320 * ms, Quick: MinThink}},
		{"the cap bounds the budget", std60, Clock{Remaining: time.Minute, Cap: time.Second}, Move{Target: time.Second, Limit: time.Second, Spare: 54600 * ms, Quick: MinThink}},
		// reserve 0.75 s + 11 × 150 ms = 2.4 s: the solve may aim at the whole spare, within three quarters.
		{"the solve", std20, Clock{Remaining: 10 * time.Second}, Move{Target: 5700 * ms, Limit: 5700 * ms, Spare: 7600 * ms, Quick: MinThink}},
		// reserve 0.75 s + 49 × 150 ms = 8.1 s; 51.9 s over 40 moves.
		{"grand opening at 60 s", grand96, Clock{Remaining: time.Minute}, Move{Target: 1297500 * time.Microsecond, Limit: 2595 * ms, Spare: 51900 * ms, Quick: MinThink}},
		{"huge clock: the spec's bound", std20, Clock{Remaining: time.Hour, Cap: 300 * time.Second}, Move{Target: 300 * time.Second, Limit: 300 * time.Second, Spare: time.Hour - 2400*ms, Quick: MinThink}},
		// (5 s − 0.25 s − 31 × 150 ms) / 62 = 1.6 ms.
		{"low clock: panic, the reserve is all there is", std60, Clock{Remaining: 5 * time.Second}, Move{Quick: 1612903}},
		{"panic: under a millisecond to think is one ply", std60, Clock{Remaining: 4900 * ms}, Move{}},
		// spare = 2.5 s − 2.4 s = 100 ms: three quarters is 75 ms ≥ MinThink.
		{"low clock: still a short think", std20, Clock{Remaining: 2500 * ms}, Move{Target: 75 * ms, Limit: 75 * ms, Spare: 100 * ms, Quick: MinThink}},
		// (2.45 s − 0.25 s − 11 × 150 ms) / 22 = 25 ms.
		{"low clock: too little to ask", std20, Clock{Remaining: 2450 * ms}, Move{Spare: 50 * ms, Quick: 25 * ms}},
		{"panic: the quick think within the cap", std60, Clock{Remaining: 5 * time.Second, Cap: ms}, Move{Quick: ms}},
		// The soak's grand leg after an outage: 1.025 s, 10 own moves, 20 ms measured: (1.025 − 0.25 − 0.3) / 20.
		{"panic after an outage", Moves{Own: 10, Search: 1}, Clock{Remaining: 1025 * ms, Overhead: 20 * ms}, Move{Quick: 23750 * time.Microsecond}},
		{"a cap below MinThink is the user's", std60, Clock{Remaining: time.Minute, Cap: 30 * ms}, Move{Target: 30 * ms, Limit: 30 * ms, Spare: 54600 * ms, Quick: 30 * ms}},
		{"unknown clock: the cap", std60, Clock{Cap: 2 * time.Second}, Move{Target: 2 * time.Second, Limit: 2 * time.Second, Quick: MinThink}},
		{"unknown clock, no cap", std60, Clock{}, Move{Target: DefaultThink, Limit: DefaultThink, Quick: MinThink}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Plan(tt.m, tt.c))
		})
	}
}

func TestReplyMargin(t *testing.T) {
	assert.Equal(t, 200*ms, ReplyMargin(time.Second))
	assert.Equal(t, time.Second, ReplyMargin(10*time.Second))
}

func TestForRequest(t *testing.T) {
	pos := withEmpties(t, othello.Std, 40)
	mover := Plan(Count(pos), Clock{Remaining: 30 * time.Second, Cap: 10 * time.Second, Overhead: 40 * ms})
	req := engines.Request{Position: pos, Remaining: 30 * time.Second, Budget: mover.Limit, Overhead: 40 * ms}
	assert.Equal(t, mover.Target, ForRequest(req).Target, "the engine plans what the bot planned")
	assert.Equal(t, mover.Limit, ForRequest(req).Limit)
	assert.Equal(t, Move{}, ForRequest(engines.Request{Position: pos, Remaining: time.Second, Budget: -time.Second}), "no budget left")
	assert.Equal(t, Move{}, ForRequest(engines.Request{Position: pos, Remaining: time.Second}), "a clock but no budget")
	assert.Equal(t, Move{Target: DefaultThink, Limit: DefaultThink, Quick: MinThink}, ForRequest(engines.Request{Position: pos}), "off the API")
}

// playLeg plays the mover's side of a leg of mode on paper: each move
// takes think(plan) plus overhead (two and a half times it every eighth
// move: a GC, a scheduling hiccup), the overhead meter being the
// estimate given to the plan. It returns the clock left, the least seen
// before a move, and the sum of the planned budgets and thinks.
func playLeg(t *testing.T, mode othello.Mode, clock, overhead, estimate, cap time.Duration, think func(Move) time.Duration) (left, least time.Duration, moves int) {
	t.Helper()
	start := othello.New(mode)
	empties := start.Empties().Count()
	remaining, least := clock, clock
	for e := empties; e > 0; e -= 2 {
		pos := withEmpties(t, mode, e)
		p := Plan(Count(pos), Clock{Remaining: remaining, Cap: cap, Overhead: estimate})
		require.LessOrEqual(t, p.Limit, max(0, remaining-engines.SpecMargin), "within the spec's bound")
		require.LessOrEqual(t, p.Target, p.Limit)
		cost := overhead
		if moves%8 == 7 {
			cost = overhead * 5 / 2
		}
		remaining -= min(think(p), p.Limit) + cost
		least = min(least, remaining)
		moves++
		if remaining <= 0 {
			return remaining, least, moves
		}
	}
	return remaining, least, moves
}

// TestPlanKeepsTheClock: whatever the engine does within its budget —
// answer at its think, or never (every move costs the whole budget) —
// the leg ends with the clock above zero, in every mode, at clocks from
// 2 s to an hour, with overheads up to the half second a move the soak
// measured on a starved machine, the estimate up to a sixth under it. A
// clock that the overheads alone would exhaust is left out: no plan keeps
// it.
func TestPlanKeepsTheClock(t *testing.T) {
	for _, mode := range othello.AllModes() {
		for _, clock := range []time.Duration{2 * time.Second, 6 * time.Second, 20 * time.Second, time.Minute, time.Hour} {
			for _, c := range []struct{ overhead, estimate, cap time.Duration }{
				{20 * ms, 20 * ms, 0},
				{100 * ms, 100 * ms, 10 * time.Second},
				{120 * ms, 100 * ms, 0},
				{500 * ms, 500 * ms, time.Second},
			} {
				for _, hang := range []bool{false, true} {
					if Reserve(Count(othello.New(mode)), c.overhead*5/4) >= clock {
						continue
					}
					name := fmt.Sprintf("%s %v overhead %v estimate %v cap %v hang %v", mode, clock, c.overhead, c.estimate, c.cap, hang)
					t.Run(name, func(t *testing.T) {
						think := func(p Move) time.Duration { return p.Target }
						if hang {
							think = func(p Move) time.Duration { return p.Limit }
						}
						left, _, _ := playLeg(t, mode, clock, c.overhead, c.estimate, c.cap, think)
						assert.Positive(t, left)
					})
				}
			}
		}
	}
}

// TestPlanSpendsTheClock: an engine that thinks exactly its Target, with
// a measured 30 ms overhead, spends nearly all of a 60 s clock before the
// solve, in every mode, and the sum of its thinks stays under the clock
// less the reserve.
func TestPlanSpendsTheClock(t *testing.T) {
	for _, mode := range othello.AllModes() {
		t.Run(mode.String(), func(t *testing.T) {
			var thinks time.Duration
			left, _, _ := playLeg(t, mode, time.Minute, 30*ms, 30*ms, 0, func(p Move) time.Duration {
				thinks += p.Target
				return p.Target
			})
			assert.Positive(t, left)
			reserve := Reserve(Count(othello.New(mode)), 30*ms)
			assert.Less(t, thinks, time.Minute-reserve+engines.SpecMargin, "the thinks fit in the clock less the reserve")
			assert.Greater(t, thinks, 50*time.Second, "and spend it")
		})
	}
}

// TestQuickMovesKeepTheFloor: a leg from the panic mode played to its end
// with every move thinking its Quick think (or its budget, once the clock
// is out of the panic mode), each move's overhead up to half again the
// estimate, never thinks into QuickFloor, from any clock the panic mode
// starts at, in every mode. The quick moves do think when the clock
// allows it, and while the overheads are not under the estimate no quick
// think is shorter than the one before: what is above the floor is
// spread over the moves left, not spent first.
func TestQuickMovesKeepTheFloor(t *testing.T) {
	for _, mode := range othello.AllModes() {
		for _, c := range []struct{ overhead, estimate time.Duration }{{2 * ms, 20 * ms}, {20 * ms, 20 * ms}, {30 * ms, 20 * ms}, {150 * ms, 100 * ms}} {
			for _, empties := range []int{40, 24, 16, 8} {
				pos := withEmpties(t, mode, empties)
				m := Count(pos)
				start := Reserve(m, c.estimate) // the panic mode from here down
				name := fmt.Sprintf("%s %d empties overhead %v estimate %v", mode, empties, c.overhead, c.estimate)
				t.Run(name, func(t *testing.T) {
					remaining, thought, last := start, time.Duration(0), time.Duration(0)
					for e := empties; e > 0; e -= 2 {
						p := Plan(Count(withEmpties(t, mode, e)), Clock{Remaining: remaining, Overhead: c.estimate})
						require.LessOrEqual(t, p.Quick, MinThink)
						if p.Limit == 0 && c.overhead >= c.estimate {
							// Spread over the moves left, not spent first.
							require.GreaterOrEqual(t, p.Quick, last, "a quick think no shorter than the one before")
							last = p.Quick
						}
						think := p.Quick
						if p.Limit > 0 {
							// Out of the panic mode (the overheads came in under
							// the estimate): the engine, at worst its budget.
							think = p.Limit
						}
						remaining -= think + c.overhead
						thought += think
					}
					assert.GreaterOrEqual(t, remaining, QuickFloor, "the quick thinks left the floor alone")
					if start-QuickFloor > 2*time.Duration(m.Own)*c.estimate*3/2 {
						assert.Positive(t, thought, "and thought when the clock allowed it")
					}
				})
			}
		}
	}
}

// FuzzPlan holds the plan's bounds for any figures: never past the spec's
// bound or the cap, the think within the budget, nothing negative, and
// planning again with the budget as the cap gives the same plan.
func FuzzPlan(f *testing.F) {
	f.Add(int64(60000), int64(0), int64(100), 31, 21)
	f.Add(int64(2500), int64(1000), int64(20), 11, 1)
	f.Add(int64(-5), int64(-5), int64(-5), -1, -1)
	f.Fuzz(func(t *testing.T, remainingMS, capMS, overheadMS int64, own, search int) {
		const bound = int64(1e9) // ms: 11 days, far beyond any clock
		if remainingMS > bound || capMS > bound || overheadMS > bound || remainingMS < -bound || capMS < -bound || overheadMS < -bound {
			t.Skip()
		}
		m := Moves{Own: own, Search: search}
		c := Clock{Remaining: time.Duration(remainingMS) * ms, Cap: time.Duration(max(capMS, 0)) * ms, Overhead: time.Duration(max(overheadMS, 0)) * ms}
		p := Plan(m, c)
		require.GreaterOrEqual(t, p.Target, time.Duration(0))
		require.LessOrEqual(t, p.Target, p.Limit)
		require.GreaterOrEqual(t, p.Quick, time.Duration(0))
		require.LessOrEqual(t, p.Quick, MinThink)
		if c.Cap > 0 {
			require.LessOrEqual(t, p.Quick, c.Cap)
		}
		if c.Remaining > 0 {
			require.LessOrEqual(t, p.Limit, max(0, engines.SpecBudget(c.Remaining, c.Cap)))
			again := Plan(m, Clock{Remaining: c.Remaining, Cap: p.Limit, Overhead: c.Overhead})
			if p.Limit > 0 {
				require.Equal(t, p, again)
			}
		}
	})
}
