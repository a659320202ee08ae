package search

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/othello"
)

// solveCap8 is the exact solver for classic reversi positions in which a
// colour's cap (pl, ol: discs each may still place) can stop it before the
// board is full. A colour without placements left passes. Once both may
// fill the board it hands over to solve8.
func (t *thread) solveCap8(p, o uint64, pl, ol, alpha, beta int, passed bool) int {
	empty := ^(p | o)
	n := pc(empty)
	if pl >= n && ol >= n {
		return t.solve8(p, o, alpha, beta, passed)
	}
	if n <= endShallow {
		return t.solveCapShallow(p, o, pl, ol, alpha, beta, passed, empty)
	}
	t.nodes++
	if t.poll() {
		return 0
	}
	moves := legal8(p, o, pl)
	if moves == 0 {
		if passed || legal8(o, p, ol) == 0 {
			return t.endScore8(p, o)
		}
		return -t.solveCap8(o, p, ol, pl, -beta, -alpha, true)
	}
	key := t.key8(p, o, pl, ol, n)
	ttMove := -1
	if e, ok := t.tt.probe(key); ok {
		var v int
		var cut bool
		if alpha, beta, v, cut = e.window(1, n, alpha, beta); cut {
			return v
		}
		ttMove = e.move
	}
	var buf [34]move8
	list := buf[:0]
	for m := moves; m != 0; m &= m - 1 {
		sq := bits.TrailingZeros64(m)
		b := uint64(1) << uint(sq)
		f := othello.Flips8(p, o, sq)
		k := 0
		if sq == ttMove {
			k = 1 << 20
		} else {
			r := legal8(o&^f, p|f|b, ol)
			k = -weighted8(r) << 4
		}
		list = append(list, move8{flips: f, sq: sq, key: k})
	}
	best, bestMove := -inf, -1
	for i := range list {
		pickBest(list, i)
		mv := &list[i]
		b := uint64(1) << uint(mv.sq)
		v := -t.solveCap8(o&^mv.flips, p|mv.flips|b, ol, pl-1, -beta, -max(alpha, best), false)
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
	e := entry{lower: -64, upper: 64, move: bestMove, depth: n, kind: kindEnd}
	if best > alpha {
		e.lower = best
	}
	if best < beta {
		e.upper = best
	}
	t.tt.store(key, e)
	return best
}

// solveCapShallow is solveCap8 near the end: parity order, no table, no
// move list.
func (t *thread) solveCapShallow(p, o uint64, pl, ol, alpha, beta int, passed bool, empty uint64) int {
	t.nodes++
	if empty == 0 {
		return t.fullScore8(p)
	}
	if t.poll() {
		return 0
	}
	best := -inf
	if pl > 0 {
		for _, e := range parityOrder8(empty) {
			for ; e != 0; e &= e - 1 {
				sq := bits.TrailingZeros64(e)
				f := flips8(p, o, sq)
				if f == 0 {
					continue
				}
				b := uint64(1) << uint(sq)
				v := -t.solveCapShallow(o&^f, p|f|b, ol, pl-1, -beta, -max(alpha, best), false, empty^b)
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
	}
	if best == -inf {
		if passed {
			return t.endScore8(p, o)
		}
		return -t.solveCapShallow(o, p, ol, pl, -beta, -alpha, true, empty)
	}
	return best
}
