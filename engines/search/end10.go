package search

import "flipbot.dev/flipbot/engines/othello"

// The 10×10 exact solver is the PVS of mid8.go on disc scores with the
// table and fastest-first order; near the end (endShallow10 empties) it
// borrows Edax's shallow search (see end8.go): no table, no move list,
// parity order over the four 5×5 quadrants, and the last empty scored by
// counting flips.

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
		nextP, nextO := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 || beta-lo <= 1 {
			v = -t.solve10(nextP, nextO, -beta, -lo, false)
		} else {
			v = -t.solve10(nextP, nextO, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.solve10(nextP, nextO, -beta, -v, false)
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
			nextP, nextO := play10(p, o, sq, f)
			v := -t.solveShallow10(nextP, nextO, -beta, -max(alpha, best), false, empty.AndNot(b), n-1)
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
	discsP, discsO := p.Count(), o.Count()
	if f := flips10(p, o, sq); !f.IsZero() {
		k := f.Count()
		return discsP + k + 1 - (discsO - k)
	}
	if f := flips10(o, p, sq); !f.IsZero() {
		k := f.Count()
		return discsP - k - (discsO + k + 1)
	}
	return t.endScore10(p, o, 1)
}
