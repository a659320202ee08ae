package search

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// The exact solver is the PVS of mid8.go on disc scores, with the endgame
// techniques of Edax (Richard Delorme, Edax 4.4, 2017; the functions named
// are Edax's):
//   - the last empty scored by counting flips without making the move,
//     with Edax 4.6's lazy cut (last8.go; board_score_1 / solve_1 and
//     count_last_flip in src/endgame.c and
//     src/count_last_flip_kindergarten.c);
//   - 2, 3 and 4 empties written out (last8.go; board_solve_2,
//     search_solve_3, search_solve_4), without stop polls;
//   - up to endShallow = 7 empties (DEPTH_TO_SHALLOW_SEARCH in
//     src/settings.h) no table and no move list, the empties tried in parity
//     order, those of quadrants with an odd number of empties first
//     (search_shallow), the quadrants' parity kept in a word along with the
//     empties (Edax's search->parity);
//   - above, fastest-first order: fewest opponent replies with the corners
//     counted twice, then the mover's corner-stable discs, the opponent's
//     potential mobility, parity and a static square value (fastKey8; Edax
//     4.6's movelist_evaluate_fast in src/move.c, bit_weighted_count in
//     src/bit.c);
//   - from endEvalOrder empties, Edax's order for the upper tree
//     (move_evaluate's sort by a shallow search plus weighted mobility): the
//     midgame evaluation, from endSearchOrder a shallow midgame search,
//     minus endMobWeight per opponent reply (corners counted twice);
//   - the stability cutoff from Edax's thresholds (search_SC_NWS and
//     NWS_STABILITY_THRESHOLD in src/search.c).
//
// The enhanced transposition cutoff is from A. Plaat, J. Schaeffer, W. Pijls
// and A. de Bruin, "Exploiting graph properties of game trees", AAAI-96. Deep
// nodes share their moves between threads by YBWC (ybwc.go).

// Empties at which the exact solver changes technique.
const (
	endShallow = 7 // at most this many empties: parity order, no table
	endTable   = 9 // at least this many: transposition table
	// endEvalOrder is the number of empties from which moves are ordered
	// by the midgame evaluation rather than by fewest replies.
	endEvalOrder = 14
	// endSearchOrder is the number of empties from which moves are
	// ordered by a shallow midgame search.
	endSearchOrder = 16
	// The shallow search is endSortDepth0 deep at endSearchOrder empties,
	// one more every endSortStep empties.
	endSortDepth0 = 1
	endSortStep   = 2
	// endMobWeight is what an opponent reply costs a move in that order,
	// in hundredths of a disc: 2 discs, as in move_evaluate at sort depths
	// 1 and 2 (w_eval = w_mobility = 2^15, the score in discs halved).
	// With it and the shallower sort searches, FFO #40–47 takes 743 M
	// nodes on one thread against 804 M (docs/measurements,
	// 2026-12-05-solver-order-and-ponder-yield.md).
	endMobWeight = 200
	// endETC is the number of empties from which children are looked up in
	// the table before the search (enhanced transposition cutoff).
	endETC = 12
)

// stabilityThreshold[n] is the alpha from which a stability cutoff is tried
// at n empties (Edax 4.4's NWS_STABILITY_THRESHOLD): below it the bound
// cannot cut.
var stabilityThreshold = [...]int{99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50, 52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64}

// exact8 solves p to move exactly and returns discs, routing reversi
// positions whose cap can still bind to the capped solver.
func (t *thread) exact8(p, o uint64, pl, ol, alpha, beta int, passed bool) int {
	n := 64 - pc(p|o)
	if pl < n || ol < n {
		return t.solveCap8(p, o, pl, ol, alpha, beta, passed)
	}
	return t.solve8(p, o, alpha, beta, passed)
}

// endScore8 is the final score for p of a finished 8×8 game.
func (t *thread) endScore8(p, o uint64) int {
	discsP, discsO := pc(p), pc(o)
	d := discsP - discsO
	if t.anti {
		d = -d
	}
	if t.toWinner {
		e := 64 - discsP - discsO
		if d > 0 {
			d += e
		} else if d < 0 {
			d -= e
		}
	}
	return d
}

// fullScore8 is the score for p of a full 8×8 board.
func (t *thread) fullScore8(p uint64) int {
	d := 2*pc(p) - 64
	if t.anti {
		return -d
	}
	return d
}

