package search

import (
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// The 10×10 modes (grand, octagon) use this generic path on othello.Bits:
// the same algorithms as the 8×8 code (PVS, table, iterative deepening,
// exact solver with fastest-first order) without its size-specific tricks.

// midSolve10 is the number of empties from which a 10×10 midgame search that
// reaches the end calls the exact solver.
const midSolve10 = 10

// play10 returns the position after p plays sq flipping f, from the
// opponent's side: (new player, new opponent).
func play10(p, o othello.Bits, sq int, f othello.Bits) (othello.Bits, othello.Bits) {
	f = f.Or(othello.Bit(sq))
	return o.AndNot(f), p.Or(f)
}

func (t *thread) key10(p, o othello.Bits) uint64 {
	return hash10(p.Lo, p.Hi, o.Lo, o.Hi, t.salt)
}

// endScore10 is the final score for p of a finished 10×10 game.
func (t *thread) endScore10(p, o othello.Bits, empties int) int {
	d := p.Count() - o.Count()
	if t.toWinner {
		if d > 0 {
			d += empties
		} else if d < 0 {
			d -= empties
		}
	}
	return d
}

// empties10 returns the number of empty playable squares.
func (t *thread) empties10(p, o othello.Bits) int {
	return 100 - t.blocked.Count() - p.Count() - o.Count()
}

// moveList10 fills buf with the moves of p ordered for the search:
// the table move, then fewest replies (corners double).
func (t *thread) moveList10(buf []move10, p, o, moves othello.Bits, ttMove int, byEval bool) []move10 {
	list := buf[:0]
	for m := moves; !m.IsZero(); {
		sq := m.First()
		m = m.AndNot(othello.Bit(sq))
		f := othello.Flips10(p, o, sq)
		k := 0
		switch {
		case sq == ttMove:
			k = 1 << 24
		case byEval:
			np, no := play10(p, o, sq, f)
			k = -t.ev10.Score10(np, no)
		default:
			np, no := play10(p, o, sq, f)
			k = -othello.Legal10(np, no, t.blocked).Count() << 4
		}
		list = append(list, move10{flips: f, sq: sq, key: k})
	}
	return list
}

// solve10 is the exact 10×10 solver (discs), fail-soft in (alpha, beta).
func (t *thread) solve10(p, o othello.Bits, alpha, beta int, passed bool) int {
	t.nodes++
	if t.poll() {
		return 0
	}
	n := t.empties10(p, o)
	if n <= endShallow10 {
		t.nodes--
		return t.solveShallow10(p, o, alpha, beta, passed, othello.Board10().AndNot(p.Or(o).Or(t.blocked)), n)
	}
	moves := othello.Legal10(p, o, t.blocked)
	if moves.IsZero() {
		if passed || othello.Legal10(o, p, t.blocked).IsZero() {
			return t.endScore10(p, o, n)
		}
		return -t.solve10(o, p, -beta, -alpha, true)
	}
	useTable := n >= 8
	var key uint64
	ttMove := -1
	if useTable {
		key = t.key10(p, o)
		if e, ok := t.tt.probe(key); ok {
			var v int
			var cut bool
			if alpha, beta, v, cut = e.window(1, 0, alpha, beta); cut {
				return v
			}
			ttMove = e.move
		}
	}
	var buf [64]move10
	list := t.moveList10(buf[:], p, o, moves, ttMove, false)
	best, bestMove := -inf, -1
	for i := range list {
		pickBest(list, i)
		mv := &list[i]
		np, no := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 || beta-lo <= 1 {
			v = -t.solve10(np, no, -beta, -lo, false)
		} else {
			v = -t.solve10(np, no, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.solve10(np, no, -beta, -v, false)
			}
		}
		if t.aborted {
			return 0
		}
		if v > best {
			best, bestMove = v, mv.sq
			if v >= beta {
				break
			}
		}
	}
	if useTable {
		e := entry{lower: -100, upper: 100, move: bestMove, depth: n, kind: kindEnd}
		if best > alpha {
			e.lower = best
		}
		if best < beta {
			e.upper = best
		}
		t.tt.store(key, e)
	}
	return best
}

// endShallow10 is the number of empties up to which the 10×10 solver tries
// each empty square in turn instead of building a move list.
const endShallow10 = 6

// solveShallow10 is the 10×10 solver near the end, n empties (the squares
// of empty) left: each empty square is tried directly in parity order
// (quadrants with an odd number of empties first), Flips10 only where an
// opponent disc is adjacent, no table; the last empty is scored by
// lastScore10 without making the move.
func (t *thread) solveShallow10(p, o othello.Bits, alpha, beta int, passed bool, empty othello.Bits, n int) int {
	t.nodes++
	switch n {
	case 0:
		return t.endScore10(p, o, 0)
	case 1:
		return t.lastScore10(p, o, empty.First())
	}
	if t.poll() {
		return 0
	}
	best := -inf
	for _, e := range parityOrder10(empty) {
		for !e.IsZero() {
			sq := e.First()
			b := othello.Bit(sq)
			e = e.AndNot(b)
			f := flips10(p, o, sq)
			if f.IsZero() {
				continue
			}
			np, no := play10(p, o, sq, f)
			v := -t.solveShallow10(np, no, -beta, -max(alpha, best), false, empty.AndNot(b), n-1)
			if t.aborted {
				return 0
			}
			if v > best {
				best = v
				if v >= beta {
					return v
				}
			}
		}
	}
	if best == -inf {
		if passed {
			return t.endScore10(p, o, n)
		}
		return -t.solveShallow10(o, p, -beta, -alpha, true, empty, n)
	}
	return best
}

// lastScore10 is the exact score with one empty square sq left: p plays it
// if it flips, else the opponent, else nobody; the flips are only counted.
func (t *thread) lastScore10(p, o othello.Bits, sq int) int {
	np, no := p.Count(), o.Count()
	if f := flips10(p, o, sq); !f.IsZero() {
		k := f.Count()
		return np + k + 1 - (no - k)
	}
	if f := flips10(o, p, sq); !f.IsZero() {
		k := f.Count()
		return np - k - (no + k + 1)
	}
	return t.endScore10(p, o, 1)
}

// tables10 holds the 10×10 solver's per-square neighbours and the four 5×5
// quadrants (for parity).
type tables10 struct {
	adjacent  [100]othello.Bits
	quadrants [4]othello.Bits
}

var tab10 = makeTables10()

func makeTables10() *tables10 {
	t := &tables10{}
	for sq := range 100 {
		r, c := sq/10, sq%10
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				if rr, cc := r+dr, c+dc; (dr != 0 || dc != 0) && rr >= 0 && rr < 10 && cc >= 0 && cc < 10 {
					t.adjacent[sq] = t.adjacent[sq].Or(othello.Bit(rr*10 + cc))
				}
			}
		}
		q := r/5*2 + c/5
		t.quadrants[q] = t.quadrants[q].Or(othello.Bit(sq))
	}
	return t
}

