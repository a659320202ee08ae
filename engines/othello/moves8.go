package othello

import "math/bits"

// notEdges8 masks out columns a and h: a run of discs flipped along a row or
// a diagonal never includes them, which stops shifts from wrapping rows.
const notEdges8 = 0x7E7E7E7E7E7E7E7E

// Legal8 returns the legal moves of the player with discs p against the
// opponent with discs o on an 8×8 board (normal rules: a move must flip).
// All eight directions are filled at once by shifts; no square is visited.
// A run of flipped discs has at most six discs: two single steps, then two
// doubling steps. The shifts are constants so that the compiler keeps the
// whole function in registers (a loop over directions runs 3× slower).
func Legal8(p, o uint64) uint64 {
	in := o & notEdges8

	// ±1 (rows)
	l := in & (p << 1)
	r := in & (p >> 1)
	l |= in & (l << 1)
	r |= in & (r >> 1)
	pl := in & (in << 1)
	pr := pl >> 1
	l |= pl & (l << 2)
	r |= pr & (r >> 2)
	l |= pl & (l << 2)
	r |= pr & (r >> 2)
	m := l<<1 | r>>1

	// ±8 (columns)
	l = o & (p << 8)
	r = o & (p >> 8)
	l |= o & (l << 8)
	r |= o & (r >> 8)
	pl = o & (o << 8)
	pr = pl >> 8
	l |= pl & (l << 16)
	r |= pr & (r >> 16)
	l |= pl & (l << 16)
	r |= pr & (r >> 16)
	m |= l<<8 | r>>8

	// ±7 (anti-diagonals)
	l = in & (p << 7)
	r = in & (p >> 7)
	l |= in & (l << 7)
	r |= in & (r >> 7)
	pl = in & (in << 7)
	pr = pl >> 7
	l |= pl & (l << 14)
	r |= pr & (r >> 14)
	l |= pl & (l << 14)
	r |= pr & (r >> 14)
	m |= l<<7 | r>>7

	// ±9 (diagonals)
	l = in & (p << 9)
	r = in & (p >> 9)
	l |= in & (l << 9)
	r |= in & (r >> 9)
	pl = in & (in << 9)
	pr = pl >> 9
	l |= pl & (l << 18)
	r |= pr & (r >> 18)
	l |= pl & (l << 18)
	r |= pr & (r >> 18)
	m |= l<<9 | r>>9

	return m &^ (p | o)
}

// rays8 holds, per square, the squares strictly beyond it in each of the
// eight directions up to the edge: indices 0–3 go towards higher squares
// (+1, +7, +8, +9), 4–7 towards lower ones (−1, −7, −8, −9).
var rays8 = makeRays8()

func makeRays8() (r [64][8]uint64) {
	steps := [8][2]int{{0, 1}, {1, -1}, {1, 0}, {1, 1}, {0, -1}, {-1, 1}, {-1, 0}, {-1, -1}}
	for sq := 0; sq < 64; sq++ {
		for d, st := range steps {
			row, col := sq/8+st[0], sq%8+st[1]
			for row >= 0 && row < 8 && col >= 0 && col < 8 {
				r[sq][d] |= 1 << uint(row*8+col)
				row, col = row+st[0], col+st[1]
			}
		}
	}
	return r
}

// Flips8 returns the discs that a move of p on square sq turns over, given
// the opponent's discs o (8×8, normal rules). It does not check that sq is
// empty; an empty result means the move is not legal.
func Flips8(p, o uint64, sq int) uint64 {
	r := &rays8[sq&63]
	return flipUp8(p, o, r[0]) | flipUp8(p, o, r[1]) | flipUp8(p, o, r[2]) | flipUp8(p, o, r[3]) |
		flipDown8(p, o, r[4]) | flipDown8(p, o, r[5]) | flipDown8(p, o, r[6]) | flipDown8(p, o, r[7])
}

// flipUp8 flips along a ray that runs towards higher squares: the first
// square of the ray that is not the opponent's must be the player's.
func flipUp8(p, o, ray uint64) uint64 {
	x := ray &^ o
	out := x & -x & p
	// out−1 covers every square below the outflanking disc; when there is
	// none, out−1 is all ones and the sign mask clears the result.
	return (out - 1) & ray &^ uint64(int64(out-1)>>63)
}

// flipDown8 flips along a ray that runs towards lower squares: the highest
// square of the ray that is not the opponent's must be the player's.
func flipDown8(p, o, ray uint64) uint64 {
	x := ray &^ o
	// The top square of x; when x is empty this names h8, which no downward
	// ray holds, and out<<1−1 is then all ones, so nothing flips.
	out := uint64(1) << (uint(bits.Len64(x)-1) & 63) & p
	return ray &^ (out<<1 - 1)
}
