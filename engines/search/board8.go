package search

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/othello"
)

// Masks of the 8×8 board.
const (
	colA8    = 0x0101010101010101
	colH8    = 0x8080808080808080
	notA8    = ^uint64(colA8)
	notH8    = ^uint64(colH8)
	row18    = 0xFF
	row88    = 0xFF00000000000000
	edges8   = colA8 | colH8 | row18 | row88
	corners8 = 1 | 1<<7 | 1<<56 | 1<<63
)

// pc is a short name for the population count in the hot paths.
func pc(x uint64) int { return bits.OnesCount64(x) }

// weighted8 counts the squares of x with the corners counted twice (Edax's
// bit_weighted_count, src/bit.c): the move orders weigh replies and
// potential moves by it.
func weighted8(x uint64) int { return pc(x) + pc(x&corners8) }

// neighbours8 returns the squares next to any square of x.
func neighbours8(x uint64) uint64 {
	l := (x >> 1) & notH8
	r := (x << 1) & notA8
	h := x | l | r
	return (h | h<<8 | h>>8) &^ x
}

// quadrants8 holds the four 4×4 quadrants, for parity.
var quadrants8 = [4]uint64{0x0F0F0F0F, 0xF0F0F0F0, 0x0F0F0F0F << 32, 0xF0F0F0F0 << 32}

// oddQuadrants8 returns the empties of the quadrants with an odd number of
// empties.
func oddQuadrants8(empty uint64) uint64 {
	var m uint64
	for _, q := range quadrants8 {
		if pc(empty&q)&1 != 0 {
			m |= empty & q
		}
	}
	return m
}

// adjacent8 holds, per square, its neighbours: a move there can flip only
// if an opponent disc is among them.
var adjacent8 = makeAdjacent8()

func makeAdjacent8() (a [64]uint64) {
	for sq := range a {
		a[sq] = neighbours8(1 << uint(sq))
	}
	return a
}

// capsFree is the placements-left figure of modes without reversi's cap.
const capsFree = 99

// legal8 returns the moves of p, none when p may place no more discs.
func legal8(p, o uint64, pl int) uint64 {
	if pl <= 0 {
		return 0
	}
	return othello.Legal8(p, o)
}

// A parity word holds one bit per quadrant (bit i: quadrants8[i]), set when
// the quadrant has an odd number of empties. The shallow solvers keep it
// along with the empties (a move flips its quadrant's bit) instead of
// counting the quadrants again at every node (Edax's search->parity and
// QUADRANT_ID, src/search.c).

// quadrantBit8 is, per square, the bit of its quadrant in a parity word.
var quadrantBit8 = makeQuadrantBit8()

func makeQuadrantBit8() (q [64]uint8) {
	for sq := range q {
		for i, m := range quadrants8 {
			if m>>uint(sq)&1 != 0 {
				q[sq] = 1 << uint(i)
			}
		}
	}
	return q
}

// parityMask8 is, per parity word, the squares of its odd quadrants.
var parityMask8 = makeParityMask8()

func makeParityMask8() (m [16]uint64) {
	for par := range m {
		for i, q := range quadrants8 {
			if par>>uint(i)&1 != 0 {
				m[par] |= q
			}
		}
	}
	return m
}

// parity8 is the parity word of empty.
func parity8(empty uint64) uint {
	var par uint
	for i, q := range quadrants8 {
		par |= uint(pc(empty&q)&1) << uint(i)
	}
	return par
}

// parityEmpties8 lists the (at most four) squares of empty, those of odd (a
// subset of empty) first, each part by square index: the order of solve3
// and solve4 (Edax's parity sort in search_solve_3 and search_solve_4).
func parityEmpties8(empty, odd uint64) (xs [4]int) {
	k := 0
	for e := odd; e != 0; e &= e - 1 {
		xs[k&3] = bits.TrailingZeros64(e)
		k++
	}
	for e := empty &^ odd; e != 0; e &= e - 1 {
		xs[k&3] = bits.TrailingZeros64(e)
		k++
	}
	return xs
}

// parityOrder8 splits empty in the order the shallow solvers try the
// squares: first those of quadrants with an odd number of empties (parity),
// then the others.
func parityOrder8(empty uint64) [2]uint64 {
	odd := oddQuadrants8(empty)
	return [2]uint64{empty & odd, empty &^ odd}
}

// flips8 is othello.Flips8 after a cheap test that an opponent disc is next
// to sq (else nothing can flip).
func flips8(p, o uint64, sq int) uint64 {
	if adjacent8[sq&63]&o == 0 {
		return 0
	}
	return othello.Flips8(p, o, sq)
}