// solve8 returns the exact final score of p to move (discs, the mode's
// scoring), fail-soft within (alpha, beta). passed reports that the
// previous move was a pass.
func (t *thread) solve8(p, o uint64, alpha, beta int, passed bool) int {
	empty := ^(p | o)
	switch n := pc(empty); {
	case n == 0:
		t.nodes++
		return t.fullScore8(p)
	case n == 1:
		t.nodes++
		return t.lastScore8(p, bits.TrailingZeros64(empty), alpha, beta)
	case n == 2:
		x1 := bits.TrailingZeros64(empty)
		return t.solve2(p, o, alpha, beta, passed, x1, bits.TrailingZeros64(empty&(empty-1)))
	case n == 3:
		return t.solve3(p, o, alpha, beta, passed, empty, parity8(empty))
	case n == 4:
		return t.solve4(p, o, alpha, beta, passed, empty, parity8(empty))
	case n <= endShallow:
		return t.solveShallow(p, o, alpha, beta, passed, empty, n, parity8(empty))
	default:
		return t.solveDeep(p, o, alpha, beta, passed, n)
	}
}

// solveShallow searches 5 to endShallow empties (n of them, the squares of
// empty; par their parity word) in parity order, without the table and
// without a move list: each empty square is tried in turn and flips8 says
// whether it is legal. Its children with 4 empties go to solve4 (last8.go).
func (t *thread) solveShallow(p, o uint64, alpha, beta int, passed bool, empty uint64, n int, par uint) int {
	t.nodes++
	if t.poll() {
		return 0
	}
	if up, cut := t.stabilityCut8(p, o, alpha, n); cut {
		return up
	}
	best := -inf
	odd := empty & parityMask8[par&15]
	// Edax's presorted order of the empties (presorted_x in src/search.c)
	// as four square tiers inside each parity class saved 5.5 % of the
	// nodes on FFO #40–44 but cost more time than it saved (the extra
	// loops' branches): square index order here.
	for _, e := range [2]uint64{odd, empty &^ odd} {
		for ; e != 0; e &= e - 1 {
			sq := bits.TrailingZeros64(e)
			f := flips8(p, o, sq)
			if f == 0 {
				continue
			}
			b := uint64(1) << uint(sq)
			var v int
			if n == 5 {
				v = -t.solve4(o&^f, p|f|b, -beta, -max(alpha, best), false, empty^b, par^uint(quadrantBit8[sq&63]))
			} else {
				v = -t.solveShallow(o&^f, p|f|b, -beta, -max(alpha, best), false, empty^b, n-1, par^uint(quadrantBit8[sq&63]))
			}
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
			return t.endScore8(p, o)
		}
		return -t.solveShallow(o, p, -beta, -alpha, true, empty, n, par)
	}
	return best
}

// stabilityCut8 is the stability cutoff (Edax's search_SC_NWS): the
// opponent's stable discs (in anti the player's own) bound the score from
// above, and a bound at or below alpha is returned at once. It is tried only
// from stabilityThreshold[n], below which it cannot cut.
func (t *thread) stabilityCut8(p, o uint64, alpha, n int) (int, bool) {
	if alpha < stabilityThreshold[n] {
		return 0, false
	}
	side, other := o, p // whose stable discs bound the score
	if t.anti {
		side, other = p, o
	}
	// Without enough discs on that side no count of stable ones can cut:
	// skip the stability's propagation.
	if 64-2*pc(side) > alpha {
		return 0, false
	}
	if up := 64 - 2*pc(eval.Stable8(side, other)); up <= alpha {
		return up, true
	}
	return 0, false
}

