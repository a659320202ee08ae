package search

import "flipbot.dev/flipbot/engines/othello"

// The 10×10 board (grand, octagon) on othello.Bits: making a move, the
// neighbour and quadrant tables of the shallow solver, and the empties.

// play10 returns the position after p plays sq flipping f: nextP, the
// side to move there (p's opponent), and nextO, its opponent (p).
func play10(p, o othello.Bits, sq int, f othello.Bits) (nextP, nextO othello.Bits) {
	f = f.Or(othello.Bit(sq))
	return o.AndNot(f), p.Or(f)
}

// empties10 returns the number of empty playable squares.
func (t *thread) empties10(p, o othello.Bits) int {
	return 100 - t.blocked.Count() - p.Count() - o.Count()
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
