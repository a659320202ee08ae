package search

import "math/bits"

// lastLines8 holds, per square, the masks of its two diagonals, for
// lastFlips8.
type lastLines8 struct{ d9, d7 uint64 }

// lastTables8 is what lastFlips8 looks up: the diagonals of each square and,
// per position in a line of eight and per set of the player's squares on
// it, the discs a move there flips when every other square of the line is
// the opponent's or off the line.
type lastTables8 struct {
	lines [64]lastLines8
	count [8][256]uint8
}

var lastTab8 = makeLastTables8()

func makeLastTables8() *lastTables8 {
	t := &lastTables8{}
	for sq := range 64 {
		r, c := sq/8, sq%8
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
	t := lastTab8
	r, c := uint(sq>>3), uint(sq&7)
	l := &t.lines[sq&63]
	row := p >> (r * 8) & 0xFF
	col := (p >> c & colA8) * 0x0102040810204080 >> 56
	d9 := (p & l.d9) * colA8 >> 56
	d7 := (p & l.d7) * colA8 >> 56
	cc := &t.count[c]
	return int(cc[row]) + int(t.count[r&7][col]) + int(cc[d9]) + int(cc[d7])
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
	if n := lastFlips8(p, sq); n > 0 {
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
	n := lastFlips8(o, sq)
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
	xs := parityEmpties8(empty, empty&parityMask8[par])
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
	for _, sq := range parityEmpties8(empty, empty&parityMask8[par]) {
		f := flips8(p, o, sq)
		if f == 0 {
			continue
		}
		b := uint64(1) << uint(sq)
		v := -t.solve3(o&^f, p|f|b, -beta, -max(alpha, best), false, empty^b, par^uint(quadrantBit8[sq]))
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
