package search

import (
	"math"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

// searchPlan is how long one search may take and what it may try.
type searchPlan struct {
	// soft is the think the midgame iterations aim at (job.startIteration);
	// hard stops the search (0: no limit).
	soft, hard time.Duration
	// maxDepth bounds the midgame iterations (0: none).
	maxDepth int
	// exact asks for an exact solve only; trySolve lets the search solve
	// exactly when the estimate fits the hard limit.
	exact, trySolve bool
	toWinner        bool
}

// Clock constants.
const (
	// returnMargin is kept below the caller's budget to answer in time.
	returnMargin = 25 * time.Millisecond
	// minThink is the least time a search gets, even in the plan's panic
	// mode (the engine always answers; the caller's budget decides).
	minThink = 10 * time.Millisecond
)

// planMove is the search's share of the one clock plan (timeplan.Plan):
// iterations aimed at the plan's think (soft), a stop at its budget
// less returnMargin (hard). An exact solve is tried whenever its estimate
// fits the budget, which the plan makes large in the solve window.
func planMove(pos othello.Position, remaining, budget time.Duration) searchPlan {
	p := timeplan.ForRequest(engines.Request{Position: pos, Remaining: remaining, Budget: budget})
	hard := max(p.Limit-returnMargin, minThink)
	if budget > 0 {
		hard = min(hard, max(budget-returnMargin, minThink))
	}
	soft := min(max(p.Target, minThink), hard)
	return searchPlan{soft: soft, hard: hard, trySolve: true}
}

// solveCost models the cost of a root solve: about base·growth^(n−10)
// nodes at n empties, visited speed times as fast as the midgame search
// visits its nodes.
type solveCost struct {
	base, growth, speed float64
}

// The solve costs measured on FFO positions (see engines/README.md): the
// exact solves of 8×8 and 10×10, and the first selective pass of the 8×8
// selective endgame (endcut.go), whose result is published as soon as it is
// done, so that a solve whose exact pass runs out of time still answers
// with it.
var (
	exactCost8     = solveCost{base: 3e3, growth: 2.4, speed: 4}
	selectiveCost8 = solveCost{base: 6e4, growth: 1.39, speed: 2}
	exactCost10    = solveCost{base: 1e4, growth: 2.5, speed: 4}
)

// solveFits estimates whether a solve of n empties costing c fits in left,
// from the node rate of the search so far (the speed factor of c applied;
// the low end of the measured range keeps failed solves rare).
func solveFits(n int, nodes uint64, spent, left time.Duration, c solveCost) bool {
	if left <= 0 {
		return false
	}
	// Midgame nodes/s when the search ran too briefly to tell: below the
	// 3.3 M nodes per CPU second measured over FFO #1–59 at the default
	// clock (2026-12-05), so that the first estimate does not rule out a
	// solve that the measured rate then allows.
	rate := 2e6
	if spent > 5*time.Millisecond && nodes > 10000 {
		rate = float64(nodes) / spent.Seconds()
	}
	est := c.base * math.Pow(c.growth, float64(n-10))
	return est/(c.speed*rate) <= left.Seconds()
}
