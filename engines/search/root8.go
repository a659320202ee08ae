package search

import (
	"math/bits"
	"slices"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// rootMoves8 lists the moves of p, best first by a shallow evaluation.
func (t *thread) rootMoves8(p, o uint64, pl, ol int) []rootMove8 {
	var list []rootMove8
	for m := legal8(p, o, pl); m != 0; m &= m - 1 {
		sq := bits.TrailingZeros64(m)
		f := othello.Flips8(p, o, sq)
		b := uint64(1) << uint(sq)
		list = append(list, rootMove8{sq: sq, flips: f, score: -t.ev8.Score8(o&^f, p|f|b, ol, pl-1)})
	}
	sortRoot(list)
	return list
}

// iterate8 is the midgame iterative deepening with aspiration windows. The
// main thread publishes each finished depth; helpers search odd depths one
// deeper and only fill the table.
func (t *thread) iterate8(p, o uint64, pl, ol, maxDepth int) {
	j := t.job
	list := t.rootMoves8(p, o, pl, ol)
	if len(list) == 0 {
		return
	}
	n := 64 - pc(p|o)
	if maxDepth <= 0 || maxDepth > n {
		maxDepth = n
	}
	rotate(list, t.id)
	t.deepen(list[0].score, n, maxDepth,
		func(d, lo, hi int) int { return t.root8(list, p, o, pl, ol, d, lo, hi) },
		func(d, score int) {
			j.publish(outcome{move: list[0].sq, score: score, depth: d, exact: d >= n, pv: t.pv8(p, o, pl, ol, list[0].sq, d)})
		})
}

// root8 searches the root moves to depth d within (alpha, beta) by PVS and
// moves the best to the front of list.
func (t *thread) root8(list []rootMove8, p, o uint64, pl, ol, d, alpha, beta int) int {
	best, bi := -inf, 0
	for i := range list {
		mv := &list[i]
		b := uint64(1) << uint(mv.sq)
		nextO := p | mv.flips | b
		nextP := o &^ mv.flips
		lo := max(alpha, best)
		var v int
		if i == 0 {
			v = -t.mid8(nextP, nextO, ol, pl-1, d-1, -beta, -lo, false)
		} else {
			v = -t.mid8(nextP, nextO, ol, pl-1, d-1, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.mid8(nextP, nextO, ol, pl-1, d-1, -beta, -v, false)
			}
		}
		if t.aborted {
			return best
		}
		mv.score = v
		if i > 0 && v <= lo {
			mv.score = -inf + i // keep the previous order among the refuted
		}
		if v > best {
			best, bi = v, i
			if i > 0 && t.id == 0 && v > alpha {
				t.job.publishMove(mv.sq, v)
			}
			if v >= beta {
				break
			}
		}
	}
	if bi > 0 {
		m := list[bi]
		copy(list[1:bi+1], list[:bi])
		list[0] = m
	}
	return best
}

// aspiration is the half-width of the first window of an exact solve
// around the guessed score.
const aspiration = 8

// solveRoot8 solves the root exactly (discs) and publishes the result
// unless the phase ends first. first, when a root move, is searched first;
// the others are ordered by a shallow search. guess, when in −64…64, is the
// expected score: the search starts with a narrow window around it.
// Only the main thread runs it; on several threads, the helpers take work
// from it by YBWC (ybwc.go), from the root down.
func (t *thread) solveRoot8(p, o uint64, pl, ol, first, guess int) {
	list := t.rootMoves8(p, o, pl, ol)
	if len(list) == 0 {
		return
	}
	n := 64 - pc(p|o)
	if d := min(6, (n-10)/2); d > 0 {
		for i := range list {
			mv := &list[i]
			b := uint64(1) << uint(mv.sq)
			mv.score = -t.mid8(o&^mv.flips, p|mv.flips|b, ol, pl-1, d, -inf, inf, false)
			if t.aborted {
				return
			}
		}
		sortRoot(list)
	}
	for i := range list {
		if list[i].sq == first {
			m := list[i]
			copy(list[1:i+1], list[:i])
			list[0] = m
		}
	}
	rotate(list, t.id)
	j := t.job
	w := aspiration
	if n >= endRampMin && t.mpc != nil && t.mpc.end != nil {
		// Edax's selectivity ramp (endcut.go): selective passes of rising
		// confidence fill the table with bounds and best moves, each
		// starting from the last one's score; the exact pass then runs
		// in a narrow window around it.
		for _, level := range endRamp {
			t.level = level
			v, ok := t.solveLoop8(list, p, o, pl, ol, guess, w)
			t.level = 0
			if !ok {
				return
			}
			guess = v
			mv := list[0].sq
			j.publish(outcome{move: mv, score: v * eval.Disc, depth: n, pv: t.pv8(p, o, pl, ol, mv, n)})
		}
		w = endExactWindow
	}
	v, ok := t.solveLoop8(list, p, o, pl, ol, guess, w)
	if !ok || j.phase.Swap(true) {
		return // stopped, or another thread finished first
	}
	mv := list[0].sq
	j.publish(outcome{move: mv, score: v * eval.Disc, depth: n, exact: true, pv: t.pv8(p, o, pl, ol, mv, n)})
}

// solveLoop8 solves the root at the thread's level within guess ± w (the
// full window when guess is outside −64…64), searching again with the
// window opened on the failing side until the score is inside. It reports
// false when the search was stopped.
func (t *thread) solveLoop8(list []rootMove8, p, o uint64, pl, ol, guess, w int) (int, bool) {
	lo, hi := -65, 65
	if guess >= -64 && guess <= 64 {
		lo, hi = max(-65, guess-w), min(65, guess+w)
	}
	for {
		v := t.solveRootWindow8(list, p, o, pl, ol, lo, hi)
		if t.aborted {
			return 0, false
		}
		switch {
		case v <= lo && lo > -65:
			lo, hi = -65, min(hi, v+1)
		case v >= hi && hi < 65:
			lo, hi = max(lo, v-1), 65
		default:
			return v, true
		}
	}
}

// solveRootWindow8 solves the root moves within (alpha, beta) by PVS and
// moves the best to the front.
func (t *thread) solveRootWindow8(list []rootMove8, p, o uint64, pl, ol, alpha, beta int) int {
	best, bi := -inf, 0
	for i := range list {
		mv := &list[i]
		b := uint64(1) << uint(mv.sq)
		nextO := p | mv.flips | b
		nextP := o &^ mv.flips
		lo := max(alpha, best)
		var v int
		if i == 0 {
			v = -t.exact8(nextP, nextO, ol, pl-1, -beta, -lo, false)
		} else {
			v = -t.exact8(nextP, nextO, ol, pl-1, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.exact8(nextP, nextO, ol, pl-1, -beta, -v, false)
			}
		}
		if t.aborted {
			return best
		}
		if v > best {
			best, bi = v, i
			if v >= beta {
				break
			}
		}
		if i == 0 && len(list) > 1 && t.canSplit() {
			// Young brothers wait: the first move is done, share the
			// others in their order.
			rest := make([]move8, len(list)-1)
			for k, mv := range list[1:] {
				rest[k] = move8{flips: mv.flips, sq: mv.sq, key: -k}
			}
			var bm int
			best, bm = t.split(p, o, pl, ol, alpha, beta, best, list[0].sq, rest)
			if t.aborted {
				return best
			}
			bi = slices.IndexFunc(list, func(m rootMove8) bool { return m.sq == bm })
			break
		}
	}
	if bi > 0 {
		m := list[bi]
		copy(list[1:bi+1], list[:bi])
		list[0] = m
	}
	return best
}

// pv8 follows the table's best moves from the root move first.
func (t *thread) pv8(p, o uint64, pl, ol, first, maxLen int) []int {
	return followPV(t, &pvPos8{p: p, o: o, pl: pl, ol: ol}, first, maxLen)
}

// pvPos8 is an 8×8 pvPos with reversi's placements left.
type pvPos8 struct {
	p, o   uint64
	pl, ol int
}

func (x *pvPos8) play(mv int) {
	b := uint64(1) << uint(mv)
	f := othello.Flips8(x.p, x.o, mv)
	x.p, x.o = x.o&^f, x.p|f|b
	x.pl, x.ol = x.ol, x.pl-1
}

func (x *pvPos8) canMove() bool { return legal8(x.p, x.o, x.pl) != 0 }

func (x *pvPos8) pass() { x.p, x.o, x.pl, x.ol = x.o, x.p, x.ol, x.pl }

func (x *pvPos8) legal(mv int) bool {
	return mv >= 0 && mv < 64 && legal8(x.p, x.o, x.pl)&(1<<uint(mv)) != 0
}

func (x *pvPos8) key(t *thread) uint64 { return t.key8(x.p, x.o, x.pl, x.ol, 64-pc(x.p|x.o)) }

// rootSearch8 is an 8×8 root for drive (driver.go).
type rootSearch8 struct {
	p, o   uint64
	pl, ol int // placements left: reversi's cap, or capsFree
}

func newRootSearch8(pos othello.Position) *rootSearch8 {
	pl, ol := placementsLeft(pos)
	return &rootSearch8{p: pos.Discs(pos.Turn).Lo, o: pos.Discs(pos.Turn.Opponent()).Lo, pl: pl, ol: ol}
}

func (r *rootSearch8) empties() int { return 64 - pc(r.p|r.o) }

func (r *rootSearch8) cost(t *thread) solveCost {
	if t.mpc != nil && t.mpc.end != nil && r.empties() >= endRampMin && r.pl >= r.empties() && r.ol >= r.empties() {
		return selectiveCost8
	}
	return exactCost8
}

func (r *rootSearch8) solveMax() int { return 30 }

// exactPreDepth is the deepest midgame search run before an exact solve to
// guess its score and fill the table with first moves.
const exactPreDepth = 8

// preDepth searches positions of more than 14 empties to exactPreDepth
// before a solve, at most 8 plies short of the end.
func (r *rootSearch8) preDepth() int {
	if n := r.empties(); n > 14 {
		return min(exactPreDepth, n-8)
	}
	return 0
}

func (r *rootSearch8) iterate(t *thread, maxDepth int) { t.iterate8(r.p, r.o, r.pl, r.ol, maxDepth) }

// solve runs an exact root solve: on one thread alone, or with the helpers
// sharing the work by YBWC (ybwc.go). The guess is rounded to discs.
func (r *rootSearch8) solve(j *job, threads []*thread, first, guess int) {
	g := 99 // outside −64…64: no aspiration window
	if guess != noGuess {
		g = roundDisc(guess)
	}
	var y *ybwc
	if len(threads) > 1 {
		y = newYBWC()
	}
	for _, t := range threads {
		t.yb, t.sp = y, nil
	}
	defer func() {
		for _, t := range threads {
			t.yb = nil
		}
	}()
	runPhase(j, threads, func(t *thread) {
		if t.id == 0 {
			if y != nil {
				defer y.shutdown()
			}
			t.solveRoot8(r.p, r.o, r.pl, r.ol, first, g)
		} else {
			t.help(y)
		}
	})
}

// roundDisc converts an evaluation to the nearest even disc score (final
// scores of 8×8 games without empties are even).
func roundDisc(v int) int {
	d := floorDiv(v+eval.Disc, 2*eval.Disc) * 2
	return max(-64, min(64, d))
}
