package eval

import (
	"math/bits"

	"flipbot.dev/flipbot/engines/othello"
)

// The 8×8 fast path: instead of gathering each instance's squares one by
// one, the board is mapped by each of the eight symmetries once, and every
// instance is read in its class's canonical orientation with constant
// masks and shifts (a multiplication packs a diagonal). The result equals
// [instanceIndex8] on the instance's own squares (tested).

// transpose8 swaps rows and columns: y[r][c] = x[c][r].
func transpose8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	return x ^ t ^ t<<28
}

// mirror8 reverses the columns: y[r][c] = x[r][7-c].
func mirror8(x uint64) uint64 {
	x = x>>1&0x5555555555555555 | x&0x5555555555555555<<1
	x = x>>2&0x3333333333333333 | x&0x3333333333333333<<2
	return x>>4&0x0F0F0F0F0F0F0F0F | x&0x0F0F0F0F0F0F0F0F<<4
}

// The canonical squares of the 8×8 classes (classes8, in order) read from
// a board as bits in digit order.
func edge2x8(y uint64) uint64   { return y&0xFF | y>>1&0x100 | y>>5&0x200 }
func corner3x3(y uint64) uint64 { return y&7 | y>>5&0x38 | y>>10&0x1C0 }
func corner2x5(y uint64) uint64 { return y&0x1F | y>>3&0x3E0 }
func row2(y uint64) uint64      { return y >> 8 & 0xFF }
func row3(y uint64) uint64      { return y >> 16 & 0xFF }
func row4(y uint64) uint64      { return y >> 24 & 0xFF }

// diag reads the n squares of the diagonal that starts on the first rank
// at column 8−n (squares 9i+8−n): the multiplication moves square i to bit
// 64−n+i without carries (every product lands on its own bit).
func diag(y uint64, n uint) uint64 {
	return (y & diagMask[n&7]) * 0x0101010101010101 >> (64 - n)
}

var diagMask = [8]uint64{
	0: 0x8040201008040201, 7: 0x0080402010080402, 6: 0x0000804020100804,
	5: 0x0000008040201008, 4: 0x0000000080402010,
}

// t10 reads up to 10 bits as ternary digits.
func t10(pb, ob uint64) int { return int(ternary10[pb&0x3FF]) + 2*int(ternary10[ob&0x3FF]) }

var ternary10 = func() (t [1024]uint16) {
	for x := range t {
		t[x] = uint16(ternary[x])
	}
	return t
}()

// fast8 is the fast path's view of a layout: per class, the symmetries of
// its instances and the offset of its weights in a phase.
type fast8 struct {
	syms [11][]uint8
	off  [11]int
}

func newFast8(l *Layout) *fast8 {
	f := &fast8{}
	for _, in := range l.instances {
		f.syms[in.class] = append(f.syms[in.class], uint8(in.sym))
	}
	copy(f.off[:], l.offset)
	return f
}

// score sums the weights of one phase (w) for p, o.
func (f *fast8) score(w []int16, p, o uint64) int {
	var yp, yo [8]uint64
	yp[0], yo[0] = p, o
	tp, to := transpose8(p), transpose8(o)
	yp[1], yo[1] = tp, to
	yp[2], yo[2] = bits.ReverseBytes64(p), bits.ReverseBytes64(o)
	yp[3], yo[3] = mirror8(p), mirror8(o)
	yp[4], yo[4] = bits.Reverse64(p), bits.Reverse64(o)
	yp[5], yo[5] = bits.Reverse64(tp), bits.Reverse64(to)
	yp[6], yo[6] = bits.ReverseBytes64(tp), bits.ReverseBytes64(to)
	yp[7], yo[7] = mirror8(tp), mirror8(to)
	s := 0
	ws := w[f.off[0]:]
	for _, k := range f.syms[0] {
		s += int(ws[t10(edge2x8(yp[k&7]), edge2x8(yo[k&7]))])
	}
	ws = w[f.off[1]:]
	for _, k := range f.syms[1] {
		s += int(ws[t10(corner3x3(yp[k&7]), corner3x3(yo[k&7]))])
	}
	ws = w[f.off[2]:]
	for _, k := range f.syms[2] {
		s += int(ws[t10(corner2x5(yp[k&7]), corner2x5(yo[k&7]))])
	}
	ws = w[f.off[3]:]
	for _, k := range f.syms[3] {
		s += int(ws[t10(row2(yp[k&7]), row2(yo[k&7]))])
	}
	ws = w[f.off[4]:]
	for _, k := range f.syms[4] {
		s += int(ws[t10(row3(yp[k&7]), row3(yo[k&7]))])
	}
	ws = w[f.off[5]:]
	for _, k := range f.syms[5] {
		s += int(ws[t10(row4(yp[k&7]), row4(yo[k&7]))])
	}
	for ci := 6; ci < 11; ci++ {
		n := uint(14 - ci)
		ws = w[f.off[ci]:]
		for _, k := range f.syms[ci] {
			s += int(ws[t10(diag(yp[k&7], n), diag(yo[k&7], n))])
		}
	}
	return s
}

// mobility8 sums the four mobility features of an 8×8 position (w starts
// at the layout's mobility tables): both sides' legal moves and potential
// mobility, as [Layout.mobility] indexes them. Two move generations and two
// neighbour masks: the counts the hand-made evaluation also takes.
func mobility8(w []int16, p, o uint64) int {
	empty := ^(p | o)
	mp := bits.OnesCount64(othello.Legal8(p, o))
	mo := bits.OnesCount64(othello.Legal8(o, p))
	pp := bits.OnesCount64(neighbours8(o) & empty)
	po := bits.OnesCount64(neighbours8(p) & empty)
	w = w[:2*mobRange+2*potRange]
	return int(w[min(mp, mobRange-1)]) + int(w[mobRange+min(mo, mobRange-1)]) +
		int(w[2*mobRange+min(pp, potRange-1)]) + int(w[2*mobRange+potRange+min(po, potRange-1)])
}