// solveDeep searches positions with more than endShallow empties: stability
// cutoff, table, fastest-first order (fewest replies first, corners
// weighing double), PVS.
func (t *thread) solveDeep(p, o uint64, alpha, beta int, passed bool, n int) int {
	t.nodes++
	if t.poll() {
		return 0
	}
	moves := othello.Legal8(p, o)
	if moves == 0 {
		if passed {
			return t.endScore8(p, o)
		}
		if othello.Legal8(o, p) == 0 {
			return t.endScore8(p, o)
		}
		return -t.solveDeep(o, p, -beta, -alpha, true, n)
	}
	if up, cut := t.stabilityCut8(p, o, alpha, n); cut {
		return up
	}
	var key uint64
	ttMove := -1
	if n >= endTable {
		key = hash8(p, o, t.salt)
		if e, ok := t.tt.probe(key); ok {
			var v int
			var cut bool
			if alpha, beta, v, cut = e.endWindow(t.level, n, alpha, beta); cut {
				return v
			}
			ttMove = e.move
		}
	}
	if t.level > 0 && n >= endCutMin && beta-alpha == 1 {
		// A selective pass: Multi-ProbCut (endcut.go).
		if v, cut := t.endCut8(p, o, n, alpha, beta, passed); cut {
			if t.aborted {
				return 0
			}
			return v
		}
	}
	var buf [34]move8
	list := buf[:0]
	empty := ^(p | o)
	odd := oddQuadrants8(empty)
	for m := moves; m != 0; m &= m - 1 {
		sq := bits.TrailingZeros64(m)
		b := uint64(1) << uint(sq)
		f := othello.Flips8(p, o, sq)
		if n >= endETC {
			// Enhanced transposition cutoff: a child already known to
			// be bad enough for the opponent cuts at once.
			if e, ok := t.tt.probe(hash8(o&^f, p|f|b, t.salt)); ok && e.trusted(t.level) && -e.upper >= beta {
				return -e.upper
			}
		}
		var k int
		switch {
		case sq == ttMove:
			k = 1 << 20
		case n >= endEvalOrder:
			// High in the tree: a midgame evaluation (higher still, a
			// shallow midgame search) with the opponent's replies.
			nextO := p | f | b
			nextP := o &^ f
			var s int
			if n >= endSearchOrder {
				s = t.mid8(nextP, nextO, capsFree, capsFree, endSortDepth0+(n-endSearchOrder)/endSortStep, -inf, inf, false)
			} else {
				s = t.ev8.Score8(nextP, nextO, capsFree, capsFree)
			}
			r := othello.Legal8(nextP, nextO)
			k = -s - endMobWeight*weighted8(r)
		default:
			nextO := p | f | b
			nextP := o &^ f
			k = t.fastKey8(nextP, nextO, empty&^b, sq, odd&b != 0, n)
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
			v = -t.solve8(nextP, nextO, -beta, -lo, false)
		} else {
			v = -t.solve8(nextP, nextO, -lo-1, -lo, false)
			if v > lo && v < beta && !t.aborted {
				v = -t.solve8(nextP, nextO, -beta, -v, false)
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
		if i == 0 && n >= splitMin && len(list) > 1 && t.canSplit() {
			// Young brothers wait: the first move is done, an idle
			// thread may take the others.
			best, bestMove = t.split(p, o, capsFree, capsFree, alpha, beta, best, bestMove, list[1:])
			if t.aborted {
				return 0
			}
			break
		}
	}
	if n >= endTable {
		e := entry{lower: -64, upper: 64, move: bestMove, depth: n, kind: kindEnd}
		if t.level > 0 {
			e.kind, e.level = kindEndSel, t.level
		}
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

// squareValue8 is a static value per square (JCW's, as Edax 4.6's
// SQUARE_VALUE in src/move.c): corners high, X- and C-squares low. It
// breaks ties in the fastest-first order.
var squareValue8 = [64]int8{
	18, 4, 16, 12, 12, 16, 4, 18,
	4, 2, 6, 8, 8, 6, 2, 4,
	16, 6, 14, 10, 10, 14, 6, 16,
	12, 8, 10, 0, 0, 10, 8, 12,
	12, 8, 10, 0, 0, 10, 8, 12,
	16, 6, 14, 10, 10, 14, 6, 16,
	4, 2, 6, 8, 8, 6, 2, 4,
	18, 4, 16, 12, 12, 16, 4, 18,
}

// cornerStable8 counts x's corners and the edge squares next to them that
// x also holds (Edax's get_corner_stability): discs that can never flip.
func cornerStable8(x uint64) int {
	c := x & corners8
	near := (c&(1|1<<56))<<1 | (c&(1<<7|1<<63))>>1 | (c&(1|1<<7))<<8 | (c&(1<<56|1<<63))>>8
	return pc(c | near&x)
}

// fastKey8 is the fastest-first key of the move to sq that leaves p (the
// opponent, to move) and o (the mover) with empty left, by Edax 4.6's
// movelist_evaluate_fast: the opponent's replies weigh most (corners
// counted twice), then the mover's discs stable by a corner, then the
// opponent's potential mobility (corners twice), then parity and the
// square's static value. A move that wipes the opponent out comes first
// (in anti, where it loses, last).
func (t *thread) fastKey8(p, o, empty uint64, sq int, odd bool, n int) int {
	if p == 0 {
		if t.anti {
			return -1 << 30
		}
		return 1 << 19
	}
	r := othello.Legal8(p, o)
	pot := neighbours8(o) & empty
	k := int(squareValue8[sq]) - weighted8(r)<<15 + cornerStable8(o)<<11 - weighted8(pot)<<5
	if odd {
		if n < 12 {
			k += 8
		} else {
			k += 4
		}
	}
	return k
}
