package search

import (
	"math"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// searchPlan is how long one search may take and what it may try.
type searchPlan struct {
	// soft is the time after which no new iteration starts; hard stops the
	// search (0: no limit).
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
	// reserveMin and reserveShare keep part of the clock unused: the
	// server's clock includes the network round trip.
	reserveMin   = 300 * time.Millisecond
	reserveShare = 30 // 1/30 of the remaining time
	// returnMargin is kept below the caller's budget to answer in time.
	returnMargin = 25 * time.Millisecond
	// minThink is the least time a search gets when the clock allows.
	minThink = 10 * time.Millisecond
)

// planMove allots think time for a move: the usable clock (remaining less a
// reserve) spread over the moves left before the exact solve takes over,
// at most a third of it on one move, never beyond the budget.
func planMove(pos othello.Position, remaining, budget time.Duration) searchPlan {
	n := pos.Empties().Count()
	if remaining <= 0 && budget <= 0 {
		remaining = 10 * time.Second
	}
	if remaining <= 0 {
		remaining = budget + time.Second
	}
	usable := remaining - reserveMin - remaining/reserveShare
	// Empties from which an exact solve is expected to be cheap, and the
	// number of own moves until then (plus a share for the solve itself).
	solveAt := 20
	if pos.Size() == 10 {
		solveAt = 14
	}
	movesLeft := max(0, (n-solveAt)/2) + 6
	soft := usable / time.Duration(movesLeft)
	// An iteration started before 0.4×soft (the last one allowed) ends by
	// about 1.5×soft: the hard stop cuts the rare longer one.
	hard := min(3*soft/2, usable/4)
	if n <= solveAt+4 {
		// The solve window: allow up to a third of the clock on a solve
		// that the estimate says fits.
		hard = usable / 3
	}
	if budget > 0 {
		hard = min(hard, budget-returnMargin)
	}
	hard = max(hard, minThink)
	soft = min(soft, hard)
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
