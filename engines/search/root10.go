package search

import (
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// rootMoves10 lists the moves of p, best first by evaluation, in the
// thread's rotated order.
func (t *thread) rootMoves10(p, o othello.Bits) []rootMove10 {
	var list []rootMove10
	moves := othello.Legal10(p, o, t.blocked)
	for m := moves; !m.IsZero(); {
		sq := m.First()
		m = m.AndNot(othello.Bit(sq))
		f := othello.Flips10(p, o, sq)
		nextP, nextO := play10(p, o, sq, f)
		list = append(list, rootMove10{sq: sq, flips: f, score: -t.ev10.Score10(nextP, nextO)})
	}
	sortRoot(list)
	rotate(list, t.id)
	return list
}

// root10 searches the root moves by PVS to depth d (exact: by the solver, in
// discs) and moves the best to the front.
func (t *thread) root10(list []rootMove10, p, o othello.Bits, d, alpha, beta int, exact bool) int {
	child := func(nextP, nextO othello.Bits, a, b int) int {
		if exact {
			return t.solve10(nextP, nextO, a, b, false)
		}
		return t.mid10(nextP, nextO, d-1, a, b, false)
	}
	best, bi := -inf, 0
	for i := range list {
		mv := &list[i]
		nextP, nextO := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 {
			v = -child(nextP, nextO, -beta, -lo)
		} else {
			v = -child(nextP, nextO, -lo-1, -lo)
			if v > lo && v < beta && !t.aborted {
				v = -child(nextP, nextO, -beta, -v)
			}
		}
		if t.aborted {
			return best
		}
		mv.score = v
		if v > best {
			best, bi = v, i
			if i > 0 && t.id == 0 && v > alpha && !exact {
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

// iterate10 is the 10×10 iterative deepening with aspiration windows.
func (t *thread) iterate10(p, o othello.Bits, maxDepth int) {
	j := t.job
	list := t.rootMoves10(p, o)
	if len(list) == 0 {
		return
	}
	n := t.empties10(p, o)
	if maxDepth <= 0 || maxDepth > n {
		maxDepth = n
	}
	t.deepen(list[0].score, n, maxDepth,
		func(d, lo, hi int) int { return t.root10(list, p, o, d, lo, hi, false) },
		func(d, score int) {
			j.publish(outcome{move: list[0].sq, score: score, depth: d, exact: d >= n, pv: t.pv10(p, o, list[0].sq, d)})
		})
}

// solveRoot10 solves a 10×10 root exactly and publishes the result unless
// another thread finished first.
func (t *thread) solveRoot10(p, o othello.Bits, first int) {
	list := t.rootMoves10(p, o)
	if len(list) == 0 {
		return
	}
	for i := range list {
		if list[i].sq == first && t.id == 0 {
			m := list[i]
			copy(list[1:i+1], list[:i])
			list[0] = m
		}
	}
	v := t.root10(list, p, o, 0, -101, 101, true)
	if t.aborted || t.job.phase.Swap(true) {
		return
	}
	n := t.empties10(p, o)
	t.job.publish(outcome{move: list[0].sq, score: v * eval.Disc, depth: n, exact: true, pv: t.pv10(p, o, list[0].sq, n)})
}

// pv10 follows the table's best moves from the root move first.
func (t *thread) pv10(p, o othello.Bits, first, maxLen int) []int {
	return followPV(t, &pvPos10{p: p, o: o, blocked: t.blocked}, first, maxLen)
}

// pvPos10 is a 10×10 pvPos.
type pvPos10 struct {
	p, o, blocked othello.Bits
}

func (x *pvPos10) play(mv int) { x.p, x.o = play10(x.p, x.o, mv, othello.Flips10(x.p, x.o, mv)) }

func (x *pvPos10) canMove() bool { return !othello.Legal10(x.p, x.o, x.blocked).IsZero() }

func (x *pvPos10) pass() { x.p, x.o = x.o, x.p }

func (x *pvPos10) legal(mv int) bool { return othello.Legal10(x.p, x.o, x.blocked).Has(mv) }

func (x *pvPos10) key(t *thread) uint64 { return t.key10(x.p, x.o) }

// rootSearch10 is a 10×10 root for drive (driver.go).
type rootSearch10 struct {
	p, o othello.Bits
	n    int // empties
}

func newRootSearch10(pos othello.Position) *rootSearch10 {
	return &rootSearch10{p: pos.Discs(pos.Turn), o: pos.Discs(pos.Turn.Opponent()), n: pos.Empties().Count()}
}

func (r *rootSearch10) empties() int { return r.n }

func (r *rootSearch10) cost(*thread) solveCost { return exactCost10 }

func (r *rootSearch10) solveMax() int { return 24 }

// preDepth is 0: a 10×10 exact solve starts without a guess.
func (r *rootSearch10) preDepth() int { return 0 }

func (r *rootSearch10) iterate(t *thread, maxDepth int) { t.iterate10(r.p, r.o, maxDepth) }

// solve solves the root on every thread at once (the first to finish
// publishes); the guess is not used.
func (r *rootSearch10) solve(j *job, threads []*thread, first, _ int) {
	runPhase(j, threads, func(t *thread) { t.solveRoot10(r.p, r.o, first) })
}
