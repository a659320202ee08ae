package search

import "math/bits"

// lastLines8 holds, per square, the masks of its column and its two
// diagonals and the multiplier that gathers its column into the top byte
// (row i as bit i), for lastFlips8.
type lastLines8 struct{ col, colIn, d9, d7 uint64 }

// lastTables8 is what lastFlips8 looks up: the diagonals of each square and,
// per position in a line of eight and per set of the player's squares on
// it, the discs a move there flips when every other square of the line is
// the opponent's or off the line.
type lastTables8 struct {
	lines [64]lastLines8
	count [8][256]uint8
}

var lastTab8 = makeLastTables8()

func makeLastTables8() (t lastTables8) {
	for sq := range 64 {
		r, c := sq/8, sq%8
		t.lines[sq].col = colA8 << uint(c)
		t.lines[sq].colIn = 0x0102040810204080 >> uint(c)
		for sq2 := range 64 {
			r2, c2 := sq2/8, sq2%8
			if r2-c2 == r-c {
				t.lines[sq].d9 |= 1 << uint(sq2)
			}
			if r2+c2 == r+c {
				t.lines[sq].d7 |= 1 << uint(sq2)
			}
		}
	}
	for pos := range 8 {
		for idx := range 256 {
			n := 0
			for _, dir := range [2]int{-1, 1} {
				for i, run := pos+dir, 0; i >= 0 && i < 8; i, run = i+dir, run+1 {
					if idx>>uint(i)&1 != 0 {
						n += run
						break
					}
				}
			}
			t.count[pos][idx] = uint8(n)
		}
	}
	return t
}

// lastFlips8 returns how many discs p flips by playing sq, the only empty
// square of the board (every other square not p's is the opponent's), without
// making the move: each of the four lines through sq is gathered into a byte
// indexed by column (row for the column line) and looked up. The last empty
// is the solver's most frequent node, and this is its fast path (Edax 4.4's
// count_last_flip, src/count_last_flip_kindergarten.c: a multiplication
// gathers a line into a byte that indexes a table of flip counts).
func lastFlips8(p uint64, sq int) int {
	t := &lastTab8
	l := &t.lines[sq&63]
	cc := &t.count[sq&7]
	return int(cc[uint8(p>>(uint(sq)&^7))]) + int(t.count[sq>>3&7][(p&l.col)*l.colIn>>56]) +
		int(cc[(p&l.d9)*colA8>>56]) + int(cc[(p&l.d7)*colA8>>56])
}

// lastScore8 is the exact score with one empty square sq left: p plays it if
// it flips, else the opponent, else nobody. It only counts flips (lastFlips8)
// and never builds the final board.
//
// The lazy cut (Edax 4.6's solve_1, src/endgame.c): when p cannot play sq,
// the opponent's move there can only lower p's score below the one of the
// game ending with sq empty (every disc it flips is taken from p), so once
// that score is at most alpha it is returned as the fail-low bound without
// counting the opponent's flips; in anti, where the opponent's flips raise
// p's score, the same holds at beta.
func (t *thread) lastScore8(p uint64, sq int, alpha, beta int) int {
	discsP := bits.OnesCount64(p)
	// lastFlips8(p, sq) written out (its cost is just above the compiler's
	// inlining budget, and this is the solver's most frequent call).
	l := &lastTab8.lines[sq&63]
	cc := &lastTab8.count[sq&7]
	n := int(cc[uint8(p>>(uint(sq)&^7))]) + int(lastTab8.count[sq>>3&7][(p&l.col)*l.colIn>>56]) +
		int(cc[(p&l.d9)*colA8>>56]) + int(cc[(p&l.d7)*colA8>>56])
	if n > 0 {
		d := 2*(discsP+n+1) - 64
		if t.anti {
			return -d
		}
		return d
	}
	o := ^p &^ (1 << uint(sq))
	none := t.endScore8(p, o)
	if t.anti {
		if none >= beta {
			return none
		}
	} else if none <= alpha {
		return none
	}
	n = lastFlips8(o, sq)
	if n == 0 {
		return none
	}
	d := 2*(discsP-n) - 64
	if t.anti {
		return -d
	}
	return d
}

// The last two to four empties are written out, as in Edax (board_solve_2,
// search_solve_3, search_solve_4 in Edax 4.4's src/endgame.c; solve_2 …
// search_solve_4 in 4.6): no stop poll, no table, the squares passed as
// they are, the parity word kept by the caller.

// solve2 is the score with the two empties x1, x2 left.
func (t *thread) solve2(p, o uint64, alpha, beta int, passed bool, x1, x2 int) int {
	t.nodes++
	best := -inf
	if f := flips8(p, o, x1); f != 0 {
		t.nodes++
		best = -t.lastScore8(o&^f, x2, -beta, -alpha)
		if best >= beta {
			return best
		}
	}
	if f := flips8(p, o, x2); f != 0 {
		t.nodes++
		if v := -t.lastScore8(o&^f, x1, -beta, -max(alpha, best)); v > best {
			best = v
		}
	}
	if best == -inf {
		if passed {
			return t.endScore8(p, o)
		}
		return -t.solve2(o, p, -beta, -alpha, true, x1, x2)
	}
	return best
}

// solve3 is the score with the three empties of empty left (par, their
// parity word).
func (t *thread) solve3(p, o uint64, alpha, beta int, passed bool, empty uint64, par uint) int {
	t.nodes++
	xs := parityEmpties8(empty, empty&parityMask8[par&15])
	x1, x2, x3 := xs[0], xs[1], xs[2]
	best := -inf
	if f := flips8(p, o, x1); f != 0 {
		best = -t.solve2(o&^f, p|f|1<<uint(x1), -beta, -alpha, false, x2, x3)
		if best >= beta {
			return best
		}
	}
	if f := flips8(p, o, x2); f != 0 {
		v := -t.solve2(o&^f, p|f|1<<uint(x2), -beta, -max(alpha, best), false, x1, x3)
		if v > best {
			best = v
			if v >= beta {
				return v
			}
		}
	}
	if f := flips8(p, o, x3); f != 0 {
		v := -t.solve2(o&^f, p|f|1<<uint(x3), -beta, -max(alpha, best), false, x1, x2)
		if v > best {
			best = v
		}
	}
	if best == -inf {
		if passed {
			return t.endScore8(p, o)
		}
		return -t.solve3(o, p, -beta, -alpha, true, empty, par)
	}
	return best
}

// solve4 is the score with the four empties of empty left (par, their
// parity word): the stability cutoff, then the squares of odd quadrants
// first.
func (t *thread) solve4(p, o uint64, alpha, beta int, passed bool, empty uint64, par uint) int {
	t.nodes++
	if up, cut := t.stabilityCut8(p, o, alpha, 4); cut {
		return up
	}
	best := -inf
	for _, sq := range parityEmpties8(empty, empty&parityMask8[par&15]) {
		f := flips8(p, o, sq)
		if f == 0 {
			continue
		}
		b := uint64(1) << uint(sq)
		v := -t.solve3(o&^f, p|f|b, -beta, -max(alpha, best), false, empty^b, par^uint(quadrantBit8[sq&63]))
		if v > best {
			best = v
			if v >= beta {
				return v
			}
		}
	}
	if best == -inf {
		if passed {
			return t.endScore8(p, o)
		}
		return -t.solve4(o, p, -beta, -alpha, true, empty, par)
	}
	return best
}