// flips10 is othello.Flips10 after a cheap test that an opponent disc is
// next to sq (else nothing can flip).
func flips10(p, o othello.Bits, sq int) othello.Bits {
	if tab10.adjacent[sq].And(o).IsZero() {
		return othello.Bits{}
	}
	return othello.Flips10(p, o, sq)
}

// parityOrder10 splits empty into the squares of quadrants with an odd
// number of empties, then the others.
func parityOrder10(empty othello.Bits) [2]othello.Bits {
	var odd othello.Bits
	for _, q := range tab10.quadrants {
		if e := empty.And(q); e.Count()&1 != 0 {
			odd = odd.Or(e)
		}
	}
	return [2]othello.Bits{empty.And(odd), empty.AndNot(odd)}
}

// mid10 is the 10×10 midgame PVS in evaluation units.
func (t *thread) mid10(p, o othello.Bits, depth, alpha, beta int, passed bool) int {
	n := t.empties10(p, o)
	if depth >= n && n <= midSolve10 {
		return t.solve10(p, o, floorDiv(alpha, eval.Disc), ceilDiv(beta, eval.Disc), passed) * eval.Disc
	}
	t.nodes++
	if t.poll() {
		return 0
	}
	if depth <= 0 {
		return t.ev10.Score10(p, o)
	}
	moves := othello.Legal10(p, o, t.blocked)
	if moves.IsZero() {
		if passed || othello.Legal10(o, p, t.blocked).IsZero() {
			return t.endScore10(p, o, n) * eval.Disc
		}
		return -t.mid10(o, p, depth, -beta, -alpha, true)
	}
	if depth == 1 {
		// The last ply: evaluate each child, no table, no ordering.
		best := -inf
		for m := moves; !m.IsZero(); {
			sq := m.First()
			m = m.AndNot(othello.Bit(sq))
			np, no := play10(p, o, sq, othello.Flips10(p, o, sq))
			t.nodes++
			if v := -t.ev10.Score10(np, no); v > best {
				best = v
				if v >= beta {
					break
				}
			}
		}
		return best
	}
	key := t.key10(p, o)
	ttMove := -1
	if e, ok := t.tt.probe(key); ok {
		var v int
		var cut bool
		if alpha, beta, v, cut = e.window(eval.Disc, depth, alpha, beta); cut {
			return v
		}
		ttMove = e.move
	}
	if t.probCut10(p, o, n, depth, alpha, beta, passed) {
		if t.aborted {
			return 0
		}
		return t.cutValue
	}
	if ttMove < 0 && depth >= 5 {
		t.mid10(p, o, depth-3, alpha, beta, passed)
		if t.aborted {
			return 0
		}
		if e, ok := t.tt.probe(key); ok {
			ttMove = e.move
		}
	}
	var buf [64]move10
	list := t.moveList10(buf[:], p, o, moves, ttMove, depth >= 3)
	best, bestMove := -inf, -1
	for i := range list {
		pickBest(list, i)
		mv := &list[i]
		np, no := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 || beta-lo <= 1 {
			v = -t.mid10(np, no, depth-1, -beta, -lo, false)
		} else {
			v = -t.mid10(np, no, depth-1, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.mid10(np, no, depth-1, -beta, -v, false)
			}
		}
		if t.aborted {
			return 0
		}
		if v > best {
			best, bestMove = v, mv.sq
			if v >= beta {
				break
			}
		}
	}
	e := entry{lower: -inf, upper: inf, move: bestMove, depth: depth, kind: kindMid}
	if best > alpha {
		e.lower = best
	}
	if best < beta {
		e.upper = best
	}
	t.tt.store(key, e)
	return best
}

