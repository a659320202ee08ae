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

// flipRays8 holds the rays of one square for Flips8. The four rays
// towards higher squares (+1, +7, +8, +9) are as they are. Three of the
// rays towards lower squares (−7, −8, −9) are stored byte-swapped: swapping
// the bytes turns the rows upside down, so they run towards higher squares
// too and their outflanking disc is the lowest set bit, like the others.
// The row ray (−1) stays in its row and is resolved by highBit8.
type flipRays8 struct {
	up   [4]uint64
	sw   [3]uint64
	left uint64
}

// rays8 is the per-square table of flipRays8.
var rays8 = makeFlipRays8()

func makeFlipRays8() (r [64]flipRays8) {
	type step struct{ dr, dc int }
	ray := func(sq int, s step) uint64 {
		var m uint64
		row, col := sq/8+s.dr, sq%8+s.dc
		for row >= 0 && row < 8 && col >= 0 && col < 8 {
			m |= 1 << uint(row*8+col)
			row, col = row+s.dr, col+s.dc
		}
		return m
	}
	for sq := range r {
		r[sq].up = [4]uint64{ray(sq, step{0, 1}), ray(sq, step{1, -1}), ray(sq, step{1, 0}), ray(sq, step{1, 1})}
		r[sq].sw = [3]uint64{
			bits.ReverseBytes64(ray(sq, step{-1, 1})),
			bits.ReverseBytes64(ray(sq, step{-1, 0})),
			bits.ReverseBytes64(ray(sq, step{-1, -1})),
		}
		r[sq].left = ray(sq, step{0, -1})
	}
	return r
}

// highBit8 holds, per byte, its highest set bit (0 for 0).
var highBit8 = makeHighBit8()

func makeHighBit8() (h [256]uint8) {
	for b := 1; b < 256; b++ {
		h[b] = uint8(1) << uint(bits.Len8(uint8(b))-1)
	}
	return h
}

// Flips8 returns the discs that a move of p on square sq turns over, given
// the opponent's discs o (8×8, normal rules). It does not check that sq is
// empty; an empty result means the move is not legal.
//
// Every ray is resolved by a lowest-bit step: the downward column and
// diagonal rays on byte-swapped boards, the leftward row ray by a byte
// table. (A leading-zero count is a slow BSR on amd64 before x86-64-v3; the
// exact solver spends about half its time here.)
func Flips8(p, o uint64, sq int) uint64 {
	r := &rays8[sq&63]
	f := flipUp8(p, o, r.up[0]) | flipUp8(p, o, r.up[1]) | flipUp8(p, o, r.up[2]) | flipUp8(p, o, r.up[3])
	ps, os := bits.ReverseBytes64(p), bits.ReverseBytes64(o)
	f |= bits.ReverseBytes64(flipUp8(ps, os, r.sw[0]) | flipUp8(ps, os, r.sw[1]) | flipUp8(ps, os, r.sw[2]))
	// Row ray towards column a: the highest square of the ray that is not
	// the opponent's must be the player's.
	shift := uint(sq) &^ 7 & 63
	x := (r.left &^ o) >> shift & 0xFF
	out := uint64(highBit8[x]) << shift & p
	return f | r.left&^(out<<1-1)
}

// flipUp flips along a ray that runs towards higher squares: the first
// square of the ray that is not the opponent's must be the player's.
func flipUp8(p, o, ray uint64) uint64 {
	x := ray &^ o
	out := x & -x & p
	return (out - 1) & ray &^ uint64(int64(out-1)>>63)
}
