package search

import (
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// The 10×10 modes (grand, octagon) use the same algorithms as the 8×8 code
// on othello.Bits: the principal variation search of mid8.go (Marsland and
// Campbell 1982; NegaScout, Reinefeld 1983) with the table, Multi-ProbCut
// and internal iterative deepening, without the 8×8 code's size-specific
// tricks.

// midSolve10 is the number of empties from which a 10×10 midgame search that
// reaches the end calls the exact solver.
const midSolve10 = 10

// key10 is the table key of a 10×10 position.
func (t *thread) key10(p, o othello.Bits) uint64 {
	return hash10(p.Lo, p.Hi, o.Lo, o.Hi, t.salt)
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
			nextP, nextO := play10(p, o, sq, f)
			k = -t.ev10.Score10(nextP, nextO)
		default:
			nextP, nextO := play10(p, o, sq, f)
			k = -othello.Legal10(nextP, nextO, t.blocked).Count() << 4
		}
		list = append(list, move10{flips: f, sq: sq, key: k})
	}
	return list
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
		if p.IsZero() {
			// Wiped out: the game is over (see mid8).
			return t.endScore10(p, o, n) * eval.Disc
		}
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
			nextP, nextO := play10(p, o, sq, othello.Flips10(p, o, sq))
			t.nodes++
			var v int
			if nextP.IsZero() {
				v = t.endScore10(nextO, nextP, n-1) * eval.Disc // a wipe-out ends the game
			} else {
				v = -t.ev10.Score10(nextP, nextO)
			}
			if v > best {
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
		nextP, nextO := play10(p, o, mv.sq, mv.flips)
		lo := max(alpha, best)
		var v int
		if i == 0 || beta-lo <= 1 {
			v = -t.mid10(nextP, nextO, depth-1, -beta, -lo, false)
		} else {
			v = -t.mid10(nextP, nextO, depth-1, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.mid10(nextP, nextO, depth-1, -beta, -v, false)
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