// probCut10 is probCut8 for mid10.
func (t *thread) probCut10(p, o othello.Bits, n, depth, alpha, beta int, passed bool) bool {
	if depth < probCutMinDepth || depth >= n || beta-alpha != 1 {
		return false
	}
	c, ok := t.mpc.cell(n, depth)
	if !ok {
		return false
	}
	lo, hi := c.bounds(alpha, beta)
	if v := t.mid10(p, o, c.shallow, hi-1, hi, passed); v >= hi || t.aborted {
		t.cutValue = beta
		return true
	}
	if v := t.mid10(p, o, c.shallow, lo, lo+1, passed); v <= lo || t.aborted {
		t.cutValue = alpha
		return true
	}
	return false
}

func (t *thread) rootMoves10(p, o othello.Bits) []rootMove10 {
	var list []rootMove10
	moves := othello.Legal10(p, o, t.blocked)
	for m := moves; !m.IsZero(); {
		sq := m.First()
		m = m.AndNot(othello.Bit(sq))
		f := othello.Flips10(p, o, sq)
		np, no := play10(p, o, sq, f)
		list = append(list, rootMove10{sq: sq, flips: f, score: -t.ev10.Score10(np, no)})
	}
	sortRoot(list)
	rotate(list, t.id)
	return list
}

// root10 searches the root moves by PVS to depth d (exact: by the solver, in
// discs) and moves the best to the front.
func (t *thread) root10(list []rootMove10, p, o othello.Bits, d, alpha, beta int, exact bool) int {
	child := func(np, no othello.Bits, a, b int) int {
		if exact {
			return t.solve10(np, no, a, b, false)
		}
		return t.mid10(np, no, d-1, a, b, false)
	}
	best, bi := -inf, 0
	for i := range list {
		mv := &list[i]
		np, no := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 {
			v = -child(np, no, -beta, -lo)
		} else {
			v = -child(np, no, -lo-1, -lo)
			if v > lo && v < beta && !t.aborted {
				v = -child(np, no, -beta, -v)
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
	score := list[0].score
	start := 1 + t.id%2
	for d := start; d <= maxDepth; d++ {
		if t.id == 0 && d > start && j.elapsed() > j.soft/5*2 {
			return
		}
		w := 3 * eval.Disc
		lo, hi := score-w, score+w
		if d <= 2 {
			lo, hi = -inf, inf
		}
		for {
			v := t.root10(list, p, o, d, lo, hi, false)
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
			j.publish(outcome{move: list[0].sq, score: score, depth: d, exact: d >= n, pv: t.pv10(p, o, list[0].sq, d)})
			if d >= n {
				return
			}
		}
	}
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

// search10 searches a 10×10 position.
func (e *Engine) search10(j *job, threads []*thread, pos othello.Position, pl plan) {
	p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
	n := pos.Empties().Count()
	if pl.exact {
		runPhase(j, threads, func(t *thread) { t.solveRoot10(p, o, -1) })
		return
	}
	solve := pl.trySolve && n <= 24 && solveFits(n, 0, 0, pl.hard, 10)
	if solve {
		j.soft = min(pl.soft, pl.hard/8)
	}
	runPhase(j, threads, func(t *thread) { t.iterate10(p, o, pl.maxDepth) })
	mid := j.result()
	if !solve || mid.exact || j.stop.Load() {
		return
	}
	var nodes uint64
	for _, t := range threads {
		nodes += t.nodes
	}
	if !solveFits(n, nodes, j.elapsed(), pl.hard-j.elapsed(), 10) {
		j.soft = pl.soft
		runPhase(j, threads, func(t *thread) { t.iterate10(p, o, pl.maxDepth) })
		return
	}
	runPhase(j, threads, func(t *thread) { t.solveRoot10(p, o, mid.move) })
}
