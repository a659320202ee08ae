package search

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// The 8×8 midgame search is a fail-soft principal variation search (T. A.
// Marsland and M. Campbell, "Parallel search of strongly ordered game
// trees", ACM Computing Surveys 14(4):533–551, 1982) in the form of
// NegaScout (A. Reinefeld, "An improvement to the Scout tree-search
// algorithm", ICCA Journal 6(4):4–14, 1983): the first move with the full
// window, the others with a null window, and one that fails high inside the
// window searched again from its value up. The same PVS runs in the 10×10
// search (mid10.go), both exact solvers (end8.go, end10.go) and the root
// searches (root8.go, root10.go). Around it: the transposition table
// (table.go), Multi-ProbCut (probcut.go), internal iterative deepening for a
// first move, and the exact solver near the end.

// midSolve is the number of empties from which a midgame search that
// reaches the end of the game calls the exact solver instead.
const midSolve = 12

// key8 is the table key of an 8×8 position with n empties and its
// placements left. The counts are left out when the cap cannot bind (every
// mode but reversi, and reversi when both colours may fill the board), so
// that midgame and solver entries of one position meet.
func (t *thread) key8(p, o uint64, pl, ol, n int) uint64 {
	if pl >= n && ol >= n {
		return hash8(p, o, t.salt)
	}
	return hash8(p, o, t.salt+uint64(pl)<<8+uint64(ol)+1<<20)
}

// mid8 is the midgame search: a fail-soft PVS to depth plies in evaluation
// units, with the table, internal iterative deepening for a first move,
// and a move order by shallow evaluation. Near the end it hands over to the
// exact solver. A leaf where a colour has no disc left is the end of the
// game and gets its final score, never the evaluation's: the evaluation
// cannot tell (it scores such a position like any other, bounded, even
// with the wrong sign), and Multi-ProbCut's shallow searches, whose
// horizon falls inside the tree (nested down to one ply), would otherwise
// predict from it and cut a forced wipe-out away (issue 38).
func (t *thread) mid8(p, o uint64, pl, ol, depth, alpha, beta int, passed bool) int {
	empty := ^(p | o)
	n := pc(empty)
	if depth >= n && n <= midSolve {
		v := t.exact8(p, o, pl, ol, floorDiv(alpha, eval.Disc), ceilDiv(beta, eval.Disc), passed)
		return v * eval.Disc
	}
	t.nodes++
	if t.poll() {
		return 0
	}
	if depth <= 0 {
		if p == 0 {
			// Wiped out: the game is over, and the evaluation, which
			// cannot tell, must not score it.
			return t.endScore8(p, o) * eval.Disc
		}
		return t.ev8.Score8(p, o, pl, ol)
	}
	moves := legal8(p, o, pl)
	if moves == 0 {
		if passed || legal8(o, p, ol) == 0 {
			return t.endScore8(p, o) * eval.Disc
		}
		return -t.mid8(o, p, ol, pl, depth, -beta, -alpha, true)
	}
	if depth == 1 {
		// The last ply: evaluate each child, no table, no ordering.
		best := -inf
		for m := moves; m != 0; m &= m - 1 {
			sq := bits.TrailingZeros64(m)
			f := othello.Flips8(p, o, sq)
			b := uint64(1) << uint(sq)
			t.nodes++
			var v int
			if o&^f == 0 {
				v = t.endScore8(p|f|b, 0) * eval.Disc // a wipe-out ends the game
			} else {
				v = -t.ev8.Score8(o&^f, p|f|b, ol, pl-1)
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
	key := t.key8(p, o, pl, ol, n)
	ttMove := -1
	if e, ok := t.tt.probe(key); ok {
		var v int
		var cut bool
		if alpha, beta, v, cut = e.window(eval.Disc, depth, alpha, beta); cut {
			return v
		}
		ttMove = e.move
	}
	if t.probCut8(p, o, pl, ol, n, depth, alpha, beta, passed) {
		if t.aborted {
			return 0
		}
		return t.cutValue
	}
	if ttMove < 0 && depth >= 5 {
		// Internal iterative deepening: a shallower search finds a first
		// move for the table.
		t.mid8(p, o, pl, ol, depth-3, alpha, beta, passed)
		if t.aborted {
			return 0
		}
		if e, ok := t.tt.probe(key); ok {
			ttMove = e.move
		}
	}
	var buf [34]move8
	list := buf[:0]
	for m := moves; m != 0; m &= m - 1 {
		sq := bits.TrailingZeros64(m)
		b := uint64(1) << uint(sq)
		f := othello.Flips8(p, o, sq)
		var k int
		switch {
		case sq == ttMove:
			k = 1 << 24
		case depth >= 3:
			k = -t.ev8.Score8(o&^f, p|f|b, ol, pl-1)
		default:
			nextO := p | f | b
			nextP := o &^ f
			r := othello.Legal8(nextP, nextO)
			k = -weighted8(r)<<4 - pc(neighbours8(nextO)&empty&^b)
			if b&corners8 != 0 {
				k += 32
			}
		}
		list = append(list, move8{flips: f, sq: sq, key: k})
	}
	best, bestMove := -inf, -1
	for i := range list {
		pickBest(list, i)
		mv := &list[i]
		b := uint64(1) << uint(mv.sq)
		nextO := p | mv.flips | b
		nextP := o &^ mv.flips
		lo := max(alpha, best)
		var v int
		if i == 0 || beta-lo <= 1 {
			v = -t.mid8(nextP, nextO, ol, pl-1, depth-1, -beta, -lo, false)
		} else {
			v = -t.mid8(nextP, nextO, ol, pl-1, depth-1, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.mid8(nextP, nextO, ol, pl-1, depth-1, -beta, -v, false)
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

// probCut8 tries a Multi-ProbCut at a null-window node of mid8 (see
// probcut.go): it reports a cut, with the value to return in t.cutValue. It
// never applies when the search reaches the end of the game (depth ≥ n), so
// that a full-depth midgame search stays exact.
func (t *thread) probCut8(p, o uint64, pl, ol, n, depth, alpha, beta int, passed bool) bool {
	if depth < probCutMinDepth || depth >= n || beta-alpha != 1 {
		return false
	}
	c, ok := t.mpc.cell(n, depth)
	if !ok {
		return false
	}
	lo, hi := c.bounds(alpha, beta)
	if v := t.mid8(p, o, pl, ol, c.shallow, hi-1, hi, passed); v >= hi || t.aborted {
		t.cutValue = beta
		return true
	}
	if v := t.mid8(p, o, pl, ol, c.shallow, lo, lo+1, passed); v <= lo || t.aborted {
		t.cutValue = alpha
		return true
	}
	return false
}
