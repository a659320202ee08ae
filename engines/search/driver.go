package search

import (
	"math"
	"time"

	"flipbot.dev/flipbot/engines/eval"
)

// The phases of one search, the same on both board sizes: a midgame
// iterative deepening, then, when the clock allows, an exact solve (or, when
// Limits.Exact asks for one, a short midgame search to guess the score,
// then the solve). drive runs them through rootSearch, implemented per size
// by rootSearch8 (root8.go) and rootSearch10 (root10.go). The driver runs a
// few times per search, so an interface costs nothing measurable here; the
// node functions under it (mid8, solve8, mid10, solve10…) stay specialised
// per size.

// rootSearch is a root position of one board size, as drive sees it.
type rootSearch interface {
	// empties is the number of empty squares (playable ones on octagon).
	empties() int
	// cost is the model of a root solve's cost on t (solveFits): the
	// exact solve's, or the first selective pass's when the solve runs the
	// selective endgame (its result is published first).
	cost(t *thread) solveCost
	// solveMax is the most empties at which a timed search tries to solve
	// exactly.
	solveMax() int
	// preDepth is the depth of the midgame search that guesses the score
	// and first move of a solve that Limits.Exact asks for (0: none).
	preDepth() int
	// iterate runs the midgame iterative deepening on t to at most
	// maxDepth plies (0: no limit).
	iterate(t *thread, maxDepth int)
	// solve solves the root exactly on threads: first, when a root move,
	// is searched first; guess, unless noGuess, is the expected score
	// (evaluation units).
	solve(j *job, threads []*thread, first, guess int)
}

// noGuess is the guess of a solve without an expected score.
const noGuess = math.MinInt

// drive runs the phases of a search of r under plan on threads.
func drive(j *job, threads []*thread, r rootSearch, plan searchPlan) {
	n := r.empties()
	if plan.exact {
		// A short midgame search guesses the score and the first move.
		first, guess := -1, noGuess
		if d := r.preDepth(); d > 0 {
			j.soft = 1 << 62
			runPhase(j, threads, func(t *thread) { r.iterate(t, d) })
			if res := j.result(); res.ok && !j.stop.Load() {
				first, guess = res.move, res.score
			}
		}
		r.solve(j, threads, first, guess)
		return
	}
	solve := plan.trySolve && n <= r.solveMax() && solveFits(n, 0, 0, plan.hard, r.cost(threads[0]))
	if solve {
		// A short midgame search first: its move is the fallback and
		// orders the solve.
		j.soft = min(plan.soft, plan.hard/8)
	}
	runPhase(j, threads, func(t *thread) { r.iterate(t, plan.maxDepth) })
	mid := j.result()
	if !solve || mid.exact || j.stop.Load() {
		return
	}
	var nodes uint64
	for _, t := range threads {
		nodes += t.nodes
	}
	if !solveFits(n, nodes, j.elapsed(), plan.hard-j.elapsed(), r.cost(threads[0])) {
		// Not enough time to solve: go on deepening the midgame search.
		j.soft = plan.soft
		runPhase(j, threads, func(t *thread) { r.iterate(t, plan.maxDepth) })
		return
	}
	r.solve(j, threads, mid.move, mid.score)
}

// deepen is the midgame iterative deepening with aspiration windows, for
// both sizes (iterate8, iterate10): depths from 1 (2 on the odd helper
// threads, which only fill the table) to maxDepth, each searched by
// root(d, lo, hi) in a window of ±3 discs around the last score (the full
// window to depth 2), widened twofold on the side that fails until the
// value falls inside. The main thread publishes each finished depth
// (publish(d, score)) and stops after the end of the game (n empties) or
// when the next iteration is not worth starting (job.startIteration);
// every thread stops when aborted. Like
// drive, it runs a few times per search: root's and publish's calls cost
// nothing measurable beside the searches under them.
func (t *thread) deepen(score, n, maxDepth int, root func(d, lo, hi int) int, publish func(d, score int)) {
	j := t.job
	start := 1 + t.id%2
	var last, prev time.Duration // the main thread's last two iterations
	began := j.elapsed()
	for d := start; d <= maxDepth; d++ {
		if t.id == 0 && d > start && !j.startIteration(last, prev) {
			return
		}
		w := 3 * eval.Disc
		lo, hi := score-w, score+w
		if d <= 2 {
			lo, hi = -inf, inf
		}
		for {
			v := root(d, lo, hi)
			if t.aborted {
				return
			}
			score = v
			if v <= lo && lo > -inf {
				lo, w = max(-inf, v-2*w), 2*w
				continue
			}
			if v >= hi && hi < inf {
				hi, w = min(inf, v+2*w), 2*w
				continue
			}
			break
		}
		if t.id == 0 {
			now := j.elapsed()
			last, prev, began = now-began, last, now
			publish(d, score)
			if d >= n {
				return
			}
		}
	}
}
